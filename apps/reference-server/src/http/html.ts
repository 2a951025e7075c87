/**
 * Safe HTML output: escaping, and one page shell whose headers forbid framing, caching and
 * any resource but its own nonce-tagged inline style and script (and its inline icon).
 */
import { randomToken } from '../crypto/secrets';

/**
 * Escapes text for HTML element content and double-quoted attribute values.
 *
 * @example
 * html`<p>${escapeHtml(clientId)}</p>`;
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * A fragment of markup that is already safe; built only by {@link html}.
 *
 * @example
 * const fragment: SafeHtml = html`<strong>${name}</strong>`;
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = string | number | SafeHtml | readonly SafeHtml[] | undefined | false;

/**
 * Tagged template that escapes every interpolated string; nested `html` fragments pass through.
 *
 * @example
 * const row = html`<li>${scope}</li>`;
 * const list = html`<ul>${scopes.map((s) => html`<li>${s}</li>`)}</ul>`;
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    if (value instanceof SafeHtml) out += value.value;
    else if (Array.isArray(value)) out += value.map((v: SafeHtml) => v.value).join('');
    else if (value !== undefined && value !== false) out += escapeHtml(String(value));
    out += strings[i + 1] ?? '';
  });
  return new SafeHtml(out);
}

/**
 * The server's icon (a key on a blue square), inlined as a data URI on every page so browsers
 * never ask for a missing `/favicon.ico`; app.ts also serves it there for direct requests.
 *
 * @example
 * new Response(FAVICON_SVG, { headers: { 'Content-Type': 'image/svg+xml' } });
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1d4ed8"/><circle cx="12" cy="16" r="5" fill="none" stroke="#fff" stroke-width="3"/><path d="M17 16h10v4M23 16v3" fill="none" stroke="#fff" stroke-width="3"/></svg>';
const FAVICON_LINK = `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}">`;

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:Canvas;color:CanvasText}
main{width:min(26rem,calc(100vw - 2rem));padding:1.5rem 1.75rem;border:1px solid GrayText;border-radius:.75rem;box-sizing:border-box}
main.wide{width:min(46rem,calc(100vw - 2rem));margin:1rem 0}
h2{font-size:1.05rem;margin:1.25rem 0 .4rem}
table{border-collapse:collapse;width:100%;font-size:.95em}
th,td{text-align:left;vertical-align:top;padding:.3rem .5rem .3rem 0;border-bottom:1px solid GrayText}
.muted{opacity:.75;font-size:.92em}
.notice{padding:.6rem .8rem;border-radius:.4rem;background:#dcfce7;color:#14532d}
.users{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:.4rem}
a{color:LinkText}
h1{font-size:1.35rem;margin:0 0 .75rem}
p{margin:.5rem 0}
label{display:block;font-weight:600;margin-top:.9rem}
input[type=text],input[type=password]{box-sizing:border-box;width:100%;padding:.55rem;margin-top:.3rem;font:inherit;border:1px solid GrayText;border-radius:.4rem}
.actions{display:flex;gap:.75rem;margin-top:1.25rem;flex-wrap:wrap}
button{font:inherit;padding:.55rem 1.1rem;border-radius:.4rem;border:1px solid GrayText;background:ButtonFace;color:ButtonText;cursor:pointer}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{padding:.6rem .8rem;border-radius:.4rem;background:#fee2e2;color:#7f1d1d}
ul{padding-left:1.25rem}
code{font-size:.95em}
`;

/**
 * The CSP source that lets a form post (or a post's redirect) reach `uri`: its origin for
 * http(s), its scheme for a custom scheme (`com.example.app:`).
 *
 * @example
 * formTarget('http://127.0.0.1:3000/callback'); // 'http://127.0.0.1:3000'
 */
export function formTarget(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined;
}

/**
 * Lets a page's forms (and the redirects that answer them: browsers check those against
 * `form-action` too) reach `uris` besides the server itself, by widening the page's CSP.
 *
 * @example
 * return allowFormTargets(loginPage(...), [interaction.request.redirectUri]);
 */
export function allowFormTargets(page: Response, uris: readonly string[]): Response {
  const csp = page.headers.get('Content-Security-Policy');
  const sources = uris.map(formTarget).filter((s): s is string => s !== undefined);
  if (csp && sources.length > 0) page.headers.set('Content-Security-Policy', csp.replace("form-action 'self'", `form-action 'self' ${sources.join(' ')}`));
  return page;
}

/**
 * A complete HTML response: status, title, body; `script` (optional) runs under the page's nonce.
 * Sends `X-Frame-Options: DENY`, a CSP with `frame-ancestors 'none'`, `form-action 'self'`
 * (see {@link allowFormTargets}) and images from data URIs only (the icon), and `no-store`.
 *
 * @example
 * return htmlPage({ status: 400, title: 'Sign-in failed', body: html`<p>Unknown client.</p>` });
 */
export function htmlPage(page: {
  status?: number;
  title: string;
  body: SafeHtml;
  script?: string;
  headers?: HeadersInit;
  /** A wider column, for pages with tables. */
  wide?: boolean;
}): Response {
  const nonce = randomToken(16);
  const script = page.script ? `<script nonce="${nonce}">${page.script}</script>` : '';
  const document = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(page.title)}</title>
${FAVICON_LINK}
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main${page.wide ? ' class="wide"' : ''}>
${page.body.value}
</main>
${script}
</body>
</html>
`;
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  const headers = new Headers(page.headers);
  headers.set('Content-Type', 'text/html; charset=utf-8');
  headers.set('Cache-Control', 'no-store');
  headers.set('Pragma', 'no-cache');
  headers.set('X-Frame-Options', 'DENY');
  headers.set('Content-Security-Policy', csp);
  headers.set('X-Content-Type-Options', 'nosniff');
  headers.set('Referrer-Policy', 'no-referrer');
  return new Response(document, { status: page.status ?? 200, headers });
}

/**
 * A page explaining an error that cannot be sent back to the client (unknown client, redirect
 * URI not registered, expired sign-in). No redirect is ever made from it.
 *
 * @example
 * return errorPage(400, 'The redirect_uri is not registered for this client.');
 */
export function errorPage(status: number, message: string, error = 'invalid_request'): Response {
  return htmlPage({
    status,
    title: 'Sign-in cannot continue',
    body: html`<h1>Sign-in cannot continue</h1>
<p class="error" role="alert">${message}</p>
<p>Error code: <code>${error}</code></p>
<p>Return to the application you came from and start again.</p>`,
  });
}
