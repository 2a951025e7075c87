/** The one clock of token lifetimes: every function that judges a time takes a {@link Clock}. */

/**
 * The current time in epoch seconds. Pass your own to every call that judges token lifetimes
 * (tests with fake time, a server-corrected clock); default {@link systemClock}.
 *
 * @example
 * ```ts
 * const skewed: Clock = () => systemClock() + 30;
 * ```
 */
export type Clock = () => number;

/**
 * `Date.now()` in whole epoch seconds.
 *
 * @example
 * ```ts
 * const expiresAt = systemClock() + 3600;
 * ```
 */
export const systemClock: Clock = () => Math.floor(Date.now() / 1000);
