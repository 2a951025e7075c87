/**
 * ID-token validation, Node, warm JWKS cache, RS256 and ES256.
 *
 * One signed ID token per algorithm (typical claims: iss, sub, aud, exp, iat, auth_time,
 * nonce, sid, name, email) is validated over and over by each candidate, in interleaved
 * rounds in this one process:
 *
 *   - crypto.verify          node:crypto on the precomputed signing input: the limit
 *   - WebCrypto verify       crypto.subtle.verify on the same input: what jose (and so
 *                            everything below) is built on in Node; shown to explain the gap
 *   - jose jwtVerify         local CryptoKey, issuer + audience + algorithm checks
 *   - @oidc-rp/core          validateIdToken: JWKS lookup (cached) + signature + every claim check
 *   - oauth4webapi           processAuthorizationCodeResponse (claims, nonce) over a synthetic
 *                            token Response, then validateApplicationLevelSignature (JWKS cached)
 *   - openid-client          implicitAuthentication (response_type=id_token): its public path that
 *                            validates an ID token's claims AND its signature without a network call
 *
 * JWKS are served by an in-process fetch stub (counted: each library must fetch once, then hit
 * its cache). Every candidate is first checked to accept the token and to reject one with a
 * flipped signature byte, so no candidate skips the signature.
 */

import { webcrypto } from 'node:crypto';
import { SignJWT, importJWK, jwtVerify } from 'jose';
import { validateIdToken } from '@oidc-rp/core';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { emit } from './lib/emit.mjs';
import { num, ratio, table } from './lib/table.mjs';
import { checkCandidates, cryptoVerifyLimit, roundsNote, signingKey, splitJws, verifyRounds } from './lib/verify-rounds.mjs';

const CLIENT_ID = 'bench-client';
const NONCE = 'n-0S6_WzA2Mj';
const STATE = 'af0ifjsldkj';
const SUBTLE = {
  RS256: { import: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, verify: { name: 'RSASSA-PKCS1-v1_5' } },
  ES256: { import: { name: 'ECDSA', namedCurve: 'P-256' }, verify: { name: 'ECDSA', hash: 'SHA-256' } },
};

/** Everything a candidate needs for one algorithm. */
async function fixture(alg) {
  const { privateKey, jwk } = await signingKey(alg);
  const issuer = `https://op.example/${alg.toLowerCase()}`;
  const jwksUri = `${issuer}/jwks`;
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({
    nonce: NONCE,
    auth_time: now - 5,
    sid: 'a9f3c2e1',
    name: 'Alice Liddell',
    email: 'alice@example.com',
    email_verified: true,
  })
    .setProtectedHeader({ alg, kid: jwk.kid, typ: 'JWT' })
    .setIssuer(issuer)
    .setSubject('alice')
    .setAudience(CLIENT_ID)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
  // JWKS requests per phase: each candidate's check (it must fetch once), then the measured rounds.
  const jwksFetches = { phase: 'setup', counts: new Map() };
  const fetchStub = async (url) => {
    jwksFetches.counts.set(jwksFetches.phase, (jwksFetches.counts.get(jwksFetches.phase) ?? 0) + 1);
    if (String(url) !== jwksUri) return new Response('not found', { status: 404 });
    return new Response(JSON.stringify({ keys: [jwk] }), { headers: { 'content-type': 'application/json' } });
  };
  return { alg, jwk, issuer, jwksUri, token, fetchStub, jwksFetches };
}

