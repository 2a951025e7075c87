// @vitest-environment node
/**
 * The dpop part against the reference server over real HTTP, with DPoP required for the client
 * and server nonces on: logins bound by `dpop_jkt`, proofs at the code exchange and refresh,
 * `Authorization: DPoP` from authorizedFetch and getUserInfo (the server refuses a bound token
 * as Bearer, so a pass proves the scheme), and the edge cases: a key that cannot be loaded, a
 * Bearer answer to a DPoP request, logout deleting the key. Without IndexedDB (Node here) each
 * client keeps its key in memory: a second client over the same token storage
 * is a page reloaded after the key was lost. Node's fetch rather than the DOM environment's,
 * whose `Response.clone()` cannot be read next to the original (the nonce check reads a clone).
 * Real IndexedDB, CORS and tabs: test/chromium/dpop.test.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoConfig } from '@oidc-rp/reference-server';
import { startServerProcess, type ServerProcess } from '@oidc-rp/reference-server/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizedFetch,
  createBrowserClient,
  discovery,
  dpop,
  getUserInfo,
  implicitFlow,
  memoryStorage,
  type StorageAdapter,
} from '../src/index';
import { PAGE, REDIRECT_URI } from './harness';

let server: ServerProcess;
let issuer: string;
beforeAll(async () => {
  const config = demoConfig();
  const tenant = config.tenants[0]!;
  tenant.dpop_nonce = true;
  const spa = tenant.clients!.find((client) => client.client_id === 'spa')!;
  spa.require_dpop = true;
  server = await startServerProcess(config);
  issuer = `${server.origin}/demo`;
});
afterAll(() => server?.stop());
afterEach(() => server.control.faults.clear());

/** One page of the app: a client with the dpop part over `tokens`, and where it navigated. */
function page(tokens: StorageAdapter, extra: { fetchLog?: Request[] } = {}) {
  const redirects: string[] = [];
  const state = { url: PAGE };
  const client = createBrowserClient({
    provider: discovery(issuer),
    clientId: 'spa',
    redirectUri: REDIRECT_URI,
    postLogoutRedirectUri: PAGE,
    dpop: dpop(),
    tokenStorage: tokens,
    transactionStorage: memoryStorage(),
    http: extra.fetchLog ? { fetch: recording(extra.fetchLog) } : undefined,
    navigate: {
      currentUrl: () => state.url,
      replaceUrl: (url) => {
        state.url = url;
      },
      redirect: (url) => void redirects.push(url),
      openPopup: () => null,
    },
  });
  return { client, redirects, state };
}

function recording(log: Request[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    log.push(request.clone());
    return fetch(request);
  };
}

