/**
 * One table of requests to a protected resource, each with the answer a verifier must give:
 * every negative of RFC 9068 / RFC 8725 and of DPoP (RFC 9449), and the valid cases they
 * depart from. The HTTP suite sends each row to a real server; the parity suite feeds each row
 * to core's WebCrypto verifier and to the node:crypto one and requires the same answer.
 */
import { createPublicKey, randomBytes } from 'node:crypto';
import { type Json, type TestIssuer, type TestKey, makeKey, proof, rsaKey, signJws, thumbprint } from './api-harness';

export const AUDIENCE = 'https://api.example';

/** A request as a client sends it: path on the resource, headers (a list sends the header twice). */
export interface CaseRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
}

/** The outcome: 200, or the refusal's challenge and code. */
export type Expected = { ok: true; scheme: 'Bearer' | 'DPoP' } | { challenge: string; code: string };

export interface Case {
  name: string;
  /** Makes the request; `origin` is the resource's public origin (DPoP `htu`). */
  request(origin: string): CaseRequest;
  expected: Expected;
}

const now = () => Math.floor(Date.now() / 1000);
const bearer = (token: string): CaseRequest => ({ method: 'GET', path: '/orders', headers: { authorization: `Bearer ${token}` } });
const refused = (challenge: string, code: string): Expected => ({ challenge, code });
const invalidToken = (code: string) => refused('invalid_token', code);
const invalidProof = (code = 'dpop_proof_invalid') => refused('invalid_dpop_proof', code);

