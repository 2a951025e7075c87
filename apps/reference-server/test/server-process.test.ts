// startServerProcess from the built testing entry: the server in a child process, driven over IPC.
import { ControlError } from '@oidc-rp/reference-server';
import { startServerProcess, type ServerProcess } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfig } from '../src/config/demo';

let provider: ServerProcess;
const config = demoConfig();
config.tenants[0]!.lifetimes = { ...config.tenants[0]!.lifetimes, access_token: 60 };

beforeAll(async () => {
  provider = await startServerProcess(config);
});
afterAll(() => provider.stop());

async function spaAuthorizeUrl(): Promise<string> {
  const verifier = 'v'.repeat(43);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const challenge = Buffer.from(digest).toString('base64url');
  const url = new URL(`${provider.origin}/demo/oidc/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code', client_id: 'spa', redirect_uri: 'http://127.0.0.1:5173/callback', scope: 'openid',
    state: 's'.repeat(43), nonce: 'n'.repeat(43), code_challenge: challenge, code_challenge_method: 'S256',
  })) url.searchParams.set(name, value);
  return url.href;
}

describe('startServerProcess', () => {
  it('serves the given config on a loopback port', async () => {
    expect(provider.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const discovery = (await (await fetch(`${provider.origin}/demo/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe(`${provider.origin}/demo`);
  });

  it('signs a user in through the real forms and logs the requests', async () => {
    const result = await provider.login(await spaAuthorizeUrl());
    expect(result.type).toBe('redirect');
    const location = new URL((result as { location: string }).location);
    expect(location.searchParams.get('code')).toBeTruthy();
    expect(location.searchParams.get('state')).toBe('s'.repeat(43));
    expect(await provider.requests()).toContain('GET /demo/oidc/authorize');
  });

  it('reports a failed call as an error', async () => {
    await expect(provider.login('http://127.0.0.1:1/nowhere')).rejects.toThrow();
  });

  it('moves the server clock: an access token stops working after its lifetime', async () => {
    const result = await provider.login(await spaAuthorizeUrl());
    const code = new URL((result as { location: string }).location).searchParams.get('code')!;
    const tokens = (await (
      await fetch(`${provider.origin}/demo/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code', client_id: 'spa', code,
          redirect_uri: 'http://127.0.0.1:5173/callback', code_verifier: 'v'.repeat(43),
        }),
      })
    ).json()) as { access_token: string };
    const userinfo = () => fetch(`${provider.origin}/demo/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await userinfo()).status).toBe(200);
    await provider.advanceClock(61_000);
    try {
      const expired = await userinfo();
      expect(expired.status).toBe(401);
      expect(expired.headers.get('www-authenticate')).toMatch(/invalid_token/);
    } finally {
      await provider.resetClock();
    }
  });

  it('controls the server over IPC: a user added at runtime signs in, and the journal shows it', async () => {
    await provider.control.users.add({ username: 'carol', password: 'builder' });
    try {
      const result = await provider.login(await spaAuthorizeUrl(), { username: 'carol', password: 'builder' });
      expect(new URL((result as { location: string }).location).searchParams.get('code')).toBeTruthy();
      const posts = await provider.control.requests.list({ path: '/oidc/login', method: 'POST' });
      expect(posts.at(-1)).toMatchObject({ tenant: 'demo', endpoint: '/oidc/login', status: 302, params: { username: 'carol', password: '[redacted]' } });
    } finally {
      await provider.control.users.remove('carol');
    }
  });

  it('rejects bad control calls over IPC with a ControlError naming the field', async () => {
    const error = await provider.control.faults.set('ghost', 'id_token_expired').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlError);
    expect(error).toMatchObject({ code: 'unknown_client', field: 'client_id', status: 404 });
    await expect(provider.control.users.update('nobody', { password: 'x' })).rejects.toMatchObject({ code: 'unknown_user', field: 'username' });
    await expect(provider.control.clock.advance('soon' as never)).rejects.toMatchObject({ field: 'seconds' });
  });

  it('sets transport faults and the clock over IPC (a Date crosses)', async () => {
    await provider.control.transport.set('/oidc/jwks', { status: 503, retryAfter: 1 }, { times: 1 });
    const outage = await fetch(`${provider.origin}/demo/oidc/jwks`);
    expect(outage.status).toBe(503);
    expect(outage.headers.get('retry-after')).toBe('1');
    expect((await fetch(`${provider.origin}/demo/oidc/jwks`)).status).toBe(200);
    try {
      // The set clock keeps running from that instant: a busy machine may report it a few ms on.
      const { time } = await provider.control.clock.set(new Date(Date.UTC(2035, 0, 1)));
      const drift = Date.parse(time) - Date.UTC(2035, 0, 1);
      expect(drift).toBeGreaterThanOrEqual(0);
      expect(drift).toBeLessThan(5_000);
    } finally {
      await provider.control.clock.reset();
    }
  });
});
