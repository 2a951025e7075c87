// Runtime control of DPoP for tests of client libraries: DPoP required for a client, the server
// nonce rotated or expired, and the faults a client must cope with (a nonce demanded
// mid-session, a proof reported as replayed, a DPoP request answered Bearer). Over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_REQUEST_HEADER } from '../src/control/access';
import { dpopKey, type DpopKey } from './support/dpop';
import { type DpopServer, json, spaExchange, startDpopServer, webExchange } from './support/dpop-server';

let s: DpopServer;
let key: DpopKey;
const CC = { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' };

beforeAll(async () => {
  s = await startDpopServer(
    (config) => {
      const demo = config.tenants[0];
      if (demo) demo.dpop_nonce = true;
    },
    { controlApi: true },
  );
  key = await dpopKey();
});
afterAll(async () => {
  await s?.close();
});

/** A client-credentials request with a proof carrying `nonce`. */
async function cc(nonce?: string): Promise<Response> {
  return s.token('/oauth/token', CC, { dpop: await s.proof(key, '/oauth/token', nonce === undefined ? {} : { nonce }) });
}

async function currentNonce(): Promise<string> {
  const res = await cc();
  expect((await json(res)).error).toBe('use_dpop_nonce');
  return res.headers.get('dpop-nonce') ?? '';
}

function control(path: string): Promise<Response> {
  return fetch(`${s.listening.origin}/_control${path}`, { method: 'POST', headers: { [CONTROL_REQUEST_HEADER]: '1' } });
}

describe('runtime DPoP control', () => {
  it('requires DPoP for a client at runtime (clients.update require_dpop), and lifts it', async () => {
    const { code, verifier } = await s.spaCode();
    await s.server.control.clients.update('spa', { require_dpop: true });
    const refused = await s.token('/oidc/token', spaExchange(code, verifier));
    expect((await json(refused)).error).toBe('invalid_dpop_proof');
    await s.server.control.clients.update('spa', { require_dpop: null });
    expect((await s.token('/oidc/token', spaExchange(code, verifier))).status).toBe(200);
  });

  it('expires the nonce over the HTTP control API: the old one is refused and a new one handed out', async () => {
    const old = await currentNonce();
    expect((await control('/dpop-nonce/expire')).status).toBe(204);
    const refused = await cc(old);
    expect((await json(refused)).error).toBe('use_dpop_nonce');
    const fresh = refused.headers.get('dpop-nonce') ?? '';
    expect(fresh).not.toBe(old);
    expect((await cc(fresh)).status).toBe(200);
  });

  it('rotates the nonce: the old one still passes and the new one comes with the success', async () => {
    const old = await currentNonce();
    await s.server.control.dpop.rotateNonce();
    const res = await cc(old);
    expect(res.status).toBe(200);
    const rotated = res.headers.get('dpop-nonce');
    expect(rotated).not.toBeNull();
    expect(rotated).not.toBe(old);
  });
});

describe('DPoP faults', () => {
  let plain: DpopServer;
  beforeAll(async () => {
    plain = await startDpopServer();
  });
  afterAll(async () => {
    await plain?.close();
  });
  async function plainCc(nonce?: string): Promise<Response> {
    return plain.token('/oauth/token', CC, { dpop: await plain.proof(key, '/oauth/token', nonce === undefined ? {} : { nonce }) });
  }

  it('dpop_nonce_required: a nonce demanded mid-session at the token endpoint and userinfo; the retry with it passes', async () => {
    const tokens = await plain.token('/oidc/token', webExchange(await plain.webCode()), { dpop: await plain.proof(key, '/oidc/token') });
    const token = String((await json(tokens)).access_token);
    expect((await plainCc()).status).toBe(200);

    await plain.server.control.faults.set('service', 'dpop_nonce_required');
    await plain.server.control.faults.set('web', 'dpop_nonce_required');
    const demanded = await plainCc();
    expect(demanded.status).toBe(400);
    expect((await json(demanded)).error).toBe('use_dpop_nonce');
    const nonce = demanded.headers.get('dpop-nonce') ?? '';
    expect(nonce).not.toBe('');
    expect((await plainCc(nonce)).status).toBe(200);

    const info = await plain.userinfo({ authorization: `DPoP ${token}`, dpop: await plain.proof(key, '/oidc/userinfo', { htm: 'GET', accessToken: token }) });
    expect(info.status).toBe(401);
    expect(info.headers.get('www-authenticate')).toMatch(/^DPoP realm="demo", error="use_dpop_nonce"/);
    expect(info.headers.get('dpop-nonce')).toBe(nonce);
    const retried = await plain.userinfo({ authorization: `DPoP ${token}`, dpop: await plain.proof(key, '/oidc/userinfo', { htm: 'GET', accessToken: token, nonce }) });
    expect(retried.status).toBe(200);
    await plain.server.control.faults.clear();
  });

  it('dpop_proof_replayed: the next valid proof is reported as used before, the one after passes', async () => {
    await plain.server.control.faults.set('service', 'dpop_proof_replayed', { times: 1 });
    const refused = await plainCc();
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('used before') });
    expect((await plainCc()).status).toBe(200);
  });

  it('token_response_token_type_bearer: a DPoP request answered Bearer, though the token is bound', async () => {
    await plain.server.control.faults.set('web', 'token_response_token_type_bearer');
    const res = await plain.token('/oidc/token', webExchange(await plain.webCode()), { dpop: await plain.proof(key, '/oidc/token') });
    const body = await json(res);
    expect(body.token_type).toBe('Bearer');
    // The lie is in the answer only: the token is still refused as a bearer token.
    expect((await plain.userinfo({ authorization: `Bearer ${String(body.access_token)}` })).status).toBe(401);
    // A request without DPoP is not bent.
    const bearer = await plain.token('/oidc/token', webExchange(await plain.webCode()));
    expect((await json(bearer)).token_type).toBe('Bearer');
    expect((await plain.server.control.faults.list()).map((f) => f.fault)).toContain('token_response_token_type_bearer');
    await plain.server.control.faults.clear();
  });
});
