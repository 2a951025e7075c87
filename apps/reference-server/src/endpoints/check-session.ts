/**
 * `GET /oidc/check-session`: the OP iframe of OpenID Connect Session Management 1.0 (§3.3). An RP
 * page frames it and posts `client_id + " " + session_state`; it answers that frame, at the
 * frame's origin only, `unchanged` when the state still hashes to the same value with the
 * browser-state cookie it reads now, `changed` when not (signed out, or signed in again), and
 * `error` for a malformed message or a client_id / origin pair that is not registered (the
 * origin must be one of the client's redirect URIs'). Only those origins may frame it.
 * The `check_session_changed` fault answers `changed` to its client whatever was posted.
 */
import { clientFaults } from '../config/model';
import { formTarget, html, htmlPage, SafeHtml } from '../http/html';
import { cookieName } from '../oauth/session';
import type { RequestContext } from '../request/context';
import { BROWSER_STATE_COOKIE } from '../oauth/browser-state';

/** What the iframe knows of each client: the origins that may ask, and the fault. */
type ClientView = Record<string, { origins: string[]; changed?: true }>;

function clientView(ctx: RequestContext): ClientView {
  const view: ClientView = {};
  for (const client of ctx.tenant.clients.values()) {
    const origins = [...new Set(client.redirect_uris.map(webOrigin).filter((o): o is string => o !== undefined))];
    if (origins.length === 0) continue;
    view[client.client_id] = { origins, ...(clientFaults(ctx.tenant, client.client_id)?.has('check_session_changed') ? { changed: true as const } : {}) };
  }
  return view;
}

function webOrigin(uri: string): string | undefined {
  const origin = formTarget(uri);
  return origin?.startsWith('http') ? origin : undefined;
}

// Runs in the OP iframe: recomputes the session state with the origin that asks (§4.2).
const SCRIPT = `
const clients = JSON.parse(document.getElementById('clients').textContent);
const cookieName = document.getElementById('clients').dataset.cookie;
function browserState() {
  const pair = document.cookie.split('; ').find((p) => p.startsWith(cookieName + '='));
  return pair ? pair.slice(cookieName.length + 1) : '';
}
async function hash(text) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
}
addEventListener('message', async (event) => {
  if (!event.source || event.origin === 'null' || event.source === window) return;
  const reply = (answer) => event.source.postMessage(answer, event.origin);
  const words = typeof event.data === 'string' ? event.data.split(' ') : [];
  const client = words.length === 2 && Object.hasOwn(clients, words[0]) ? clients[words[0]] : undefined;
  const dot = words.length === 2 ? words[1].lastIndexOf('.') : -1;
  if (!client || !client.origins.includes(event.origin) || dot < 1 || dot === words[1].length - 1) return reply('error');
  if (client.changed) return reply('changed');
  const salt = words[1].slice(dot + 1);
  const expected = (await hash(words[0] + ' ' + event.origin + ' ' + browserState() + ' ' + salt)) + '.' + salt;
  reply(expected === words[1] ? 'unchanged' : 'changed');
});
`;

/**
 * Handles `GET {base}/oidc/check-session`.
 *
 * @example
 * { path: '/oidc/check-session', kind: 'html', cors: false, methods: { GET: checkSession } }
 */
export async function checkSession(ctx: RequestContext): Promise<Response> {
  const view = clientView(ctx);
  // JSON in a data block: `<` escaped so no value can close the element.
  const data = JSON.stringify(view).replace(/</g, '\\u003c');
  const page = htmlPage({
    title: 'Session check',
    body: html`<script type="application/json" id="clients" data-cookie="${cookieName(ctx, BROWSER_STATE_COOKIE)}">${new SafeHtml(data)}</script>`,
    script: SCRIPT,
  });
  // Framed by the registered clients' origins only (not DENY as the other pages).
  const ancestors = [...new Set(Object.values(view).flatMap((c) => c.origins))];
  page.headers.delete('X-Frame-Options');
  const csp = page.headers.get('Content-Security-Policy') ?? '';
  page.headers.set('Content-Security-Policy', csp.replace("frame-ancestors 'none'", `frame-ancestors ${ancestors.length > 0 ? ancestors.join(' ') : "'none'"}`));
  return page;
}
