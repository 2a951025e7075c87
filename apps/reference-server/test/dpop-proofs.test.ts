// RFC 9449 proof checks at the token endpoints and userinfo, each attack over real HTTP with
// proofs made by jose (test/support/dpop.ts), and guards showing the honest request passes.
import { request as httpRequest } from 'node:http';
import { exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dpopKey, type DpopKey, makeProof, unsignedOrHmacProof } from './support/dpop';
import { type DpopServer, json, startDpopServer, webExchange } from './support/dpop-server';

let s: DpopServer;
let key: DpopKey;
const CC = { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' };

beforeAll(async () => {
  s = await startDpopServer();
  key = await dpopKey();
});
afterAll(async () => {
  await s?.close();
});

/** A client-credentials request at /oauth/token with `proof` in the DPoP header. */
function withProof(proof: string): Promise<Response> {
  return s.token('/oauth/token', CC, { dpop: proof });
}

async function expectRefused(res: Response, description: RegExp): Promise<void> {
  expect(res.status).toBe(400);
  const body = await json(res);
  expect(body.error).toBe('invalid_dpop_proof');
  expect(String(body.error_description)).toMatch(description);
  expect(JSON.stringify(body)).not.toContain('access_token');
}

describe('DPoP proofs at the token endpoints', () => {
  it('a valid proof gets a DPoP token at /oauth/token, and at /oidc/token for a code', async () => {
    const res = await withProof(await s.proof(key, '/oauth/token'));
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ token_type: 'DPoP' });

    const code = await s.webCode();
    const exchanged = await s.token('/oidc/token', webExchange(code), { dpop: await s.proof(key, '/oidc/token') });
    expect(exchanged.status).toBe(200);
    expect(await json(exchanged)).toMatchObject({ token_type: 'DPoP' });
  });

  it('refuses a proof whose typ is not dpop+jwt', async () => {
    await expectRefused(await withProof(await makeProof(key, { htu: `${s.issuer}/oauth/token`, now: s.now(), typ: 'JWT' })), /typ/);
  });

  it('refuses alg none and HMAC', async () => {
    await expectRefused(await withProof(await unsignedOrHmacProof(key, 'none', `${s.issuer}/oauth/token`, s.now())), /signed with one of/);
    await expectRefused(await withProof(await unsignedOrHmacProof(key, 'HS256', `${s.issuer}/oauth/token`, s.now())), /signed with one of/);
  });

  it('refuses a proof carrying the private key in its jwk', async () => {
    const privateJwk = await exportJWK(key.privateKey);
    expect(privateJwk.d).toBeDefined();
    await expectRefused(await withProof(await makeProof(key, { htu: `${s.issuer}/oauth/token`, now: s.now(), jwk: privateJwk })), /private key/);
  });

  it('refuses a proof whose signature is not by its jwk', async () => {
    const other = await dpopKey();
    // Signed by `key`, but the header names `other`'s public key.
    await expectRefused(await withProof(await makeProof(key, { htu: `${s.issuer}/oauth/token`, now: s.now(), jwk: other.publicJwk })), /signature/);
    // A proof altered after signing.
    const good = await s.proof(key, '/oauth/token');
    const [h, p, sig] = good.split('.');
    const payload = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, jti: 'other' })).toString('base64url')}.${sig}`;
    await expectRefused(await withProof(forged), /signature/);
  });

  it('refuses a wrong htm and an htu for another endpoint or origin', async () => {
    await expectRefused(await withProof(await s.proof(key, '/oauth/token', { htm: 'GET' })), /htm/);
    await expectRefused(await withProof(await s.proof(key, '/oidc/token')), /htu/);
    await expectRefused(await withProof(await makeProof(key, { htu: 'http://evil.example/demo/oauth/token', now: s.now() })), /htu/);
    // Query and fragment are ignored (RFC 9449 4.3).
    expect((await withProof(await makeProof(key, { htu: `${s.issuer}/oauth/token?x=1#f`, now: s.now() }))).status).toBe(200);
  });

  it('refuses an iat more than 60 seconds in the past or future (on the server clock)', async () => {
    const htu = `${s.issuer}/oauth/token`;
    await expectRefused(await withProof(await makeProof(key, { htu, iat: s.now() - 61 })), /iat/);
    await expectRefused(await withProof(await makeProof(key, { htu, iat: s.now() + 61 })), /iat/);
    expect((await withProof(await makeProof(key, { htu, iat: s.now() - 59 }))).status).toBe(200);
    expect((await withProof(await makeProof(key, { htu, iat: s.now() + 59 }))).status).toBe(200);
  });

  it('refuses a replayed proof (same jti and key), and spends no jti on a refused proof', async () => {
    const proof = await s.proof(key, '/oauth/token');
    expect((await withProof(proof)).status).toBe(200);
    await expectRefused(await withProof(proof), /used before/);

    // A proof refused for its htm did not spend its jti: a correct proof with that jti still passes.
    const spent = await makeProof(key, { htu: `${s.issuer}/oauth/token`, now: s.now(), jti: 'refused-first', htm: 'GET' });
    await expectRefused(await withProof(spent), /htm/);
    expect((await withProof(await makeProof(key, { htu: `${s.issuer}/oauth/token`, now: s.now(), jti: 'refused-first' }))).status).toBe(200);
  });

  it('refuses a malformed header and a header sent twice', async () => {
    await expectRefused(await withProof('not-a-jwt'), /compact JWS/);
    const a = await s.proof(key, '/oauth/token');
    const b = await s.proof(key, '/oauth/token');
    await expectRefused(await withProof(`${a}, ${b}`), /compact JWS/);
  });

  it('without a proof, token requests are unchanged (Bearer)', async () => {
    const res = await s.token('/oauth/token', CC);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ token_type: 'bearer' });
    const code = await s.webCode();
    const exchanged = await s.token('/oidc/token', webExchange(code));
    expect(await json(exchanged)).toMatchObject({ token_type: 'Bearer' });
  });
});

