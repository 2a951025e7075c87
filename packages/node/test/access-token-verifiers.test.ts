/**
 * The two verifier paths and what they share with ID-token validation: core's WebCrypto path
 * and the node:crypto one give the same answer for every row of the case table and for
 * malformed encodings; the JWKS (over real HTTP) is fetched once for a cold burst, again once
 * for a rotated key, not for forged `kid`s within the cooldown; the opt-in verified-token cache
 * never serves an expired token and still checks DPoP; a Redis replay cache refuses a proof
 * replayed to another instance.
 */
import { clearJwksCache } from '@oidc-rp/core';
import {
  type AccessTokenVerifier,
  type JosePrimitives,
  type ResourceRequest,
  jwtAccessTokenVerifier as coreVerifier,
  dpopProofs,
  webCryptoPrimitives,
} from '@oidc-rp/core/api';
import { type RedisClientType, createClient } from 'redis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';
import { jwtAccessTokenVerifier as nodeVerifier, nodePrimitives, verifiedTokenCache } from '../src/api/index';
import { RedisDpopReplayCache } from '../src/redis/index';
import { AUDIENCE, accessTokenCases } from './support/access-token-cases';
import { type Json, makeKey, proof, signJws, startIssuer, thumbprint } from './support/api-harness';

const issuer = await startIssuer(AUDIENCE);
afterAll(() => issuer.close());
beforeEach(() => clearJwksCache());

const ORIGIN = 'https://api.example';
const options = () => ({ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: AUDIENCE, dpop: dpopProofs() });

/** The request a case makes, as the resource would hand it over (headers joined as Node joins them). */
function resourceRequest(request: { method: string; path: string; headers: Record<string, string | string[]> }): ResourceRequest {
  const header = (name: string) => {
    const value = request.headers[name];
    return value === undefined ? null : [value].flat().join(', ');
  };
  return { method: request.method, url: new URL(request.path, ORIGIN).href, authorization: header('authorization'), dpop: header('dpop') };
}

type Outcome = { ok: boolean; code?: string | undefined; challenge?: string | undefined; scheme?: string; scopes?: readonly string[]; claims?: unknown };
const outcome = (verify: AccessTokenVerifier, request: ResourceRequest): Promise<Outcome> =>
  verify(request).then(
    (verified) => ({ ok: true, scheme: verified.scheme, scopes: verified.scopes, claims: verified.claims }),
    (error: { code?: string; challenge?: string }) => ({ ok: false, code: error.code, challenge: error.challenge }),
  );

