/**
 * The fragment relay: how a server receives an authorization response that the provider put in
 * the URL fragment (hybrid and implicit response types with `responseMode: 'fragment'`, as the
 * OpenID Hybrid certification plan pins). A browser never sends the fragment to a server, so the
 * callback answers a GET without a query with a small page whose one script moves the fragment
 * into a form, takes it out of the address bar and history, and POSTs it to the same callback.
 * The POST is then checked like a form_post (state, transaction cookie, every protocol rule in
 * core) and must come from this origin. No token is ever in a URL the server sees or logs.
 */

import { OidcError } from '@oidc-rp/core';
import { cspHash } from './csp-hash';

// The relay script: fixed text, allowed by its hash in the page's CSP (no nonce to generate,
// no inline handler). It replaces the URL before posting, so the fragment leaves the history entry.
const SCRIPT =
  'var f=document.forms[0],p=new URLSearchParams(location.hash.slice(1));' +
  "history.replaceState(null,'',location.pathname+location.search);" +
  "p.forEach(function(v,k){var i=document.createElement('input');i.type='hidden';i.name=k;i.value=v;f.appendChild(i)});" +
  'f.submit();';

const scriptSource = cspHash(SCRIPT);

/**
 * The relay page for a callback GET that carries no query: a response in the fragment is posted
 * back to `request`'s path as form fields. `Cache-Control: no-store`, `Referrer-Policy:
 * no-referrer`, a CSP allowing only its own script (by hash) and forms to this origin, and never
 * framed. The session layer serves it itself; with the low-level client, answer it from your
 * callback route when the GET has no query, and pass the POST that follows to `handleCallback` or
 * `finishLogin`.
 *
 * @example
 * ```ts
 * app.get('/callback', async (c) => {
 *   if (new URL(c.req.url).search === '') return fragmentRelayPage(c.req.raw);
 *   return finish(c.req.raw); // an error the provider put in the query
 * });
 * app.post('/callback', (c) => finish(c.req.raw)); // the relayed fragment (or a form_post)
 * ```
 */
export async function fragmentRelayPage(request: Request): Promise<Response> {
  const action = new URL(request.url).pathname.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Signing you in</title></head>
<body><form method="post" action="${action}"><noscript><p>Signing in needs JavaScript, which is off in this browser.</p></noscript></form>
<script>${SCRIPT}</script></body></html>`;
  const csp = `default-src 'none'; script-src ${await scriptSource()}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
  return new Response(request.method === 'HEAD' ? null : html, {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'content-security-policy': csp,
    },
  });
}

/**
 * A relayed fragment must be posted by the relay page of this very origin: `Sec-Fetch-Site:
 * same-origin` (with an `Origin` that is the redirect URI's or `null`, which is what a browser
 * sends from a `no-referrer` page), or, from a browser that does not send `Sec-Fetch-Site`, an
 * `Origin` equal to the redirect URI's. Anything cross-site or same-site, or with neither header,
 * is refused: unlike a form_post, which the provider's page sends from its own site, nothing but
 * this origin's page posts a fragment.
 */
export function assertRelayedFromOwnOrigin(request: Request, redirectUri: string): void {
  const site = request.headers.get('sec-fetch-site');
  const origin = request.headers.get('origin');
  const expected = new URL(redirectUri).origin;
  const sameOrigin =
    site !== null ? site === 'same-origin' && (origin === null || origin === 'null' || origin === expected) : origin === expected;
  if (sameOrigin) return;
  throw new OidcError(
    'authorization_response_invalid',
    'This login expects its response in the URL fragment, relayed by the callback page of this site; this POST came ' +
      `from ${site === 'cross-site' || site === 'same-site' ? 'another site or origin' : 'another origin or an unknown sender'}, so it is refused. Start a new login.`,
  );
}

/** A relayed fragment as core reads a fragment response: the redirect URI with the parameters after `#`. */
export function relayedFragmentUrl(params: URLSearchParams, redirectUri: string): URL {
  const url = new URL(redirectUri);
  url.hash = params.toString();
  return url;
}
