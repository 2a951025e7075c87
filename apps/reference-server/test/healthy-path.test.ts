// Requests of clients without faults never enter faults/: every hook there is wrapped to count
// its calls, a whole healthy session must make none, and a faulty client must make some.
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as idTokenFaults from '../src/faults/id-token';
import * as responseFaults from '../src/faults/responses';
import { basic, demoTenant, exchangeWebCode, login, pkce, setup, SPA_REDIRECT, spaParams, WEB_REDIRECT, webCode, webParams } from './helpers';

async function spyAll<T extends object>(importOriginal: () => Promise<T>): Promise<T> {
  const actual = await importOriginal();
  return Object.fromEntries(Object.entries(actual).map(([name, value]) => [name, typeof value === 'function' ? vi.fn(value) : value])) as T;
}
vi.mock('../src/faults/id-token', spyAll);
vi.mock('../src/faults/responses', spyAll);

function faultCalls(): number {
  let calls = 0;
  for (const hook of [...Object.values(idTokenFaults), ...Object.values(responseFaults)]) {
    if (typeof hook !== 'function') continue;
    if (!vi.isMockFunction(hook)) throw new Error(`${hook.name} is not spied on`);
    calls += hook.mock.calls.length;
  }
  return calls;
}

afterEach(() => vi.clearAllMocks());

describe('the healthy path', () => {
  it('does not call into faults/ for discovery, login, code exchange, userinfo, refresh, implicit and client credentials', async () => {
    const h = await setup();
    expect((await h.get('/.well-known/openid-configuration')).status).toBe(200);
    expect((await h.get('/oidc/jwks')).status).toBe(200);

    const tokens = (await (await exchangeWebCode(h, await webCode(h))).json()) as Record<string, string>;
    expect(tokens.id_token).toBeTypeOf('string');
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${tokens.access_token}` })).status).toBe(200);
    const refreshed = await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(refreshed.status).toBe(200);

    const { challenge } = pkce();
    const implicit = await login(h, spaParams(challenge, { response_type: 'id_token token', nonce: 'n-1', code_challenge: undefined, code_challenge_method: undefined }));
    expect(implicit.params.get('id_token')).toBeTruthy();
    expect(implicit.location.href.startsWith(SPA_REDIRECT)).toBe(true);

    const service = await h.post('/oauth/token', { grant_type: 'client_credentials' }, { authorization: basic('service', 'service-secret') });
    expect(service.status).toBe(200);

    expect(faultCalls()).toBe(0);
  });

  it('does call into faults/ for a client configured with a fault (the spies see it)', async () => {
    const h = await setup((config) => {
      demoTenant(config).clients?.push({
        client_id: 'broken', client_secret: 'secret', redirect_uris: [WEB_REDIRECT], scopes: ['openid', 'profile'], skip_consent: true, fault: 'redirect_wrong_state',
      });
    });
    const { params } = await login(h, webParams({ client_id: 'broken', scope: 'openid' }));
    expect(params.get('state')).not.toBe('st-1');
    expect(vi.mocked(responseFaults.faultyRedirectParams)).toHaveBeenCalledTimes(1);
  });
});