/** Logs `app` in through the real login page; returns the authorize URL it went to. */
async function logIn(app: ReturnType<typeof page>): Promise<URL> {
  await app.client.login();
  const authorize = new URL(app.redirects.at(-1)!);
  const result = await server.login(authorize.href, { consent: 'allow' });
  if (result.type !== 'redirect') throw new Error(`unexpected ${result.type}`);
  app.state.url = result.location;
  await app.client.init();
  return authorize;
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;

async function bearerStatus(token: string): Promise<number> {
  const response = await fetch(`${issuer}/oidc/userinfo`, { headers: { Authorization: `Bearer ${token}` } });
  await response.text();
  return response.status;
}

describe('the dpop part against the reference server (DPoP required, nonces on)', () => {
  it('binds the login to the key (dpop_jkt), gets DPoP-bound tokens, and calls userinfo and the API with DPoP only', async () => {
    const log: Request[] = [];
    const app = page(memoryStorage(), { fetchLog: log });
    const authorize = await logIn(app);
    expect(app.client.getSnapshot().status).toBe('authenticated');
    const key = await app.client.dpop!.handle();
    expect(authorize.searchParams.get('dpop_jkt')).toBe(key.jkt);
    expect(key.keyPair.privateKey.extractable).toBe(false);

    // The code exchange carried a proof (after one nonce retry) by this key, never without one.
    const exchanges = log.filter((r) => r.url.endsWith('/token'));
    expect(exchanges.length).toBe(2);
    for (const request of exchanges) {
      const proof = request.headers.get('dpop')!;
      expect(headerOf(proof)).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk });
      expect(claimsOf(proof)).toMatchObject({ htm: 'POST', htu: exchanges[0]!.url });
    }
    expect(claimsOf(exchanges[0]!.headers.get('dpop')!).nonce).toBeUndefined();
    expect(claimsOf(exchanges[1]!.headers.get('dpop')!).nonce).toEqual(expect.any(String));

    // The token is bound: as Bearer the provider refuses it; the client's helpers send DPoP.
    const token = await app.client.getAccessToken();
    expect(await bearerStatus(token)).toBe(401);
    expect(await getUserInfo(app.client)).toMatchObject({ sub: 'alice' });
    const sent: Request[] = [];
    const api = authorizedFetch(app.client, { fetch: recording(sent) });
    const response = await api(`${issuer}/oidc/userinfo`, { headers: { 'x-app': '1' } });
    expect(response.status).toBe(200);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) {
      expect(request.headers.get('authorization')).toBe(`DPoP ${token}`);
      expect(request.headers.get('x-app')).toBe('1');
      expect(claimsOf(request.headers.get('dpop')!).ath).toEqual(expect.any(String));
    }
  });

  it('refreshes with a proof by the same key, and the new token stays bound', async () => {
    const log: Request[] = [];
    const app = page(memoryStorage(), { fetchLog: log });
    await logIn(app);
    const jkt = (await app.client.dpop!.handle()).jkt;
    const first = await app.client.getAccessToken();
    log.length = 0;
    const second = await app.client.getAccessToken({ forceRefresh: true });
    expect(second).not.toBe(first);
    const refreshes = log.filter((r) => r.url.endsWith('/token'));
    expect(refreshes.length).toBeGreaterThan(0);
    for (const request of refreshes) expect(headerOf(request.headers.get('dpop')!).jwk).toEqual((await app.client.dpop!.handle()).publicJwk);
    expect((await app.client.dpop!.handle()).jkt).toBe(jkt);
    expect(await bearerStatus(second)).toBe(401);
    expect((await authorizedFetch(app.client)(`${issuer}/oidc/userinfo`)).status).toBe(200);
  });

  it('retries exactly once when the resource demands a new nonce', async () => {
    const app = page(memoryStorage());
    await logIn(app);
    await server.control.dpop.expireNonce();
    const sent: Request[] = [];
    const response = await authorizedFetch(app.client, { fetch: recording(sent) })(`${issuer}/oidc/userinfo`);
    expect(response.status).toBe(200);
    // The stale nonce was refused once (401 use_dpop_nonce), the retry carried the new one; no third request.
    expect(sent).toHaveLength(2);
    const [stale, fresh] = sent.map((r) => claimsOf(r.headers.get('dpop')!).nonce);
    expect(stale).toEqual(expect.any(String));
    expect(fresh).toEqual(expect.any(String));
    expect(fresh).not.toBe(stale);
  });

  it('sends a request body again with the nonce retry (client.dpop.request reads it once)', async () => {
    const app = page(memoryStorage());
    await logIn(app);
    const seen: Array<{ method: string; body: string; authorization: string | undefined; nonce: unknown }> = [];
    // The app's own API: the first answer is a nonce challenge, the second echoes the body.
    const api = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        seen.push({ method: request.method!, body, authorization: request.headers.authorization, nonce: claimsOf(String(request.headers.dpop)).nonce });
        if (seen.length === 1) response.writeHead(401, { 'WWW-Authenticate': 'DPoP error="use_dpop_nonce"', 'DPoP-Nonce': 'api-nonce-1' }).end();
        else response.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}/orders`;
      const token = await app.client.getAccessToken();
      const response = await app.client.dpop!.request(token, url, { method: 'POST', body: '{"item":1}', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('{"item":1}');
      expect(seen).toEqual([
        { method: 'POST', body: '{"item":1}', authorization: `DPoP ${token}`, nonce: undefined },
        { method: 'POST', body: '{"item":1}', authorization: `DPoP ${token}`, nonce: 'api-nonce-1' },
      ]);
    } finally {
      await new Promise((resolve) => api.close(resolve));
    }
  });

  it('refuses a Bearer answer to a DPoP request (a downgrade): no session is kept', async () => {
    const tokens = memoryStorage();
    const app = page(tokens);
    await server.control.faults.set('spa', 'token_response_token_type_bearer', { times: 1 });
    await logIn(app);
    expect(app.client.getSnapshot()).toMatchObject({ status: 'error', error: { code: 'dpop_token_type_mismatch' } });
    expect(await tokens.keys()).toEqual([]);
  });

  it('ends a stored session whose key is gone (dpop_key_unavailable), and a new login makes a new key', async () => {
    const tokens = memoryStorage();
    const before = page(tokens);
    await logIn(before);
    const oldJkt = (await before.client.dpop!.handle()).jkt;
    expect(await tokens.keys()).toHaveLength(1);

    // The reloaded page finds the session but not the key it is bound to.
    const reloaded = page(tokens);
    const snapshot = await reloaded.client.init();
    expect(snapshot).toMatchObject({ error: { code: 'dpop_key_unavailable' } });
    expect(snapshot.status).not.toBe('authenticated');
    expect(await tokens.keys()).toEqual([]);
    await expect(reloaded.client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });

    const again = page(tokens);
    await logIn(again);
    expect(again.client.getSnapshot().status).toBe('authenticated');
    expect((await again.client.dpop!.handle()).jkt).not.toBe(oldJkt);
  });

  it('deletes the key at logout; the next login has a new one', async () => {
    const app = page(memoryStorage());
    await logIn(app);
    const first = (await app.client.dpop!.handle()).jkt;
    await app.client.logout({ redirect: false });
    await expect(app.client.dpop!.handle()).rejects.toMatchObject({ code: 'dpop_key_unavailable' });
    await logIn(app);
    expect((await app.client.dpop!.handle()).jkt).not.toBe(first);
  });

  it('makes proofs for the app’s own requests: htm, htu without query, ath of the token, a fresh jti each', async () => {
    const app = page(memoryStorage());
    await logIn(app);
    const token = await app.client.getAccessToken();
    const one = claimsOf(await app.client.dpop!.proof({ htm: 'GET', htu: 'https://api.example.com/orders?page=2', accessToken: token }));
    const two = claimsOf(await app.client.dpop!.proof({ htm: 'GET', htu: 'https://api.example.com/orders' }));
    expect(one).toMatchObject({ htm: 'GET', htu: 'https://api.example.com/orders', ath: expect.any(String) });
    expect(two.ath).toBeUndefined();
    expect(one.jti).not.toBe(two.jti);
  });

  it('refuses dpop with the implicit flow (no token request to bind)', () => {
    expect(() =>
      createBrowserClient({ provider: discovery(issuer), clientId: 'spa', redirectUri: REDIRECT_URI, dpop: dpop(), implicitFlow }),
    ).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
