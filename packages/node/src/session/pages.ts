/**
 * The HTML pages of the auth routes, written for the person in front of the browser: a failed
 * or cancelled sign-in, "you are signed out", the logout confirmation. Every interpolated value
 * is escaped; there is no script. The one inline `<style>` is allowed by the page's own
 * Content-Security-Policy through its hash, so the pages also render under a strict policy and
 * allow nothing else. `error` and `signedOut` can be replaced with the `pages` option.
 */

import type { OidcError } from '@oidc-rp/core';
import { cspHash } from '../csp-hash';

/**
 * What the error page is told about a failed sign-in.
 *
 * @example
 * ```ts
 * const error = (info: ErrorPageInfo) =>
 *   info.error === 'access_denied' ? `<p>Not signed in. <a href="${info.loginUrl}">Try again</a></p>` : `<p>Error ${info.code}</p>`;
 * ```
 */
export interface ErrorPageInfo {
  /** The stable error code for support: `authorization_error` when the provider answered with an error, else e.g. `transaction_not_found`, `state_mismatch`. */
  code: string;
  /** The provider's OAuth error (`access_denied`, `login_required`, …) when it answered with one. */
  error?: string;
  /** The provider's `error_description`, as received: text from the URL, so escape it before putting it in HTML. */
  description?: string;
  /** The login route, with the `returnTo` of the failed login when known: the "Try again" link. */
  loginUrl: string;
  /** Where "Home" leads: the `postLogoutRedirect` option (default `/`). */
  homeUrl: string;
  /** The local path the failed login was to return to, when known. */
  returnTo?: string;
  /** The status of the default page: 400, or 503 when the session store failed. */
  status: number;
  /** The error itself, for your logs (its `message` is written for developers). */
  cause: OidcError;
  request: Request;
}

/**
 * What the signed-out page is told.
 *
 * @example
 * ```ts
 * const signedOut = (info: SignedOutPageInfo) => `<p>Bye. <a href="${info.homeUrl}">Home</a></p>`;
 * ```
 */
export interface SignedOutPageInfo {
  /** Where "Home" leads: the `postLogoutRedirect` option (default `/`). */
  homeUrl: string;
  /** The login route, to sign in again. */
  loginUrl: string;
  request: Request;
}

/**
 * Replacements for the session layer's pages. A string is sent as an HTML page (with
 * `Cache-Control: no-store`, and without the default pages' Content-Security-Policy, so your
 * own styles apply); a `Response` is sent as it is.
 *
 * @example
 * ```ts
 * createSessionAuth({
 *   client,
 *   secret,
 *   pages: {
 *     error: (info) => renderToString(<SignInFailed code={info.code} retry={info.loginUrl} />),
 *     signedOut: () => Response.redirect('https://app.example.com/goodbye', 303),
 *   },
 * });
 * ```
 */