describe('core (WebCrypto) and node (node:crypto) give the same answers', () => {
  it('for every row of the case table, valid and hostile', async () => {
    const core = coreVerifier(options());
    const node = nodeVerifier(options());
    const rows = accessTokenCases(issuer);
    for (const row of rows) {
      const request = resourceRequest(row.request(ORIGIN));
      const [fromCore, fromNode] = [await outcome(core, request), await outcome(node, request)];
      expect({ row: row.name, ...fromNode }).toEqual({ row: row.name, ...fromCore });
      expect({ row: row.name, ok: fromCore.ok }).toEqual({ row: row.name, ok: 'ok' in row.expected });
    }
    expect(rows.length).toBeGreaterThan(50);
  });

  it('for malformed encodings: bad lengths, bad UTF-8, JSON that is not an object, stray characters', async () => {
    const core = coreVerifier(options());
    const node = nodeVerifier(options());
    const good = issuer.token();
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const raw = (bytes: Buffer) => bytes.toString('base64url');
    const tokens = [
      `${header}.${payload}x.${signature}`, // a segment of length 4k+1 where it was not
      `${header}.${raw(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]))}.${signature}`, // invalid UTF-8
      `${header}.${raw(Buffer.from('[1,2]'))}.${signature}`,
      `${header}.${raw(Buffer.from('"string"'))}.${signature}`,
      `${header}.${raw(Buffer.from('{"a":1'))}.${signature}`,
      `${header}.${payload}.${signature}x`,
      `${header}.${payload}.`,
      `${header}..${signature}`,
      `.${payload}.${signature}`,
      `${header}.${payload}`,
      `${header}.${payload}.${signature}.${signature}`,
      `${header}.${payload}+/.${signature}`,
      `${header}.${payload}=.${signature}`,
      signJws({ alg: 'ES256', kid: issuer.keys[1]?.kid, typ: 'at+jwt' }, JSON.parse(Buffer.from(payload, 'base64url').toString()) as Json, issuer.keys[1]?.privateKey).replace(/\.[^.]+$/, `.${'A'.repeat(86)}`), // ES256, 64 zero bytes
      good,
    ];
    for (const token of tokens) {
      const request = { method: 'GET', url: `${ORIGIN}/orders`, authorization: `Bearer ${token}`, dpop: null };
      const [fromCore, fromNode] = [await outcome(core, request), await outcome(node, request)];
      expect(fromNode).toEqual(fromCore);
    }
  });

  it("for a stray character in any segment, at every position modulo 4, the node primitives' shape check answers as the regular expression does", () => {
    const compactJws = /^[\w-]*\.[\w-]*\.[\w-]*$/;
    const isCompactJws = nodePrimitives.isCompactJws as (token: string) => boolean;
    const segments = issuer.token().split('.') as [string, string, string];
    const strays = [...Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)), 'é', 'ÿ', 'Ā', '\uFFFD', '😀'];
    let refused = 0;
    for (const [which, segment] of segments.entries()) {
      // Every length modulo 4 (4k+1 included), each with the stray character at each position modulo 4.
      for (const cut of [0, 1, 2, 3]) {
        const base = segment.slice(0, segment.length - cut);
        for (const stray of strays) {
          for (const at of [0, 1, 2, 3, base.length - 1]) {
            for (const changed of [`${base.slice(0, at)}${stray}${base.slice(at + 1)}`, `${base.slice(0, at)}${stray}${base.slice(at)}`]) {
              const token = segments.map((s, i) => (i === which ? changed : s)).join('.');
              expect({ token, ok: isCompactJws(token) }).toEqual({ token, ok: compactJws.test(token) });
              if (!compactJws.test(token)) refused++;
            }
          }
        }
      }
    }
    // Segments longer than the scratch buffers, and padding on each segment.
    const long = 'A'.repeat(40_000);
    for (const token of [`${long}.e30.AAAA`, `e30.${long}.AAAA`, `e30.e30.${long}`, `e30.e30.${long}!`, `${segments.join('=.')}=`, `${segments.join('.')}==`, segments.join('..'), '', '.', '..', '...']) {
      expect({ token: token.slice(0, 40), ok: isCompactJws(token) }).toEqual({ token: token.slice(0, 40), ok: compactJws.test(token) });
    }
    expect(refused).toBeGreaterThan(1000);
  });

  it('for concurrent verifications on a cold key set, a tampered signature among good ones', async () => {
    const verify = nodeVerifier(options());
    const good = issuer.token();
    const other = issuer.token({ sub: 'bob' });
    const tampered = `${good.slice(0, -6)}${good.slice(-6, -5) === 'A' ? 'B' : 'A'}${good.slice(-5)}`;
    const call = (token: string) => outcome(verify, { method: 'GET', url: `${ORIGIN}/orders`, authorization: `Bearer ${token}`, dpop: null });
    // Each is checked up to the key lookup before any signature is: the later tokens' segments
    // overwrite the scratch buffers the earlier ones were decoded into.
    const results = await Promise.all([call(good), call(tampered), call(other), call(`${other.slice(0, other.lastIndexOf('.'))}.${good.slice(good.lastIndexOf('.') + 1)}`)]);
    expect(results.map((r) => r.code ?? r.ok)).toEqual([true, 'access_token_signature_invalid', true, 'access_token_signature_invalid']);
  });

  it('the node primitives decode and hash as core does', async () => {
    const segments = ['eyJhIjoxfQ', 'eyJhIjoxfQx', 'W10', 'e30', '', 'wyg', Buffer.from('{"é":"ü"}').toString('base64url'), Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')];
    for (const segment of segments) expect(nodePrimitives.decodeJson(segment)).toEqual(webCryptoPrimitives.decodeJson(segment));
    expect(nodePrimitives.sha256('tökén')).toBe(await webCryptoPrimitives.sha256('tökén'));
  });
});

describe('the JWKS cache ID-token validation uses', () => {
  it('fetches the key set once for a cold burst of 1,000 concurrent verifications', async () => {
    const before = issuer.jwksRequests();
    const verify = nodeVerifier(options());
    const token = issuer.token();
    const results = await Promise.all(Array.from({ length: 1000 }, () => verify({ method: 'GET', url: `${ORIGIN}/orders`, authorization: `Bearer ${token}`, dpop: null })));
    expect(results.every((r) => r.claims.sub === 'alice')).toBe(true);
    expect(issuer.jwksRequests() - before).toBe(1);
  });

  it('refetches once for a rotated key, and not for forged kids within the cooldown', async () => {
    const rotating = await startIssuer(AUDIENCE, [makeKey('ES256', 'old')]);
    try {
      const verify = coreVerifier({ issuer: rotating.issuer, jwksUri: rotating.jwksUri, audience: AUDIENCE, jwksRefetchCooldown: 600 });
      const call = (token: string) => outcome(verify, { method: 'GET', url: `${ORIGIN}/orders`, authorization: `Bearer ${token}`, dpop: null });
      expect((await call(rotating.token())).ok).toBe(true);
      const newKey = makeKey('ES256', 'new');
      rotating.keys.push(newKey);
      expect((await call(rotating.token({}, {}, newKey))).ok).toBe(true);
      expect(rotating.jwksRequests()).toBe(2);
      for (let i = 0; i < 5; i++) expect((await call(rotating.token({}, { kid: `forged-${i}` }))).code).toBe('access_token_unknown_kid');
      expect(rotating.jwksRequests()).toBe(2); // the rotation's refetch started the cooldown: forged kids fetch nothing
    } finally {
      await rotating.close();
    }
  });
});

