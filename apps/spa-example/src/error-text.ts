/**
 * What a person reads when a login or refresh fails. The SDK's messages are written for
 * developers ("check the client registration"); a user who pressed Cancel needs to hear that
 * nothing went wrong. The code stays visible for support.
 */
export interface ErrorText {
  title: string;
  message: string;
}

/** OAuth `error` values the provider sends back in the redirect (RFC 6749 §4.1.2.1, OIDC §3.1.2.6). */
const PROVIDER_ERRORS: Record<string, ErrorText> = {
  access_denied: {
    title: 'Sign-in not completed',
    message: 'The sign-in was cancelled or not allowed, so nothing was shared with this app. You can try again whenever you like.',
  },
  login_required: { title: 'Please sign in', message: 'Your session at the sign-in server has ended. Sign in again to continue.' },
  consent_required: { title: 'Permission needed', message: 'This app needs your permission to continue. Sign in again and allow access.' },
  interaction_required: { title: 'Please sign in', message: 'The sign-in server needs you to sign in again.' },
  temporarily_unavailable: { title: 'Try again shortly', message: 'The sign-in server is busy or briefly unavailable. Please try again in a moment.' },
  server_error: { title: 'The sign-in server had a problem', message: 'Something went wrong on the sign-in server. Please try again later.' },
};

// What the provider says for Cancel (on the login page) and Deny (on the consent page).
const CANCELLED = /\bcancell?ed\b/i;
const DENIED = /\bdenied\b/i;

const ACCESS_DENIED = {
  cancelled: { title: 'Sign-in was cancelled', message: 'You cancelled the sign-in, so nothing was shared with this app. Try again whenever you like.' },
  denied: { title: 'Access not allowed', message: 'You did not allow this app access, so nothing was shared with it. Try again to allow it.' },
} satisfies Record<string, ErrorText>;

/**
 * Whether the error is a sign-in the user cancelled (or declined) at the provider: nothing failed.
 *
 * @example
 * isCancelled(useAuth().error); // true after Cancel on the login page
 */
export function isCancelled(error: unknown): boolean {
  const fields = typeof error === 'object' && error !== null ? (error as { code?: unknown; error?: unknown; error_description?: unknown }) : {};
  return fields.code === 'authorization_error' && fields.error === 'access_denied' && typeof fields.error_description === 'string' && (CANCELLED.test(fields.error_description) || DENIED.test(fields.error_description));
}

/** The SDK's own codes, grouped by what the user can do about them. */
const SDK_ERRORS: Record<string, ErrorText> = {
  transaction_not_found: {
    title: 'This sign-in has expired',
    message: 'The sign-in page you came back from was already used, or was started in another tab. Start a new sign-in.',
  },
  network_error: { title: 'Cannot reach the sign-in server', message: 'Check your connection and try again.' },
  refresh_failed: { title: 'Your session has ended', message: 'Sign in again to continue.' },
  login_required: { title: 'Your session has ended', message: 'Sign in again to continue.' },
};

const SECURITY_CHECK: ErrorText = {
  title: 'The sign-in was refused for your safety',
  message: 'The answer from the sign-in server failed a security check, so this app did not use it. Start a new sign-in; if it keeps happening, contact support with the code below.',
};

/**
 * The text for an error from `useAuth()` (an `OidcError`, or anything thrown).
 *
 * @example
 * describeError(error).message; // the provider's error_description for an access_denied redirect
 */
export function describeError(error: unknown): ErrorText & { code?: string } {
  const fields = typeof error === 'object' && error !== null ? (error as { code?: unknown; error?: unknown }) : {};
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  if (code === 'authorization_error' && typeof fields.error === 'string') {
    const known = PROVIDER_ERRORS[fields.error];
    // access_denied covers Cancel, Deny and a lockout alike: the provider's description says
    // which. Cancel and Deny get this app's own words; any other reason (a lockout) the provider's.
    const said = (error as { error_description?: unknown }).error_description;
    if (fields.error === 'access_denied' && typeof said === 'string') {
      if (CANCELLED.test(said)) return { ...ACCESS_DENIED.cancelled, code: fields.error };
      if (DENIED.test(said)) return { ...ACCESS_DENIED.denied, code: fields.error };
      if (said.trim() !== '' && known) return { title: known.title, message: said.slice(0, 300), code: fields.error };
    }
    if (known) return { ...known, code: fields.error };
  }
  if (code && SDK_ERRORS[code]) return { ...SDK_ERRORS[code], code };
  if (code && /^(id_token_|state_|iss_|discovery_|token_response|userinfo_)/.test(code)) return { ...SECURITY_CHECK, code };
  return { title: 'Something went wrong', message: error instanceof Error ? error.message : String(error), ...(code ? { code } : {}) };
}
