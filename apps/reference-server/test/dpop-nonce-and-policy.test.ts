// DPoP server nonces (RFC 9449 8, 9) and the settings that require DPoP, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NONCE_PERIOD_SECONDS } from '../src/crypto/rotating-nonces';
import { dpopKey, type DpopKey } from './support/dpop';
import { type DpopServer, json, spaExchange, startDpopServer, webExchange } from './support/dpop-server';

let key: DpopKey;
const CC = { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' };

beforeAll(async () => {
  key = await dpopKey();
});

describe('server nonces (dpop_nonce)', () => {
  let s: DpopServer;
  beforeAll(async () => {
    s = await startDpopServer((config) => {
      const demo = config.tenants[0];
      if (demo) demo.dpop_nonce = true;
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  /** Asks with a nonce-less proof and answers the nonce the server hands out. */
  async function nonceOf(): Promise<string> {
    const res = await s.token('/oauth/token', CC, { dpop: await s.proof(key, '/oauth/token') });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe('use_dpop_nonce');
    const nonce = res.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    return nonce ?? '';
  }

  it('demands a nonce at the token endpoint (400 use_dpop_nonce with DPoP-Nonce), then accepts the retry', async () => {
    const nonce = await nonceOf();
    const retry = await s.token('/oauth/token', CC, { dpop: await s.proof(key, '/oauth/token', { nonce }) });
    expect(retry.status).toBe(200);
    expect((await json(retry)).token_type).toBe('DPoP');
    // The client has the current nonce: none is sent again.
    expect(retry.headers.get('dpop-nonce')).toBeNull();
  });

  it('refuses a made-up nonce', async () => {
    const res = await s.token('/oauth/token', CC, { dpop: await s.proof(key, '/oauth/token', { nonce: 'made-up-by-the-client' }) });
    expect((await json(res)).error).toBe('use_dpop_nonce');
  });

  it('rotates: the previous nonce is still accepted (with the new one sent on success), an older one is refused', async () => {
    const nonce = await nonceOf();
    s.clock.advance(NONCE_PERIOD_SECONDS);
    const previous = await s.token('/oauth/token', CC, { dpop: await s.proof(key, '/oauth/token', { nonce }) });
    expect(previous.status).toBe(200);
    const rotated = previous.headers.get('dpop-nonce');
    expect(rotated).not.toBeNull();
    expect(rotated).not.toBe(nonce);

    s.clock.advance(NONCE_PERIOD_SECONDS);
    const stale = await s.token('/oauth/token', CC, { dpop: await s.proof(key, '/oauth/token', { nonce }) });
    expect(stale.status).toBe(400);
    expect((await json(stale)).error).toBe('use_dpop_nonce');
    expect(stale.headers.get('dpop-nonce')).not.toBe(nonce);
  });

  it('demands a nonce at userinfo (401 with a DPoP use_dpop_nonce challenge and DPoP-Nonce)', async () => {
    const nonce = await nonceOf();
    const code = await s.webCode();
    const issued = await s.token('/oidc/token', webExchange(code), { dpop: await s.proof(key, '/oidc/token', { nonce }) });
    const token = String((await json(issued)).access_token);
    const without = await s.userinfo({ authorization: `DPoP ${token}`, dpop: await s.proof(key, '/oidc/userinfo', { htm: 'GET', accessToken: token }) });
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toMatch(/^DPoP realm="demo", error="use_dpop_nonce"/);
    const fresh = without.headers.get('dpop-nonce') ?? '';
    expect(fresh).toBe(nonce);
    const ok = await s.userinfo({ authorization: `DPoP ${token}`, dpop: await s.proof(key, '/oidc/userinfo', { htm: 'GET', accessToken: token, nonce: fresh }) });
    expect(ok.status).toBe(200);
  });

  it('Bearer requests without a proof are unchanged in a tenant with nonces', async () => {
    const res = await s.token('/oauth/token', CC);
    expect(res.status).toBe(200);
    expect((await json(res)).token_type).toBe('bearer');
    expect(res.headers.get('dpop-nonce')).toBeNull();
  });

  it('browsers may send DPoP and read DPoP-Nonce cross-origin (CORS)', async () => {
    const preflight = await fetch(`${s.listening.origin}/demo/oauth/token`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'dpop' },
    });
    expect(preflight.headers.get('access-control-allow-headers')).toContain('DPoP');
    const res = await s.token('/oauth/token', CC, { origin: 'http://127.0.0.1:5173', dpop: await s.proof(key, '/oauth/token') });
    expect(res.headers.get('access-control-expose-headers')).toContain('DPoP-Nonce');
  });
});

describe('require_dpop', () => {
  let s: DpopServer;
  beforeAll(async () => {
    s = await startDpopServer((config) => {
      const spa = config.tenants[0]?.clients?.find((c) => c.client_id === 'spa');
      if (spa) spa.require_dpop = true;
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a client with require_dpop is refused without a proof (invalid_dpop_proof) and served with one; other clients are not', async () => {
    const { code, verifier } = await s.spaCode();
    const without = await s.token('/oidc/token', spaExchange(code, verifier));
    expect(without.status).toBe(400);
    expect(await json(without)).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('must send a DPoP proof') });
    const withProof = await s.token('/oidc/token', spaExchange(code, verifier), { dpop: await s.proof(key, '/oidc/token') });
    expect(withProof.status).toBe(200);
    expect((await json(withProof)).token_type).toBe('DPoP');

    const web = await s.token('/oidc/token', webExchange(await s.webCode()));
    expect(web.status).toBe(200);
    expect((await json(web)).token_type).toBe('Bearer');
  });

  it('a tenant with require_dpop refuses every client without a proof, client credentials included', async () => {
    const strict = await startDpopServer((config) => {
      const demo = config.tenants[0];
      if (demo) demo.require_dpop = true;
    });
    try {
      expect((await json(await strict.token('/oauth/token', CC))).error).toBe('invalid_dpop_proof');
      expect((await json(await strict.token('/oidc/token', webExchange(await strict.webCode())))).error).toBe('invalid_dpop_proof');
      const res = await strict.token('/oauth/token', CC, { dpop: await strict.proof(key, '/oauth/token') });
      expect(res.status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('the config refuses a non-boolean require_dpop or dpop_nonce', async () => {
    await expect(startDpopServer((config) => Object.assign(config.tenants[0] ?? {}, { dpop_nonce: 'yes' }))).rejects.toThrow(/dpop_nonce: must be true or false/);
    await expect(
      startDpopServer((config) => Object.assign(config.tenants[0]?.clients?.[0] ?? {}, { require_dpop: 1 })),
    ).rejects.toThrow(/require_dpop: must be true or false/);
  });
});