describe('htu against the configured public origin, never the Host header', () => {
  let behind: DpopServer;
  beforeAll(async () => {
    behind = await startDpopServer((config) => {
      config.public_origin = 'https://login.example.test';
      const demo = config.tenants[0];
      if (demo) demo.demo_login = false;
    });
  });
  afterAll(async () => {
    await behind?.close();
  });

  function post(proof: string, host: string): Promise<{ status: number; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const body = new URLSearchParams(CC).toString();
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: behind.listening.port,
          path: '/demo/oauth/token',
          method: 'POST',
          headers: { host, dpop: proof, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('refuses a proof whose htu follows a forged Host, accepts one for the public origin', async () => {
    const forged = await makeProof(key, { htu: 'http://evil.example/demo/oauth/token', now: behind.now() });
    const refused = await post(forged, 'evil.example');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_dpop_proof');
    expect(String(refused.body.error_description)).toContain('https://login.example.test/demo/oauth/token');

    const honest = await makeProof(key, { htu: 'https://login.example.test/demo/oauth/token', now: behind.now() });
    const accepted = await post(honest, 'evil.example');
    expect(accepted.status).toBe(200);
    expect(accepted.body.token_type).toBe('DPoP');
  });
});

describe('discovery', () => {
  it('announces the proof algorithms, none of them none or HMAC', async () => {
    const doc = await json(await fetch(`${s.listening.origin}/demo/.well-known/openid-configuration`));
    const algs = doc.dpop_signing_alg_values_supported as string[];
    expect(algs).toEqual(expect.arrayContaining(['ES256', 'RS256', 'PS256']));
    expect(algs.some((a) => a === 'none' || a.startsWith('HS'))).toBe(false);
  });
});

describe('opaque access tokens and the standard profile', () => {
  it('an opaque token bound at the token endpoint keeps its binding at userinfo', async () => {
    const res = await s.token('/oidc/token', webExchange(await s.webCode()), { dpop: await s.proof(key, '/oidc/token') });
    const { access_token } = (await json(res)) as Record<string, string>;
    expect(access_token?.split('.')).toHaveLength(1);
    const asBearer = await s.userinfo({ authorization: `Bearer ${access_token}` });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP realm="demo", error="invalid_token"/);
    const proof = await s.proof(key, '/oidc/userinfo', { htm: 'GET', accessToken: access_token ?? '' });
    expect((await s.userinfo({ authorization: `DPoP ${access_token}`, dpop: proof })).status).toBe(200);
  });

  it('in the standard profile every grant at /oidc/token checks proofs against that endpoint', async () => {
    const standard = await startDpopServer((config) => {
      const demo = config.tenants[0];
      if (demo) demo.profile = 'standard';
    });
    try {
      const refused = await standard.token('/oidc/token', CC, { dpop: await standard.proof(key, '/oauth/token') });
      expect((await json(refused)).error).toBe('invalid_dpop_proof');
      const res = await standard.token('/oidc/token', CC, { dpop: await standard.proof(key, '/oidc/token') });
      expect(res.status).toBe(200);
      expect((await json(res)).token_type).toBe('DPoP');
    } finally {
      await standard.close();
    }
  });
});
