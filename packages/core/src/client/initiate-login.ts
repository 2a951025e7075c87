/**
 * Third-party initiated login (OIDC Core 4): a provider (or a page it links from) sends the
 * browser to the client's `initiate_login_uri` with `iss`, and maybe `login_hint` and
 * `target_link_uri`; the client then starts an ordinary login at that issuer. Anyone can craft
 * such a link, so nothing in it is trusted: `iss` must be the one issuer the client is
 * configured for, and `target_link_uri` (where to go after the login) must point at an origin
 * the app allows, or it would make the app an open redirector.
 */

import { DEV } from '../dev';
import { OidcError } from '../errors';
import { invalidOptions } from '../options';

/** Options of {@link readInitiateLogin}. */
export interface InitiateLoginOptions {
  /** The issuer the client is configured for; `iss` must equal it exactly (no discovery on its say-so). */
  issuer: string;
  /**
   * The origins `target_link_uri` may point at (`https://app.example`), usually the app's own.
   * A `target_link_uri` on any other origin is refused (`initiate_login_target_not_allowed`).
   */
  targetOrigins: readonly string[];
}

/** What a valid initiation asks for. */
export interface InitiatedLogin {
  /** The `login_hint` to pass on to the authorization request, if any. */
  loginHint?: string;
  /** Where to send the user after the login (absolute, on an allowed origin), if any. */
  targetLinkUri?: string;
}

/** The parameters read; any other is ignored (OIDC Core 4 lets a provider add its own). */
const PARAMS = ['iss', 'login_hint', 'target_link_uri'] as const;
/** Longest value accepted: a hint or a URL, not a payload. */
const MAX_VALUE_LENGTH = 2048;

/**
 * Checks a third-party login initiation (the query of a GET, or the form of a POST, to the
 * client's `initiate_login_uri`) and resolves what it asks for. Throws an {@link OidcError}:
 * `initiate_login_invalid` (a parameter missing, repeated or too long),
 * `initiate_login_iss_mismatch` (`iss` is not the configured issuer) or
 * `initiate_login_target_not_allowed` (`target_link_uri` not an absolute http(s) URL on an
 * allowed origin).
 *
 * @example
 * ```ts
 * import { readInitiateLogin } from '@oidc-rp/core';
 *
 * const { loginHint, targetLinkUri } = readInitiateLogin(
 *   new URLSearchParams('iss=https%3A%2F%2Fid.example&login_hint=alice'),
 *   { issuer: 'https://id.example', targetOrigins: ['https://app.example'] },
 * );
 * console.log(loginHint); // 'alice'
 * ```
 */
export function readInitiateLogin(params: URLSearchParams, options: InitiateLoginOptions): InitiatedLogin {
  const allowed = allowedOrigins(options);
  const values: Partial<Record<(typeof PARAMS)[number], string>> = {};
  for (const name of PARAMS) {
    const all = params.getAll(name);
    if (all.length > 1) fail('initiate_login_invalid', DEV && `"${name}" is repeated`);
    const value = all[0];
    if (value === undefined || value === '') continue;
    if (value.length > MAX_VALUE_LENGTH) fail('initiate_login_invalid', DEV && `"${name}" is longer than ${MAX_VALUE_LENGTH} characters`);
    values[name] = value;
  }
  if (values.iss === undefined) fail('initiate_login_invalid', DEV && 'no "iss": the issuer to log in at is required');
  // Exact comparison, as for every issuer: a look-alike or a trailing slash is another issuer.
  if (values.iss !== options.issuer) fail('initiate_login_iss_mismatch', DEV && 'its "iss" is not the issuer this client is configured for');
  const result: InitiatedLogin = {};
  if (values.login_hint !== undefined) result.loginHint = values.login_hint;
  if (values.target_link_uri !== undefined) result.targetLinkUri = checkTarget(values.target_link_uri, allowed);
  return result;
}

function allowedOrigins({ issuer, targetOrigins }: InitiateLoginOptions): Set<string> {
  if (typeof issuer !== 'string' || !issuer) throw invalidOptions(DEV && 'issuer is required: the issuer the client is configured for.');
  if (!Array.isArray(targetOrigins)) throw invalidOptions(DEV && 'targetOrigins must be a list of origins, e.g. ["https://app.example"].');
  return new Set(
    targetOrigins.map((origin) => {
      const url = URL.canParse(origin) ? new URL(origin) : undefined;
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
        throw invalidOptions(DEV && 'targetOrigins must hold http(s) origins, e.g. "https://app.example".');
      }
      return url.origin;
    }),
  );
}

/** An absolute http(s) URL, without credentials, on an allowed origin: else refused (never followed). */
function checkTarget(target: string, allowed: ReadonlySet<string>): string {
  const url = URL.canParse(target) ? new URL(target) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || !allowed.has(url.origin)) {
    fail('initiate_login_target_not_allowed', DEV && '"target_link_uri" is not an absolute URL on an origin of targetOrigins (an open redirect otherwise)');
  }
  return url.href;
}

function fail(code: 'initiate_login_invalid' | 'initiate_login_iss_mismatch' | 'initiate_login_target_not_allowed', problem?: string | false): never {
  throw new OidcError(code, DEV && `Refused third-party login initiation: ${problem}; start the login from the app, or check the link that led here.`);
}
