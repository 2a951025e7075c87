/**
 * The session cookie on the wire: one cookie when the sealed value fits, else numbered
 * chunks (`name.0`, `name.1`, …) each under the ~4 KB a browser keeps per cookie. Every write
 * also clears the chunks the previous value used and this one does not, so a session that
 * shrinks leaves nothing stale behind. Internal.
 */

import { OidcError } from '@oidc-rp/core';
import { tryParseUrl } from '@oidc-rp/core/internal';
import { parseCookies } from '../web-handlers';
import { isLoopbackHost } from './login-origin';

// Browsers keep at least 4096 bytes per cookie (name, value and attributes); stay well below.
export const CHUNK_SIZE = 3800;
// Node's HTTP server refuses request headers over 16 KB in all: three chunks leave room for the rest.
export const MAX_CHUNKS = 3;

export { parseCookies };

/** Name and attributes of the session cookie for an app reached over https (`secure`) or plain http. */
export interface CookieShape {
  name: string;
  attributes: string;
}

export function cookieShape(baseName: string, secure: boolean): CookieShape {
  return {
    // __Host-: only the exact origin can set it (no sibling subdomain can plant a session), https only.
    name: secure ? `__Host-${baseName}` : baseName,
    attributes: `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  };
}

/**
 * The cookie of a session read from headers alone (a Next.js server component) without
 * `baseUrl`, when the scheme is unknown: the `__Host-` cookie, which only this exact origin over
 * https can set. The plain-named one, which any sibling subdomain can plant, is read only on a
 * loopback host (development over http), where there are no sibling subdomains.
 */
export function headersOnlyShape(baseName: string, pairs: Array<[string, string]>, host: string | null): CookieShape {
  const secure = cookieShape(baseName, true);
  const hostname = tryParseUrl(`http://${host ?? ''}`)?.hostname ?? '';
  if (hostname === '' || !isLoopbackHost(hostname)) return secure;
  return pairs.some(([name]) => name === secure.name || name.startsWith(`${secure.name}.`)) ? secure : cookieShape(baseName, false);
}

/** The names of the session cookies in a request: the single one and the chunks. */
function ownNames(pairs: Array<[string, string]>, name: string): string[] {
  return pairs.map(([n]) => n).filter((n) => n === name || (n.startsWith(`${name}.`) && /^\d+$/.test(n.slice(name.length + 1))));
}

/**
 * The sealed value in a request: the single cookie, or the chunks joined in order.
 * `'broken'` when chunks are missing (a cookie was dropped), undefined when there is none.
 */
export function readSessionCookie(pairs: Array<[string, string]>, name: string): string | 'broken' | undefined {
  const single = pairs.find(([n]) => n === name)?.[1];
  if (single !== undefined && single !== '') return single;
  const chunks = new Map(pairs.filter(([n]) => n.startsWith(`${name}.`)).map(([n, v]) => [n.slice(name.length + 1), v]));
  if (chunks.size === 0) return undefined;
  let value = '';
  for (let i = 0; i < MAX_CHUNKS; i++) {
    const chunk = chunks.get(String(i));
    if (chunk === undefined) break;
    value += chunk;
    chunks.delete(String(i));
  }
  return value === '' || chunks.size > 0 ? 'broken' : value;
}

/** Set-Cookie values that store `value` (chunked when needed) and clear every other session cookie of the request. */
export function writeSessionCookie(pairs: Array<[string, string]>, shape: CookieShape, value: string, maxAge: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < value.length; i += CHUNK_SIZE) chunks.push(value.slice(i, i + CHUNK_SIZE));
  if (chunks.length > MAX_CHUNKS) {
    throw new OidcError(
      'session_too_large',
      `The session is ${value.length} bytes sealed, more than ${MAX_CHUNKS} cookies of ${CHUNK_SIZE} bytes hold. ` +
        'Keep sessions on the server: pass a store (MemorySessionStore, or RedisSessionStore from @oidc-rp/node/redis).',
    );
  }
  const written = chunks.length === 1 ? [shape.name] : chunks.map((_, i) => `${shape.name}.${i}`);
  const headers = chunks.map((chunk, i) => `${written[i]}=${chunk}; Max-Age=${Math.max(0, Math.floor(maxAge))}; ${shape.attributes}`);
  for (const stale of ownNames(pairs, shape.name)) {
    if (!written.includes(stale)) headers.push(`${stale}=; Max-Age=0; ${shape.attributes}`);
  }
  return headers;
}

/** Set-Cookie values that clear every session cookie of the request. */
export function clearSessionCookie(pairs: Array<[string, string]>, shape: CookieShape): string[] {
  return ownNames(pairs, shape.name).map((name) => `${name}=; Max-Age=0; ${shape.attributes}`);
}

/** The Cookie header a request would carry after `setCookies` applied (to forward a refreshed session downstream). */
export function applyToCookieHeader(pairs: Array<[string, string]>, setCookies: string[]): string {
  const jar = new Map(pairs);
  for (const header of setCookies) {
    const pair = header.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    if (/Max-Age=0(;|$)/.test(header)) jar.delete(name);
    else jar.set(name, pair.slice(eq + 1));
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}