export interface SessionPages {
  /** A sign-in that failed or was cancelled at the callback. */
  error?: (info: ErrorPageInfo) => Response | string | Promise<Response | string>;
  /** The logout route visited without a session (e.g. after signing out, with `postLogoutRedirect: '/auth/logout'`). */
  signedOut?: (info: SignedOutPageInfo) => Response | string | Promise<Response | string>;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE =
  'body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f6f8fa;color:#1f2328;' +
  'font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}' +
  'main{box-sizing:border-box;width:min(32rem,100% - 2rem);margin:2rem 1rem;padding:2rem;background:#fff;' +
  'border:1px solid #d0d7de;border-radius:12px;box-shadow:0 1px 3px rgba(31,35,40,.08)}' +
  'h1{margin:0 0 .75rem;font-size:1.4rem}p{margin:.5rem 0}' +
  '.said{padding:.5rem .75rem;background:#fff8c5;border-left:4px solid #d4a72c;border-radius:4px}' +
  '.code{color:#59636e;font-size:.9rem}code{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace}' +
  '.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}' +
  '.button{display:inline-block;padding:.5rem 1rem;border-radius:6px;border:1px solid #d0d7de;background:#f6f8fa;' +
  'color:#1f2328;text-decoration:none;font:inherit;cursor:pointer}' +
  '.primary{background:#1f883d;border-color:#1a7f37;color:#fff}' +
  'details{margin-top:1.5rem;color:#59636e;font-size:.9rem}';

// The CSP source of STYLE, computed once.
const styleSource = cspHash(STYLE);

const HTML_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY' };

async function page(status: number, title: string, body: string): Promise<Response> {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
  // No form-action: Chrome applies it to the redirect after the logout POST (to the provider).
  const csp = `default-src 'none'; style-src ${await styleSource()}; base-uri 'none'; frame-ancestors 'none'`;
  return new Response(html, { status, headers: { ...HTML_HEADERS, 'content-security-policy': csp } });
}

/** A replacement page's answer: a string becomes an HTML page with `status`. */
export async function customPage(answer: Response | string | Promise<Response | string>, status: number): Promise<Response> {
  const value = await answer;
  return typeof value === 'string' ? new Response(value, { status, headers: HTML_HEADERS }) : value;
}

function link(href: string, text: string, primary = false): string {
  return `<a class="button${primary ? ' primary' : ''}" href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
}

/**
 * The default error page. A person who pressed Cancel (or was locked out) is told the sign-in
 * did not complete, in the provider's own words when it sent some; anything else is a generic
 * failure with the stable code to quote to support, and on a loopback origin (development) the
 * developer message folded away below it.
 */
export function errorPage(info: ErrorPageInfo, development: boolean): Promise<Response> {
  const actions = `<div class="actions">${link(info.loginUrl, 'Try again', true)}${link(info.homeUrl, 'Home')}</div>`;
  const details = development
    ? `<details><summary>Details for developers</summary><p><code>${escapeHtml(info.cause.code)}</code>: ${escapeHtml(info.cause.message)}</p></details>`
    : '';
  if (info.error === 'access_denied') {
    const said = info.description ? `<p class="said">${escapeHtml(info.description)}</p>` : '';
    // A person's decision (or the provider's lockout), not a fault: nothing for developers to add.
    return page(info.status, 'Sign-in not completed', `<p>The sign-in did not complete, so you are not signed in.</p>${said}${actions}`);
  }
  const code = info.error ? `${info.code}: ${info.error}` : info.code;
  const text =
    info.status === 503
      ? '<p>Signing you in is temporarily unavailable. Please try again in a moment.</p>'
      : '<p>Something went wrong while signing you in. Please try again.</p>';
  return page(
    info.status,
    'Sign-in failed',
    `${text}<p class="code">If it keeps happening, contact support and quote the code <code>${escapeHtml(code)}</code>.</p>${actions}${details}`,
  );
}

export function signedOutPage(info: SignedOutPageInfo): Promise<Response> {
  return page(200, 'You are signed out', `<p>You have been signed out of this site.</p><div class="actions">${link(info.homeUrl, 'Home', true)}${link(info.loginUrl, 'Sign in again')}</div>`);
}

export function logoutConfirmPage(logoutPath: string, csrfToken: string, homeUrl: string): Promise<Response> {
  return page(
    200,
    'Sign out?',
    `<p>Do you want to sign out of this site?</p><form method="post" action="${escapeHtml(logoutPath)}" class="actions">` +
      `<input type="hidden" name="csrf_token" value="${escapeHtml(csrfToken)}">` +
      `<button type="submit" class="button primary">Sign out</button>${link(homeUrl, 'Cancel')}</form>`,
  );
}

/** A refused sign-out: 403 (not the app's own request) or 413 (a body over the form cap, not read past it). */
export function refusedPage(message: string, homeUrl: string, status: 403 | 413 = 403): Promise<Response> {
  return page(status, 'Sign-out refused', `<p>${escapeHtml(message)}</p><div class="actions">${link(homeUrl, 'Home')}</div>`);
}

/** Back from the provider's logout without the state this browser's logout sent (`logout_state_mismatch`). */
export function logoutStateMismatchPage(homeUrl: string): Promise<Response> {
  return page(
    400,
    'Sign-out not recognised',
    `<p>This sign-out response does not match a sign-out started in this browser, so nothing was done here.</p><p class="code">Code <code>logout_state_mismatch</code></p><div class="actions">${link(homeUrl, 'Home')}</div>`,
  );
}

export function unavailablePage(homeUrl: string): Promise<Response> {
  return page(
    503,
    'Temporarily unavailable',
    `<p>This site cannot reach its session storage right now. Please try again in a moment.</p><div class="actions">${link(homeUrl, 'Home')}</div>`,
  );
}
