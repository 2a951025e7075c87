/**
 * Hostile input against the access-token verifiers over real HTTP (issuer JWKS and protected
 * resource on 127.0.0.1): each row of the case table is one attack or its valid counterpart,
 * sent to a resource protected by core's WebCrypto verifier and by the node:crypto one. Every
 * refusal is a 4xx with the right challenge, never a 5xx, and no message carries a token.
 */
import { clearJwksCache } from '@oidc-rp/core';
import { type AccessTokenVerifier, jwtAccessTokenVerifier as coreVerifier, dpopNonces, dpopProofs } from '@oidc-rp/core/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtAccessTokenVerifier as nodeVerifier } from '../src/api/index';
import { type TestIssuer, makeKey, proof, startIssuer, startResource, thumbprint } from './support/api-harness';
import { AUDIENCE, accessTokenCases } from './support/access-token-cases';

const issuer: TestIssuer = await startIssuer(AUDIENCE);
const cases = accessTokenCases(issuer);
const sent: string[] = [];
afterAll(() => issuer.close());

describe.each([
  ['core (WebCrypto)', coreVerifier],
  ['node (node:crypto)', nodeVerifier],
] as const)('%s', (_name, make) => {
  let verifier: AccessTokenVerifier;
  let resource: Awaited<ReturnType<typeof startResource>>;
  beforeAll(async () => {
    clearJwksCache();
    verifier = make({ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: AUDIENCE, dpop: dpopProofs() });
    resource = await startResource(() => verifier);
  });
  afterAll(() => resource?.close());

  it.each(cases)('$name', async (row) => {
    const request = row.request(resource.origin);
    for (const value of Object.values(request.headers)) sent.push(...[value].flat());
    const answer = await resource.call(request.path, request.headers, request.method);
    if ('ok' in row.expected) {
      expect({ name: row.name, status: answer.status, scheme: answer.body.scheme }).toEqual({ name: row.name, status: 200, scheme: row.expected.scheme });
    } else {
      const status = row.expected.challenge === 'invalid_request' ? 400 : 401;
      expect({ name: row.name, status: answer.status, code: answer.body.code, challenge: answer.challenge }).toEqual({
        name: row.name,
        status,
        code: row.expected.code,
        challenge: expect.stringContaining(`error="${row.expected.challenge}"`),
      });
    }
  });

  it('refuses a replayed DPoP proof', async () => {
    const client = makeKey('ES256');
    const token = issuer.token({ cnf: { jkt: thumbprint(client.publicJwk) } });
    const headers = { authorization: `DPoP ${token}`, dpop: proof(client, { method: 'GET', url: `${resource.origin}/orders`, token }) };
    sent.push(token);
    expect((await resource.call('/orders', headers)).status).toBe(200);
    const replay = await resource.call('/orders', headers);
    expect([replay.status, replay.body.code, replay.challenge]).toEqual([401, 'dpop_proof_replayed', 'DPoP error="invalid_dpop_proof"']);
  });

  it('refuses an unbound Bearer token when dpopProofs({ required: true }), and still accepts a bound one with its proof', async () => {
    const strict = make({ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: AUDIENCE, dpop: dpopProofs({ required: true }) });
    expect(strict.dpop).toEqual({ required: true, algorithms: expect.arrayContaining(['ES256']) });
    const strictResource = await startResource(() => strict);
    try {
      const plain = issuer.token();
      sent.push(plain);
      const refused = await strictResource.call('/orders', { authorization: `Bearer ${plain}` });
      expect([refused.status, refused.body.code]).toEqual([401, 'dpop_binding_mismatch']);
      const client = makeKey('ES256');
      const token = issuer.token({ cnf: { jkt: thumbprint(client.publicJwk) } });
      sent.push(token);
      const url = `${strictResource.origin}/orders`;
      const accepted = await strictResource.call('/orders', { authorization: `DPoP ${token}`, dpop: proof(client, { method: 'GET', url, token }) });
      expect([accepted.status, accepted.body.scheme]).toEqual([200, 'DPoP']);
    } finally {
      await strictResource.close();
    }
  });

  it('checks the scopes the API requires: 403 insufficient_scope', async () => {
    const strict = make({ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: AUDIENCE, requiredScopes: ['orders:write'] });
    const strictResource = await startResource(() => strict);
    try {
      const token = issuer.token({ scope: 'orders:read' });
      const answer = await strictResource.call('/orders', { authorization: `Bearer ${token}` });
      expect([answer.status, answer.body.code, answer.challenge]).toEqual([403, 'insufficient_scope', 'Bearer error="insufficient_scope"']);
      const allowed = await strictResource.call('/orders', { authorization: `Bearer ${issuer.token({ scp: ['orders:read', 'orders:write'], scope: undefined })}` });
      expect([allowed.status, allowed.body.scopes]).toEqual([200, ['orders:read', 'orders:write']]);
    } finally {
      await strictResource.close();
    }
  });

  it('asks for a server nonce (use_dpop_nonce with DPoP-Nonce) and accepts the proof that carries it', async () => {
    const nonced = make({ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: AUDIENCE, dpop: dpopProofs({ nonces: dpopNonces() }) });
    const nonceResource = await startResource(() => nonced);
    try {
      const client = makeKey('ES256');
      const token = issuer.token({ cnf: { jkt: thumbprint(client.publicJwk) } });
      const url = `${nonceResource.origin}/orders`;
      const first = await nonceResource.call('/orders', { authorization: `DPoP ${token}`, dpop: proof(client, { method: 'GET', url, token }) });
      expect([first.status, first.body.code, first.challenge]).toEqual([401, 'dpop_nonce_required', 'DPoP error="use_dpop_nonce"']);
      expect(first.dpopNonce).toMatch(/^[\w-]{43}$/);
      const wrong = await nonceResource.call('/orders', { authorization: `DPoP ${token}`, dpop: proof(client, { method: 'GET', url, token }, { nonce: 'made-up' }) });
      expect(wrong.body.code).toBe('dpop_nonce_required');
      const second = await nonceResource.call('/orders', { authorization: `DPoP ${token}`, dpop: proof(client, { method: 'GET', url, token }, { nonce: first.dpopNonce }) });
      expect([second.status, second.body.scheme]).toEqual([200, 'DPoP']);
    } finally {
      await nonceResource.close();
    }
  });

  it('never puts a token or proof in a refusal message', () => {
    expect(resource.messages.length).toBeGreaterThan(40);
    const secrets = sent.map((value) => value.replace(/^(Bearer|DPoP) /, '')).filter((value) => value.length > 20);
    for (const message of resource.messages) {
      for (const secret of secrets) expect(message.includes(secret) || message.includes(secret.split('.')[1] ?? '\0')).toBe(false);
    }
  });
});
