/**
 * Login and callback routes on web-standard `Request` / `Response`, so they fit Hono,
 * Next.js route handlers, Fastify and Express (through a small adapter) alike.
 *
 * The transaction travels in a cookie named after the login's state
 * (`oidc-rp.tx.<hash of state>`), so several logins in parallel tabs do not overwrite each
 * other, and the callback finds the one it answers. Cookie attributes:
 * - `HttpOnly`, `Path=/`, `Max-Age` = the transaction's max age;
 * - https redirect URI: `Secure` and the `__Host-` prefix; `SameSite=None` for form_post
 *   (the provider's auto-submitted form is a cross-site POST, which never carries a Lax
 *   cookie), `SameSite=Lax` for query responses (a top-level GET carries it);
 * - http redirect URI (local development): no `Secure` (browsers would drop the cookie) and
 *   `SameSite=Lax`, since `None` requires `Secure`. A form_post then works only when the
 *   provider is same-site with the app (e.g. both on 127.0.0.1, any ports), as in `pnpm demo`.
 */

import { OidcError } from '@oidc-rp/core';
import { decodeUnverifiedJwt } from '@oidc-rp/core/internal';
import type { AuthorizationTransaction, TokenSet } from '@oidc-rp/core';
import { type CallbackParams, readCallbackRequest } from './callback-input';
import type { CallbackResult, HandleLoginOptions, NodeClient } from './client-types';

/** What the handlers need from the client. Internal. */
export interface WebHandlerDeps {
  client: Pick<NodeClient, 'startLogin' | 'sealTransaction' | 'unsealTransaction'>;
  finish(callback: CallbackParams, transaction: AuthorizationTransaction, request: Request): Promise<TokenSet>;
  redirectUri(): string | undefined;
  cookieName: string;
  transactionMaxAge: number;
}

// Abandoned logins leave cookies until they expire; past this many, the oldest are cleared
// so the Cookie header stays small.
const MAX_PENDING_LOGINS = 5;

export function createWebHandlers(deps: WebHandlerDeps) {
  function cookieShape(responseMode?: string) {
    const redirectUri = deps.redirectUri();
    const secure = redirectUri !== undefined && new URL(redirectUri).protocol === 'https:';
    return {
      prefix: `${secure ? '__Host-' : ''}${deps.cookieName}.`,
      attributes: `Path=/; HttpOnly; SameSite=${secure && responseMode === 'form_post' ? 'None' : 'Lax'}${secure ? '; Secure' : ''}`,
    };
  }

  return {
    async handleLogin(request: Request, options?: HandleLoginOptions): Promise<Response> {
      const { url, transaction } = await deps.client.startLogin(options);
      const sealed = await deps.client.sealTransaction(transaction);
      const { prefix, attributes } = cookieShape(transaction.responseMode);
      const headers = new Headers({ Location: url.href, 'Cache-Control': 'no-store' });
      const pending = parseCookies(request.headers.get('cookie')).filter(([name]) => name.startsWith(prefix));
      // Cookies come oldest first (RFC 6265 5.4); keep room for this login.
      for (const [name] of pending.slice(0, Math.max(0, pending.length - (MAX_PENDING_LOGINS - 1)))) {
        headers.append('Set-Cookie', `${name}=; Max-Age=0; ${cookieShape().attributes}`);
      }
      const name = prefix + (await stateHash(transaction.state));
      headers.append('Set-Cookie', `${name}=${sealed}; Max-Age=${Math.floor(deps.transactionMaxAge)}; ${attributes}`);
      return new Response(null, { status: 302, headers });
    },

    async handleCallback(request: Request): Promise<CallbackResult> {
      const callback = await readCallbackRequest(request);
      const search = callback.params instanceof URL ? callback.params.searchParams : callback.params;
      const state = search.get('state') ?? jarmState(search);
      if (!state) {
        throw new OidcError(
          'state_missing',
          'The callback has no state parameter, so it cannot belong to a login started here; start a new login.',
        );
      }
      const { prefix } = cookieShape();
      const name = prefix + (await stateHash(state));
      const sealed = parseCookies(request.headers.get('cookie')).find(([cookie]) => cookie === name)?.[1];
      if (sealed === undefined) {
        throw new OidcError(
          'transaction_not_found',
          'No login transaction cookie matches this callback: the login was started in another browser, took longer ' +
            'than the transaction max age, or the cookie was blocked (see the SameSite notes in the README). Start a new login.',
        );
      }
      const transaction = await deps.client.unsealTransaction(sealed);
      const tokens = await deps.finish(callback, transaction, request);
      const clearCookie = `${name}=; Max-Age=0; ${cookieShape(transaction.responseMode).attributes}`;
      return { tokens, appState: transaction.appState, transaction, clearCookie };
    },
  };
}

/**
 * The `state` inside a JARM `response`, read WITHOUT verification: only to find which login's
 * cookie the callback answers. The response is verified (and its state compared with that
 * login's) by the callback's completion before anything in it is used.
 */
function jarmState(search: URLSearchParams): string | undefined {
  const response = search.get('response');
  const state = response === null ? undefined : decodeUnverifiedJwt(response)?.payload.state;
  return typeof state === 'string' ? state : undefined;
}

/** Short, fixed-length cookie-name suffix for a state (hex of the first 12 bytes of its SHA-256). */
async function stateHash(state: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(state)));
  return Array.from(digest.subarray(0, 12), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** `name=value` pairs of a Cookie header, in order. */
export function parseCookies(header: string | null): Array<[string, string]> {
  if (!header) return [];
  const pairs: Array<[string, string]> = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) pairs.push([part.slice(0, eq).trim(), part.slice(eq + 1).trim()]);
  }
  return pairs;
}