/** The candidates for one algorithm: name → verify(token) (rejects or returns false on a bad token). */
async function candidates(f) {
  const { alg, jwk, issuer, jwksUri, fetchStub } = f;
  const subtleKey = await webcrypto.subtle.importKey('jwk', jwk, SUBTLE[alg].import, false, ['verify']);
  const joseKey = await importJWK(jwk, alg);

  const provider = { issuer, jwks_uri: jwksUri, id_token_signing_alg_values_supported: [alg] };
  const coreOptions = { provider, clientId: CLIENT_ID, nonce: NONCE, http: { fetch: fetchStub } };

  const as = { issuer, jwks_uri: jwksUri, id_token_signing_alg_values_supported: [alg] };
  const o4wClient = { client_id: CLIENT_ID, id_token_signed_response_alg: alg };
  const o4wOptions = { [oauth.customFetch]: fetchStub, [oauth.jwksCache]: {} };

  const config = new openid.Configuration({ ...as }, CLIENT_ID, { id_token_signed_response_alg: alg });
  config[openid.customFetch] = fetchStub;
  // biome-ignore lint/correctness/useHookAtTopLevel: an openid-client setting, not a React hook
  openid.useIdTokenResponseType(config);

  return [
    cryptoVerifyLimit(jwk, alg),
    {
      name: 'WebCrypto subtle.verify',
      verify: (token) => {
        const [input, signature] = splitJws(token);
        return () => webcrypto.subtle.verify(SUBTLE[alg].verify, subtleKey, signature, input);
      },
    },
    {
      name: 'jose jwtVerify',
      verify: (token) => () => jwtVerify(token, joseKey, { issuer, audience: CLIENT_ID, algorithms: [alg] }),
    },
    {
      name: '@oidc-rp/core validateIdToken',
      verify: (token) => () => validateIdToken(token, coreOptions),
    },
    {
      name: 'oauth4webapi',
      verify: (token) => {
        const body = JSON.stringify({ access_token: 'opaque-at', token_type: 'Bearer', id_token: token });
        return async () => {
          const response = new Response(body, { headers: { 'content-type': 'application/json' } });
          const result = await oauth.processAuthorizationCodeResponse(as, o4wClient, response, { expectedNonce: NONCE });
          await oauth.validateApplicationLevelSignature(as, response, o4wOptions);
          return oauth.getValidatedIdTokenClaims(result);
        };
      },
    },
    {
      name: 'openid-client',
      verify: (token) => {
        const url = new URL(`https://rp.example/cb#id_token=${token}&state=${STATE}`);
        return () => openid.implicitAuthentication(config, url, NONCE, { expectedState: STATE });
      },
    },
  ];
}

async function benchAlgorithm(alg, options) {
  const f = await fixture(alg);
  const list = await candidates(f);
  await checkCandidates(list, { what: `${alg} ID token`, valid: f.token, before: (c) => (f.jwksFetches.phase = c.name) });
  f.jwksFetches.phase = 'rounds';
  const results = await verifyRounds(list, f.token, options, { reference: 'jose jwtVerify', as: 'vsJose' });
  return {
    alg,
    jwksFetchesDuringRounds: f.jwksFetches.counts.get('rounds') ?? 0,
    jwksFetchesPerCandidate: Object.fromEntries(list.map((c) => [c.name, f.jwksFetches.counts.get(c.name) ?? 0])),
    results,
  };
}

export async function run({ rounds = 9, sliceMs = 200 } = {}) {
  const byAlg = [];
  for (const alg of ['RS256', 'ES256']) byAlg.push(await benchAlgorithm(alg, { rounds, sliceMs }));
  const core = Object.fromEntries(
    byAlg.map(({ alg, results }) => [alg, results.find((r) => r.name.startsWith('@oidc-rp')).vsJose]),
  );
  const sections = byAlg.map(({ alg, results, jwksFetchesDuringRounds, jwksFetchesPerCandidate }) =>
    [
      `**${alg}** (JWKS requests while checking each library: ${Object.entries(jwksFetchesPerCandidate)
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ')}; during the measured rounds: ${jwksFetchesDuringRounds})`,
      '',
      table(
        ['candidate', 'ops/s', 'µs/op', '× crypto.verify', '× jose jwtVerify'],
        results.map((r) => [r.name, num(r.opsPerSec), num(r.usPerOp, 1), ratio(r.vsLimit), ratio(r.vsJose)]),
      ),
    ].join('\n'),
  );
  const verdict = Object.entries(core)
    .map(([alg, v]) => `${alg}: validateIdToken = ${ratio(v)} jose jwtVerify (target ≥ 0.95×: ${v >= 0.95 ? 'met' : 'NOT met'})`)
    .join('; ');
  const markdown = `${sections.join('\n\n')}\n\n${verdict}. ${roundsNote(rounds, sliceMs)}`;
  return { markdown, data: { rounds, sliceMs, byAlg, coreVsJose: core } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown, data } = await run();
  emit('ID-token validation (Node, warm JWKS cache)', markdown, data);
}
