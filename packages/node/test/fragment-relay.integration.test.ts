// Responses in the URL fragment for a server-side app (the OpenID Hybrid RP plan pins the
// fragment with client_secret_basic): the session layer's callback answers a GET without a
// query with the relay page, whose POST of the fragment is checked like a form_post and must
// be same-origin. Over real HTTP: the app on node:http, the reference server on port 0, the
// login through its real form; the POST is what the relay page's script sends.
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeClient, type ResponseType, createNodeClient, serviceProvider } from '../src/index';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;
let client: NodeClient;
beforeAll(async () => {
  world = await startSessionWorld();
  // As the Hybrid plan pins it: the secret in HTTP Basic (beside PKCE for the code).
  client = createNodeClient({
    provider: serviceProvider(world.issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    authMethod: 'client_secret_basic',
    redirectUri: `${world.appOrigin}/auth/callback`,
    scope: 'openid profile email',
    cookieSecret: 'test-tx-oFp2bAbXNweB5DkDlIp8K5Ci-dGM7BII',
  });
  // The web client may also use the implicit `id_token token` (a confidential client here).
  await world.control.clients.update('web', {
    grant_types: ['authorization_code', 'refresh_token', 'implicit'],
    response_types: ['code', 'code id_token', 'code token', 'code token id_token', 'id_token token', 'id_token'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
});
afterAll(() => world.close());

// What Chromium sends for the relay page's POST: the page is no-referrer, so its Origin is "null".
const SAME_ORIGIN = (_origin: string): Record<string, string> => ({ origin: 'null', 'sec-fetch-site': 'same-origin' });

/** Starts a login of `responseType` in the fragment and signs in: the fragment the provider sent and the agent. */
async function fragmentLogin(responseType: ResponseType): Promise<{ agent: Agent; fragment: URLSearchParams }> {
  world.use({ client, loginOptions: { responseType, responseMode: 'fragment' } });
  const agent = new Agent(world.appOrigin);
  const login = await agent.request('/auth/login');
  expect(login.status).toBe(302);
  const authorize = new URL(login.headers.get('location') as string);
  expect(authorize.searchParams.get('response_type')).toBe(responseType);
  const result = await completeLogin(authorize.href, { username: 'alice', password: 'wonderland' });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const back = new URL(result.location);
  expect(back.search).toBe('');
  expect(`${back.origin}${back.pathname}`).toBe(`${world.appOrigin}/auth/callback`);
  return { agent, fragment: new URLSearchParams(back.hash.slice(1)) };
}

/** What the relay page's script does: GET the callback (a browser never sends the fragment), then POST the fragment as form fields. */
async function relay(agent: Agent, fragment: URLSearchParams, headers = SAME_ORIGIN(world.appOrigin)): Promise<Response> {
  const page = await agent.request('/auth/callback');
  expect(page.status).toBe(200);
  return agent.request('/auth/callback', {
    method: 'POST',
    body: fragment.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

describe('the relay page', () => {
  it('is a strict page: script allowed by hash only, no inline handler, no-store, no-referrer, never framed', async () => {
    world.use();
    const page = await new Agent(world.appOrigin).request('/auth/callback');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/);
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/auth/callback">');
    expect(html).toContain('history.replaceState');
    expect(html).not.toMatch(/\son[a-z]+=/i);
    // The script's hash is the one the policy allows.
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const digest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script))).toString('base64');
    expect(csp).toContain(`'sha256-${digest}'`);
  });

  it('is not served for a callback with a query: that one is a response (here an unknown one)', async () => {
    world.use();
    const response = await new Agent(world.appOrigin).request('/auth/callback?code=x&state=y');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('transaction_not_found');
  });
});

describe.each<ResponseType>(['code id_token', 'code token', 'code token id_token', 'id_token token', 'id_token'])(
  'response type %s in the fragment, confidential client with client_secret_basic',
  (responseType) => {
    it('signs in through the relay page', async () => {
      const exchanges = world.count('POST', '/oidc/token');
      const { agent, fragment } = await fragmentLogin(responseType);
      const callback = await relay(agent, fragment);
      expect(callback.status).toBe(303);
      expect(callback.headers.get('location')).toBe('/');
      const { status, body } = await agent.json<{ user: { sub: string } }>('/me');
      expect(status).toBe(200);
      expect(body.user.sub).toBe('alice');
      // A code is redeemed (with HTTP Basic); the implicit types need no token request.
      expect(world.count('POST', '/oidc/token') - exchanges).toBe(responseType.includes('code') ? 1 : 0);
    });

    it('refuses a cross-site POST of the fragment before any token request', async () => {
      const exchanges = world.count('POST', '/oidc/token');
      const { agent, fragment } = await fragmentLogin(responseType);
      const forged = await relay(agent, fragment, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' });
      expect(forged.status).toBe(400);
      expect(await forged.text()).toContain('authorization_response_invalid');
      expect(forged.headers.getSetCookie().some((c) => c.startsWith('oidc-rp.session='))).toBe(false);
      expect(world.count('POST', '/oidc/token')).toBe(exchanges);
    });
  },
);

describe('refusals of a relayed fragment, each with its code and no token request', () => {
  it.each<[string, ResponseType, Parameters<SessionWorld['control']['faults']['set']>[1], string]>([
    ['a wrong at_hash', 'code token id_token', 'id_token_bad_at_hash', 'id_token_at_hash_mismatch'],
    ['a wrong at_hash (implicit)', 'id_token token', 'id_token_bad_at_hash', 'id_token_at_hash_mismatch'],
    ['a wrong c_hash', 'code id_token', 'id_token_bad_c_hash', 'id_token_c_hash_mismatch'],
    ['no c_hash', 'code token id_token', 'id_token_missing_c_hash', 'id_token_c_hash_missing'],
    ['another state', 'code token', 'redirect_wrong_state', 'transaction_not_found'],
    ['no state', 'id_token', 'redirect_missing_state', 'state_missing'],
    ['another issuer in the response', 'code token', 'redirect_wrong_iss', 'iss_mismatch'],
    ['a bad signature', 'id_token', 'id_token_bad_signature', 'id_token_signature_invalid'],
  ])('%s (%s) → %s', async (_name, responseType, fault, code) => {
    await world.control.faults.set('web', fault, { times: 1 });
    try {
      const exchanges = world.count('POST', '/oidc/token');
      const { agent, fragment } = await fragmentLogin(responseType);
      const refused = await relay(agent, fragment);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain(code);
      expect(world.count('POST', '/oidc/token')).toBe(exchanges);
      expect((await agent.json('/me')).status).toBe(401);
    } finally {
      await world.control.faults.clear('web');
    }
  });

  it('a relayed fragment whose state matches another pending login of this browser is refused (state_mismatch is per login)', async () => {
    const first = await fragmentLogin('code id_token');
    const second = await fragmentLogin('code id_token');
    // The second login's response carried into the first browser, which never started it.
    const refused = await relay(first.agent, second.fragment);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('transaction_not_found');
  });

  it.each<[string, Record<string, string>]>([
    ['without Origin or Sec-Fetch-Site (no browser relay page sent it)', {}],
    ['from a sibling origin of the same site (Sec-Fetch-Site: same-site)', { origin: 'null', 'sec-fetch-site': 'same-site' }],
    ['with Origin "null" and no Sec-Fetch-Site (a sandboxed or opaque sender)', { origin: 'null' }],
    ['with another Origin beside Sec-Fetch-Site: same-origin', { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-origin' }],
  ])('a POST of the fragment %s is refused', async (_name, headers) => {
    const exchanges = world.count('POST', '/oidc/token');
    const { agent, fragment } = await fragmentLogin('code id_token');
    const refused = await relay(agent, fragment, headers);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('authorization_response_invalid');
    expect(world.count('POST', '/oidc/token')).toBe(exchanges);
  });

  it('a browser without Sec-Fetch-Site: the POST is taken when its Origin is the app\u2019s', async () => {
    const { agent, fragment } = await fragmentLogin('code id_token');
    expect((await relay(agent, fragment, { origin: world.appOrigin })).status).toBe(303);
  });

  it('an error the provider delivers in the fragment is relayed and shown (access_denied by prompt=none)', async () => {
    world.use({ client, loginOptions: { responseType: 'code id_token', responseMode: 'fragment', prompt: 'none' } });
    const agent = new Agent(world.appOrigin);
    const login = await agent.request('/auth/login');
    const denied = await fetch(login.headers.get('location') as string, { redirect: 'manual' });
    const back = new URL(denied.headers.get('location') as string);
    expect(back.search).toBe('');
    const page = await relay(agent, new URLSearchParams(back.hash.slice(1)));
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('authorization_error: login_required');
  });
});
