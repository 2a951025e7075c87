/**
 * The `error_description` of each way a person ends a sign-in without success. Clients show
 * them, so each says what happened in words a person understands, and no two causes share one
 * ("cancelled" is never said of a lockout).
 */

/** Cancel on the login page. */
export const CANCELLED_DESCRIPTION = 'The user cancelled the sign-in';
/** Deny on the consent page. */
export const DENIED_DESCRIPTION = 'The user denied the application access';
/** Three wrong passwords in one sign-in, or leaving the locked page; begins with the words clients match on. */
export const TOO_MANY_ATTEMPTS_DESCRIPTION = 'Too many failed sign-in attempts; nothing was issued. Wait before trying again, or ask for a password reset.';
