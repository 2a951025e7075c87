/**
 * The par part against the reference server over real HTTP (a child process on 127.0.0.1),
 * with pushed authorization requests required for the public client `spa`: the client pushes
 * from the page's origin (CORS as in a browser), the browser goes to the authorize endpoint with
 * `client_id` and `request_uri` only, and the login completes through the real login page, in a
 * redirect and in a popup. Without the part the provider refuses the login; a `request_uri`
 * works once, and a parameter added to the short URL on the way is refused. The server's request journal shows what was pushed (values of secret-bearing
 * parameters redacted) and what the authorize endpoint received.
 */
import { demoConfig } from '@oidc-rp/reference-server';
import { startServerProcess, type ServerProcess } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBrowserClient, discovery, memoryStorage, par, popupLogin, type BrowserClientOptions } from '../src/index';
import { PAGE, REDIRECT_URI } from './harness';

let server: ServerProcess;
let issuer: string;
beforeAll(async () => {
  const config = demoConfig();
  const spa = config.tenants[0]!.clients!.find((client) => client.client_id === 'spa')!;
  spa.require_pushed_authorization_requests = true;
  server = await startServerProcess(config);
  issuer = `${server.origin}/demo`;
});
afterAll(() => server?.stop());

/** One page of the app at PAGE: the client, where it navigated, and its address bar. */
function page(options: Partial<BrowserClientOptions> = {}) {
  const tab = { url: PAGE, redirects: [] as string[] };
  const client = createBrowserClient({
    provider: discovery(issuer),
    clientId: 'spa',
    redirectUri: REDIRECT_URI,
    transactionStorage: memoryStorage(),
    navigate: {
      currentUrl: () => tab.url,
      redirect: (url) => void tab.redirects.push(url),
      replaceUrl: (url) => {
        tab.url = url;
      },
    },
    ...options,
  });
  return Object.assign(tab, { client });
}

async function signIn(authorizeUrl: string): Promise<string> {
  const result = await server.login(authorizeUrl);
  if (result.type !== 'redirect') throw new Error(`unexpected ${result.type} response`);
  return result.location;
}

const journal = async (after: number, endpoint: string) =>
  (await server.control.requests.list({ path: endpoint })).filter((entry) => entry.seq > after && entry.method !== 'OPTIONS');
const lastSeq = async () => (await server.control.requests.list()).at(-1)?.seq ?? 0;

describe('the par part against the reference server (PAR required for the client)', () => {
  it('pushes the whole request from the page, sends the browser with client_id and request_uri only, and logs in', async () => {
    const app = page({ par: par() });
    const before = await lastSeq();
    await app.client.login({ loginHint: 'alice' });

    const authorize = new URL(app.redirects[0]!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${issuer}/oidc/authorize`);
    expect([...authorize.searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    expect(authorize.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);

    const [push, ...more] = await journal(before, '/oauth/par');
    expect(more).toEqual([]);
    expect(push).toMatchObject({ method: 'POST', client_id: 'spa', status: 201 });
    expect(push!.params).toMatchObject({
      client_id: 'spa',
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email offline_access',
      code_challenge_method: 'S256',
      login_hint: 'alice',
      // Sent, their values never journalled.
      state: '[redacted]',
      nonce: '[redacted]',
      code_challenge: '[redacted]',
    });
    expect(push!.params).not.toHaveProperty('prompt'); // the service asks for consent only when not yet given

    app.url = await signIn(authorize.href);
    const authorized = await journal(before, '/oidc/authorize');
    expect(Object.keys(authorized[0]!.params)).toEqual(['client_id', 'request_uri']);
    await app.client.init();
    expect(app.client.getSnapshot()).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
    expect(await app.client.getAccessToken({ forceRefresh: true })).toEqual(expect.any(String));

    // The request_uri worked once: the same authorize URL again (Back button) is refused; a new login() pushes anew.
    await expect(signIn(authorize.href)).rejects.toThrow(/answered 400/);
    await app.client.login();
    expect(app.redirects[1]).not.toBe(app.redirects[0]);
    expect(new URL(app.redirects[1]!).searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
  });

  it('a parameter added to the short URL on the way (a redirect_uri of the attacker) is refused: nothing is redirected', async () => {
    const app = page({ par: par() });
    await app.client.login();
    const tampered = new URL(app.redirects[0]!);
    tampered.searchParams.set('redirect_uri', 'http://evil.test/callback');
    const before = await lastSeq();
    await expect(signIn(tampered.href)).rejects.toThrow(/answered 400/);
    expect((await journal(before, '/oidc/authorize')).map((entry) => entry.status)).toEqual([400]);
  });

  it('pushes a popup login too: the popup is sent to the short URL', async () => {
    const popup = { location: { href: '' }, closed: false, close: vi.fn() };
    const navigate = { currentUrl: () => PAGE, redirect: () => undefined, replaceUrl: () => undefined, openPopup: () => popup as unknown as Window };
    const app = page({ par: par(), popupLogin, navigate });
    const finished = app.client.login({ popup: true });
    await vi.waitFor(() => expect(popup.location.href).toContain('/oidc/authorize'), { timeout: 10_000 });
    expect([...new URL(popup.location.href).searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    const callbackUrl = await signIn(popup.location.href);
    // The app loaded in the popup hands the callback to its opener.
    const relayed = { data: { type: 'oidc-rp:callback', url: callbackUrl }, origin: location.origin, source: popup as unknown as Window };
    window.dispatchEvent(new MessageEvent('message', relayed));
    await finished;
    expect(app.client.getSnapshot()).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
  });

  it('without the part, the provider refuses the login of this client (authorization_error invalid_request)', async () => {
    const app = page();
    await app.client.login();
    const authorize = new URL(app.redirects[0]!);
    expect(authorize.searchParams.has('code_challenge')).toBe(true); // a plain front-channel request
    app.url = await signIn(authorize.href);
    await expect(app.client.handleRedirectCallback()).rejects.toMatchObject({ code: 'authorization_error', error: 'invalid_request' });
    expect(app.client.getSnapshot().status).not.toBe('authenticated');
  });
});
