// A refusal must read the same in the WWW-Authenticate header and in the JSON body: the claim
// it names (htu, typ, aud) is written out, not a `?` where a quote had to go. Over real HTTP:
// a protected resource (the SDK's guard on Hono) and an issuer whose JWKS is served on 127.0.0.1.
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccessTokenVariables, dpopProofs, honoAccessToken, jwtAccessTokenVerifier, requireAccessToken } from '../../src/api/index';
import { type TestIssuer, makeKey, proof, startIssuer, thumbprint } from '../support/api-harness';
import { serveFetch } from '../support/serve-fetch';

let issuer: TestIssuer;
let api: { origin: string; close(): Promise<void> };
const client = makeKey('ES256');

beforeAll(async () => {
  // The API's origin is only known once it listens; the verifier is built on first request.
  let audience = '';
  issuer = await startIssuer('pending');
  let guard: ReturnType<typeof requireAccessToken> | undefined;
  const app = new Hono<{ Variables: AccessTokenVariables }>();
  app.use('/orders', (c, next) => {
    guard ??= requireAccessToken({
      verifier: jwtAccessTokenVerifier({ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience, dpop: dpopProofs() }),
      origin: audience,
    });
    return honoAccessToken(guard)(c, next);
  });
  app.get('/orders', (c) => c.json({ ok: true }));
  api = await serveFetch(app.fetch);
  audience = api.origin;
});
afterAll(async () => {
  await api?.close();
  await issuer?.close();
});

async function refusal(headers: Record<string, string>) {
  const response = await fetch(`${api.origin}/orders`, { headers });
  const body = (await response.json()) as { error?: string; error_description?: string };
  const challenge = response.headers.get('www-authenticate') ?? '';
  const inHeader = /error_description="([^"]*)"/.exec(challenge)?.[1];
  return { status: response.status, body, inHeader };
}

describe('refusals that read the same in the header and the body', () => {
  it('names the htu claim of a DPoP proof for another URL', async () => {
    const token = issuer.token({ aud: api.origin, cnf: { jkt: thumbprint(client.publicJwk) } });
    const dpop = proof(client, { method: 'GET', url: `${api.origin}/admin`, token });
    const { status, body, inHeader } = await refusal({ authorization: `DPoP ${token}`, dpop });
    expect(status).toBe(401);
    expect(body.error_description).toBe('Invalid DPoP proof: its htu claim is not the URL of this request (query and fragment left out).');
    expect(inHeader).toBe(body.error_description);
  });

  it('names the typ header of a token that is not an access token', async () => {
    const { body, inHeader } = await refusal({ authorization: `Bearer ${issuer.token({ aud: api.origin }, { typ: 'JWT' })}` });
    expect(body.error_description).toMatch(/^Invalid access token: its typ header is not at\+jwt/);
    expect(inHeader).toBe(body.error_description);
    expect(inHeader).not.toContain('?');
  });

  it('names the audience of a token for another API, and what to ask for', async () => {
    const { body, inHeader } = await refusal({ authorization: `Bearer ${issuer.token({ aud: 'https://other-api.example' })}` });
    expect(body.error_description).toBe(`Invalid access token: its aud claim does not name this API (${api.origin}): the client must ask for a token for this resource.`);
    expect(inHeader).toBe(body.error_description);
  });
});