/** The cases for `issuer`; `client` is the DPoP key of the bound tokens, `other` another key. */
export function accessTokenCases(issuer: TestIssuer): Case[] {
  const client = makeKey('ES256');
  const other = makeKey('ES256');
  const attacker = rsaKey('attacker', issuer.keys[0]?.kid);
  const [rsa, ec] = issuer.keys as [TestKey, TestKey];
  const bound = (claims: Json = {}) => issuer.token({ cnf: { jkt: thumbprint(client.publicJwk) }, ...claims });
  /** A DPoP request with a bound token; `claims` / `header` change the proof. */
  const dpopRequest = (claims: Json = {}, header: Json = {}, key: TestKey = client, method = 'GET', path = '/orders') => (origin: string): CaseRequest => {
    const token = bound();
    return { method, path, headers: { authorization: `DPoP ${token}`, dpop: proof(key, { method, url: `${origin}/orders`, token }, claims, header) } };
  };
  const rsaPem = createPublicKey({ key: rsa.publicJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;

  return [
    { name: 'a valid RS256 token', request: () => bearer(issuer.token()), expected: { ok: true, scheme: 'Bearer' } },
    { name: 'a valid ES256 token', request: () => bearer(issuer.token({}, {}, ec)), expected: { ok: true, scheme: 'Bearer' } },
    { name: 'alg none', request: () => bearer(signJws({ alg: 'none', typ: 'at+jwt', kid: rsa.kid }, tokenClaims(issuer), undefined)), expected: invalidToken('access_token_alg_not_allowed') },
    {
      name: 'HS256 keyed with the public key (PEM)',
      request: () => bearer(signJws({ alg: 'HS256', typ: 'at+jwt', kid: rsa.kid }, tokenClaims(issuer), Buffer.from(rsaPem))),
      expected: invalidToken('access_token_alg_not_allowed'),
    },
    {
      name: 'HS256 keyed with the public JWK',
      request: () => bearer(signJws({ alg: 'HS256', typ: 'at+jwt', kid: rsa.kid }, tokenClaims(issuer), Buffer.from(JSON.stringify(rsa.publicJwk)))),
      expected: invalidToken('access_token_alg_not_allowed'),
    },
    { name: 'typ JWT (not at+jwt)', request: () => bearer(issuer.token({}, { typ: 'JWT' })), expected: invalidToken('access_token_typ_invalid') },
    { name: 'no typ', request: () => bearer(issuer.token({}, { typ: undefined })), expected: invalidToken('access_token_typ_invalid') },
    { name: 'another audience', request: () => bearer(issuer.token({ aud: 'https://other-api.example' })), expected: invalidToken('access_token_aud_mismatch') },
    { name: 'another issuer', request: () => bearer(issuer.token({ iss: 'https://evil.example' })), expected: invalidToken('access_token_iss_mismatch') },
    { name: 'expired', request: () => bearer(issuer.token({ exp: now() - 120 })), expected: invalidToken('access_token_expired') },
    { name: 'nbf in the future', request: () => bearer(issuer.token({ nbf: now() + 600 })), expected: invalidToken('access_token_nbf_future') },
    { name: 'iat in the future', request: () => bearer(issuer.token({ iat: now() + 600, exp: now() + 900 })), expected: invalidToken('access_token_iat_future') },
    ...['exp', 'iat', 'sub', 'client_id', 'jti'].map((claim) => ({
      name: `no ${claim}`,
      request: () => bearer(issuer.token({ [claim]: undefined })),
      expected: invalidToken('access_token_claim_missing'),
    })),
    { name: 'scope of the wrong type', request: () => bearer(issuer.token({ scope: ['orders:read'] })), expected: invalidToken('access_token_malformed') },
    { name: 'an unknown kid', request: () => bearer(issuer.token({}, { kid: 'no-such-key' })), expected: invalidToken('access_token_unknown_kid') },
    { name: 'a key of the issuer with a forged signature', request: () => bearer(issuer.token({}, {}, attacker)), expected: invalidToken('access_token_signature_invalid') },
    {
      name: 'jku naming the attacker’s key set (ignored)',
      request: () => bearer(issuer.token({}, { jku: 'http://127.0.0.1:9/attacker-jwks', kid: 'attacker' }, rsaKey('attacker', 'attacker'))),
      expected: invalidToken('access_token_unknown_kid'),
    },
    {
      name: 'x5u naming the attacker’s certificate (ignored)',
      request: () => bearer(issuer.token({}, { x5u: 'http://127.0.0.1:9/attacker.pem', kid: 'attacker' }, rsaKey('attacker', 'attacker'))),
      expected: invalidToken('access_token_unknown_kid'),
    },
    {
      name: 'jwk header carrying the attacker’s key (ignored)',
      request: () => {
        const key = rsaKey('stranger', rsa.kid);
        return bearer(issuer.token({}, { jwk: key.publicJwk }, key));
      },
      expected: invalidToken('access_token_signature_invalid'),
    },
    { name: 'an unknown crit extension', request: () => bearer(issuer.token({}, { crit: ['exp-x'], 'exp-x': 1 })), expected: invalidToken('access_token_malformed') },
    {
      name: 'an ID token presented as an access token',
      request: () => bearer(issuer.token({ aud: 'spa', nonce: 'n-0S6', azp: 'spa', client_id: undefined, scope: undefined, jti: undefined }, { typ: 'JWT' })),
      expected: invalidToken('access_token_typ_invalid'),
    },
    { name: 'a tampered payload', request: () => bearer(tamper(issuer.token())), expected: invalidToken('access_token_signature_invalid') },
    { name: 'not a JWT', request: () => bearer('opaque-token-value'), expected: invalidToken('access_token_malformed') },
    { name: 'an oversized token (20,000 characters)', request: () => bearer(`${'a'.repeat(10_000)}.${'b'.repeat(9_998)}.c`), expected: invalidToken('access_token_malformed') },
    { name: 'an oversized Authorization header (1 MB)', request: () => bearer('x'.repeat(1 << 20)), expected: invalidToken('access_token_malformed') },
    { name: 'no Authorization header', request: () => ({ method: 'GET', path: '/orders', headers: {} }), expected: invalidToken('access_token_missing') },
    { name: 'a Basic Authorization header', request: () => ({ method: 'GET', path: '/orders', headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } }), expected: invalidToken('access_token_missing') },
    {
      name: 'two schemes in one header',
      request: () => ({ method: 'GET', path: '/orders', headers: { authorization: `Bearer ${issuer.token()}, DPoP ${issuer.token()}` } }),
      expected: refused('invalid_request', 'authorization_header_invalid'),
    },
    {
      name: 'two Authorization headers',
      request: () => ({ method: 'GET', path: '/orders', headers: { authorization: [`Bearer ${issuer.token()}`, `Bearer ${issuer.token()}`] } }),
      expected: refused('invalid_request', 'authorization_header_invalid'),
    },
    { name: 'Bearer with two tokens', request: () => ({ method: 'GET', path: '/orders', headers: { authorization: 'Bearer a b' } }), expected: refused('invalid_request', 'authorization_header_invalid') },

    // DPoP (RFC 9449).
    { name: 'DPoP: a bound token with a valid proof', request: dpopRequest(), expected: { ok: true, scheme: 'DPoP' } },
    { name: 'DPoP: a bound token sent as Bearer', request: () => bearer(bound()), expected: invalidToken('dpop_binding_mismatch') },
    {
      name: 'DPoP: the DPoP scheme with an unbound token',
      request: (origin) => {
        const token = issuer.token();
        return { method: 'GET', path: '/orders', headers: { authorization: `DPoP ${token}`, dpop: proof(client, { method: 'GET', url: `${origin}/orders`, token }) } };
      },
      expected: invalidToken('dpop_binding_mismatch'),
    },
    { name: 'DPoP: no proof', request: () => ({ method: 'GET', path: '/orders', headers: { authorization: `DPoP ${bound()}` } }), expected: invalidProof() },
    { name: 'DPoP: wrong htm', request: dpopRequest({ htm: 'POST' }), expected: invalidProof() },
    { name: 'DPoP: wrong htu (another path)', request: dpopRequest({}, {}, client, 'GET', '/admin'), expected: invalidProof() },
    {
      name: 'DPoP: htu of a forged Host header',
      request: () => {
        const token = bound();
        const forged = proof(client, { method: 'GET', url: 'http://evil.example/orders', token });
        return { method: 'GET', path: '/orders', headers: { host: 'evil.example', authorization: `DPoP ${token}`, dpop: forged } };
      },
      expected: invalidProof(),
    },
    { name: 'DPoP: htu with a query and fragment (left out of the comparison)', request: (origin) => dpopRequest({ htu: `${origin}/orders?page=2#top` })(origin), expected: { ok: true, scheme: 'DPoP' } },
    { name: 'DPoP: a stale iat', request: dpopRequest({ iat: now() - 600 }), expected: invalidProof() },
    { name: 'DPoP: an iat in the future', request: dpopRequest({ iat: now() + 600 }), expected: invalidProof() },
    { name: 'DPoP: a proof by another key than cnf.jkt', request: dpopRequest({}, {}, other), expected: invalidProof() },
    { name: 'DPoP: a proof with the private key in its jwk', request: dpopRequest({}, { jwk: client.privateKey.export({ format: 'jwk' }) }), expected: invalidProof() },
    {
      name: 'DPoP: alg none',
      request: (origin) => {
        const token = bound();
        const unsigned = signJws({ typ: 'dpop+jwt', alg: 'none', jwk: client.publicJwk }, { jti: 'j1', htm: 'GET', htu: `${origin}/orders`, iat: now() }, undefined);
        return { method: 'GET', path: '/orders', headers: { authorization: `DPoP ${token}`, dpop: unsigned } };
      },
      expected: invalidProof(),
    },
    {
      name: 'DPoP: HMAC keyed with the public key',
      request: (origin) => {
        const token = bound();
        const hmac = signJws({ typ: 'dpop+jwt', alg: 'HS256', jwk: client.publicJwk }, { jti: 'j2', htm: 'GET', htu: `${origin}/orders`, iat: now() }, Buffer.from(JSON.stringify(client.publicJwk)));
        return { method: 'GET', path: '/orders', headers: { authorization: `DPoP ${token}`, dpop: hmac } };
      },
      expected: invalidProof(),
    },
    { name: 'DPoP: typ JWT', request: dpopRequest({}, { typ: 'JWT' }), expected: invalidProof() },
    { name: 'DPoP: no jwk', request: dpopRequest({}, { jwk: undefined }), expected: invalidProof() },
    { name: 'DPoP: an ath of another token', request: dpopRequest({ ath: 'x'.repeat(43) }), expected: invalidProof() },
    { name: 'DPoP: no ath', request: dpopRequest({ ath: undefined }), expected: invalidProof() },
    { name: 'DPoP: no jti', request: dpopRequest({ jti: undefined }), expected: invalidProof() },
    { name: 'DPoP: an unknown crit', request: dpopRequest({}, { crit: ['x'] }), expected: invalidProof() },
    {
      name: 'DPoP: two DPoP headers',
      request: (origin) => {
        const token = bound();
        const one = proof(client, { method: 'GET', url: `${origin}/orders`, token });
        return { method: 'GET', path: '/orders', headers: { authorization: `DPoP ${token}`, dpop: [one, proof(client, { method: 'GET', url: `${origin}/orders`, token })] } };
      },
      expected: invalidProof(),
    },
    { name: 'DPoP: an oversized DPoP header', request: () => ({ method: 'GET', path: '/orders', headers: { authorization: `DPoP ${bound()}`, dpop: 'a'.repeat(1 << 16) } }), expected: invalidProof() },
  ];
}

// RFC 9068 claims for hand-signed hostile tokens.
function tokenClaims(issuer: TestIssuer): Json {
  return { iss: issuer.issuer, sub: 'alice', aud: AUDIENCE, client_id: 'spa', iat: now(), exp: now() + 300, jti: randomBytes(8).toString('hex') };
}

function tamper(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Json;
  return [header, Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url'), signature].join('.');
}
