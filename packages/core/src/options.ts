/** Checks of what a caller passes, shared by the request builders and the wrappers' options. */

import { DEV } from './dev';
import { OidcError } from './errors';

/**
 * The caller's mistake, found before any request is sent: `OidcError` `invalid_options` with
 * what to change. The one such error of every package (the wrappers' option checks use it).
 *
 * @example
 * ```ts
 * if (!redirectUri) throw invalidOptions('redirectUri is required: the registered URL of your callback.');
 * ```
 */
export function invalidOptions(message?: string): OidcError {
  return new OidcError('invalid_options', message);
}

/** Throws `invalid_options` ("<name> is required.") unless `value` is a non-empty string. */
export function requireString(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string' || !value) throw invalidOptions(DEV && `${name} is required.`);
}