describe('the opt-in verified-token cache', () => {
  const counting = () => {
    let verifications = 0;
    const verify: JosePrimitives['verify'] = (...args) => {
      verifications++;
      return nodePrimitives.verify(...args);
    };
    const primitives: JosePrimitives = { ...nodePrimitives, verify };
    return { primitives, count: () => verifications };
  };

  it('serves a repeat without verifying it again, and never a token past its exp', async () => {
    let now = Math.floor(Date.now() / 1000);
    const { primitives, count } = counting();
    const verify = coreVerifier({ ...options(), primitives, cache: verifiedTokenCache(), now: () => now });
    const token = issuer.token({ exp: now + 60 });
    const request = { method: 'GET', url: `${ORIGIN}/orders`, authorization: `Bearer ${token}`, dpop: null };
    for (let i = 0; i < 5; i++) expect((await verify(request)).claims.sub).toBe('alice');
    expect(count()).toBe(1);
    now += 61; // past exp, within the 30 s tolerance: the cache must not answer; the full check may
    expect((await verify(request)).claims.sub).toBe('alice');
    expect(count()).toBe(2);
    now += 60; // past exp and tolerance
    await expect(verify(request)).rejects.toMatchObject({ code: 'access_token_expired' });
  });

  it('still checks the DPoP proof of a cached bound token on every request', async () => {
    const { primitives, count } = counting();
    const verify = coreVerifier({ ...options(), primitives, cache: verifiedTokenCache() });
    const client = makeKey('ES256');
    const token = issuer.token({ cnf: { jkt: thumbprint(client.publicJwk) } });
    const request = (dpop: string) => ({ method: 'GET', url: `${ORIGIN}/orders`, authorization: `DPoP ${token}`, dpop });
    const first = proof(client, { method: 'GET', url: `${ORIGIN}/orders`, token });
    expect((await verify(request(first))).scheme).toBe('DPoP');
    expect((await verify(request(proof(client, { method: 'GET', url: `${ORIGIN}/orders`, token })))).scheme).toBe('DPoP');
    await expect(verify(request(first))).rejects.toMatchObject({ code: 'dpop_proof_replayed' });
    await expect(verify({ ...request(first), authorization: `Bearer ${token}` })).rejects.toMatchObject({ code: 'dpop_binding_mismatch' });
    expect(count()).toBe(1 + 3); // the token once, then each proof's signature (a replay is found after it)
  });

  it('keeps a bounded number of tokens', async () => {
    const { primitives, count } = counting();
    const verify = coreVerifier({ ...options(), primitives, cache: verifiedTokenCache({ maxEntries: 2 }) });
    const tokens = [issuer.token(), issuer.token(), issuer.token()];
    for (const token of [...tokens, tokens[0]]) await verify({ method: 'GET', url: `${ORIGIN}/orders`, authorization: `Bearer ${token}`, dpop: null });
    expect(count()).toBe(4); // the first was evicted by the third
  });
});

describe('the Redis DPoP replay cache (a fleet)', () => {
  let redisServer: RunningRedis;
  let redis: RedisClientType;
  afterAll(async () => {
    redis?.destroy();
    await redisServer?.stop();
  });

  it('refuses a proof replayed to another instance, and fails closed when Redis is down', async () => {
    redisServer = await startRedisServer();
    redis = createClient({ url: redisServer.url, disableOfflineQueue: true });
    redis.on('error', () => undefined);
    await redis.connect();
    const instance = () => nodeVerifier({ ...options(), dpop: dpopProofs({ replayCache: new RedisDpopReplayCache({ redis }) }) });
    const [a, b] = [instance(), instance()];
    const client = makeKey('ES256');
    const token = issuer.token({ cnf: { jkt: thumbprint(client.publicJwk) } });
    const request = { method: 'GET', url: `${ORIGIN}/orders`, authorization: `DPoP ${token}`, dpop: proof(client, { method: 'GET', url: `${ORIGIN}/orders`, token }) };
    expect((await a(request)).scheme).toBe('DPoP');
    await expect(b(request)).rejects.toMatchObject({ code: 'dpop_proof_replayed', challenge: 'invalid_dpop_proof' });
    const keys = await redis.keys('oidc-rp:dpop-jti:*');
    expect(keys).toHaveLength(1);
    expect(await redis.pTTL(keys[0] as string)).toBeGreaterThan(0);

    await redisServer.stop();
    const fresh = { ...request, dpop: proof(client, { method: 'GET', url: `${ORIGIN}/orders`, token }) };
    await expect(a(fresh)).rejects.toMatchObject({ code: 'cache_unavailable' });
  });
});
