/**
 * OpenID Connect Front-Channel Logout 1.0, the provider's side (§2, §4): after a sign-in ends at
 * `/oidc/logout`, a page loads each of its clients' `frontchannel_logout_uri` in an iframe
 * (with `iss` and `sid` for clients that registered `frontchannel_logout_session_required`),
 * waits for them to load (bounded), then goes on to the post-logout redirect or says the
 * user is signed out. Its CSP allows frames from those URIs' origins and nothing else.
 */
import type { Tenant } from '../config/model';
import { formTarget, html, htmlPage, SafeHtml } from '../http/html';
import type { SessionClients } from './session-clients';

/** How long the page waits for the iframes before it goes on anyway, in milliseconds. */
export const FRONTCHANNEL_WAIT_MS = 3_000;

/**
 * The front-channel logout URLs of an ended sign-in's clients, in the order they signed in.
 *
 * @example
 * frontchannelUrls(ctx.tenant, ctx.issuer, session); // ['http://127.0.0.1:3000/auth/frontchannel-logout?iss=...&sid=...']
 */
export function frontchannelUrls(tenant: Tenant, issuer: string, session: SessionClients | undefined): string[] {
  if (!session) return [];
  return [...session.clients].flatMap((id) => {
    const client = tenant.clients.get(id);
    if (client?.frontchannel_logout_uri === undefined) return [];
    const url = new URL(client.frontchannel_logout_uri);
    if (client.frontchannel_logout_session_required) {
      url.searchParams.set('iss', issuer);
      url.searchParams.set('sid', session.sid);
    }
    return [url.href];
  });
}

// Loads each frame, then goes on when all have loaded or the wait is over, whichever is first.
const SCRIPT = `
const data = JSON.parse(document.getElementById('frontchannel').textContent);
const loads = data.frames.map((src) => new Promise((resolve) => {
  const frame = document.createElement('iframe');
  frame.addEventListener('load', resolve, { once: true });
  frame.addEventListener('error', resolve, { once: true });
  frame.title = 'Signing out of an application';
  frame.referrerPolicy = 'no-referrer';
  frame.style.cssText = 'width:0;height:0;border:0;visibility:hidden';
  frame.src = src;
  document.getElementById('frames').append(frame);
}));
const waited = new Promise((resolve) => setTimeout(resolve, data.wait));
Promise.race([Promise.all(loads), waited]).then(() => {
  document.body.dataset.frontchannel = 'done';
  if (data.next) location.replace(data.next);
  else document.getElementById('status').textContent = 'You are signed out. You can close this window.';
});
`;

/**
 * The page that signs the user out of the applications before going to `next` (the
 * post-logout redirect with its state) or, without one, saying the user is signed out.
 *
 * @example
 * return frontchannelLogoutPage(urls, location, clearCookies);
 */
export function frontchannelLogoutPage(frames: readonly string[], next: string | undefined, setCookies: readonly string[]): Response {
  const data = JSON.stringify({ frames, next, wait: FRONTCHANNEL_WAIT_MS }).replace(/</g, '\\u003c');
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  for (const value of setCookies) headers.append('Set-Cookie', value);
  const page = htmlPage({
    title: 'Signing out',
    body: html`<h1>Signing out</h1>
<p id="status" role="status">Signing you out of the applications you used&hellip;</p>
${next === undefined ? '' : html`<noscript><p><a href="${next}">Continue</a></p></noscript>`}
<div id="frames"></div>
<script type="application/json" id="frontchannel">${new SafeHtml(data)}</script>`,
    script: SCRIPT,
    headers,
  });
  const origins = [...new Set(frames.map(formTarget).filter((o): o is string => o !== undefined))];
  const csp = page.headers.get('Content-Security-Policy') ?? '';
  page.headers.set('Content-Security-Policy', `${csp}; frame-src ${origins.length > 0 ? origins.join(' ') : "'none'"}`);
  return page;
}
