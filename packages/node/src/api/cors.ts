/**
 * CORS for an API that browser apps on other origins call with an access token: the preflight a
 * browser sends before an `Authorization` or `DPoP` header (RFC 9449) may cross origins, and the
 * headers that let the page read the answer — including `WWW-Authenticate` and `DPoP-Nonce`, which
 * a client needs to recover from a 401 or retry with a server nonce. Only listed origins are
 * answered, each with itself (never `*`), and every answer varies by `Origin`.
 */

import { invalidOptions } from '@oidc-rp/core/internal';

/** The `cors` option of `requireAccessToken`. */
export interface CorsOptions {
  /** The exact origins of the apps that call this API (`https://app.example.com`); no wildcard. */
  origins: readonly string[];
  /** Methods the preflight allows. Default `GET, HEAD, POST, PUT, PATCH, DELETE`. */
  methods?: readonly string[];
  /** Request headers allowed besides `Authorization`, `DPoP` and `Content-Type`. */
  allowHeaders?: readonly string[];
  /** Response headers the page may read besides `WWW-Authenticate` and `DPoP-Nonce`. */
  exposeHeaders?: readonly string[];
  /** Seconds a browser may cache a preflight. Default 600. */
  maxAge?: number;
  /** Allow cookies with the calls (`Access-Control-Allow-Credentials: true`). Default false: tokens need none. */
  credentials?: boolean;
}

/** What the guard asks of its CORS settings. */
export interface CorsPolicy {
  /** The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`): 204, with CORS headers only for a listed origin. */
  preflight(origin: string | null): { status: 204; headers: Record<string, string> };
  /** The headers of an actual answer (refusal or success) to a request from `origin`. */
  headers(origin: string | null): Record<string, string>;
}

const DEFAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ALWAYS_ALLOWED = ['Authorization', 'DPoP', 'Content-Type'];
const ALWAYS_EXPOSED = ['WWW-Authenticate', 'DPoP-Nonce'];
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function origins(list: unknown): Set<string> {
  if (!Array.isArray(list) || list.length === 0) {
    throw invalidOptions('cors.origins must list the origins of the apps that call this API, e.g. ["https://app.example.com"].');
  }
  const out = new Set<string>();
  for (const value of list) {
    if (value === '*') {
      throw invalidOptions('cors.origins cannot be "*": list each app origin, so no other site can read answers meant for your users.');
    }
    let url: URL | undefined;
    try {
      url = typeof value === 'string' ? new URL(value) : undefined;
    } catch {
      // refused below
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== String(value).replace(/\/$/, '')) {
      throw invalidOptions(`cors.origins must hold origins only (scheme, host and port, no path), e.g. "https://app.example.com"; got ${JSON.stringify(String(value).slice(0, 100))}.`);
    }
    out.add(url.origin);
  }
  return out;
}

function tokens(list: readonly string[] | undefined, name: string): string[] {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.some((v) => typeof v !== 'string' || !TOKEN.test(v))) {
    throw invalidOptions(`cors.${name} must be a list of header or method names.`);
  }
  return [...list];
}

/**
 * The CORS settings of a guard, checked once.
 *
 * @example
 * const cors = corsPolicy({ origins: ['https://app.example.com'] });
 * cors.headers('https://app.example.com'); // { Vary: 'Origin', 'Access-Control-Allow-Origin': 'https://app.example.com', ... }
 */
export function corsPolicy(options: CorsOptions): CorsPolicy {
  if (typeof options !== 'object' || options === null) throw invalidOptions('cors must be an object: { origins: ["https://app.example.com"] }.');
  const allowed = origins(options.origins);
  const methods = options.methods === undefined ? DEFAULT_METHODS : tokens(options.methods, 'methods');
  const allowHeaders = [...ALWAYS_ALLOWED, ...tokens(options.allowHeaders, 'allowHeaders')].join(', ');
  const exposeHeaders = [...ALWAYS_EXPOSED, ...tokens(options.exposeHeaders, 'exposeHeaders')].join(', ');
  const maxAge = options.maxAge ?? 600;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw invalidOptions('cors.maxAge must be a whole number of seconds.');
  const credentials: Record<string, string> = options.credentials === true ? { 'Access-Control-Allow-Credentials': 'true' } : {};

  return {
    preflight(origin) {
      const vary = { Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers' };
      if (origin === null || !allowed.has(origin)) return { status: 204, headers: vary };
      return {
        status: 204,
        headers: {
          ...vary,
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': methods.join(', '),
          'Access-Control-Allow-Headers': allowHeaders,
          'Access-Control-Max-Age': String(maxAge),
          ...credentials,
        },
      };
    },
    headers(origin) {
      if (origin === null || !allowed.has(origin)) return { Vary: 'Origin' };
      return { Vary: 'Origin', 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': exposeHeaders, ...credentials };
    },
  };
}
