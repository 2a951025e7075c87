// A stolen authorization code of a confidential client, over real HTTP against the reference
// server: the attacker starts the login with his own PKCE challenge, the victim signs in, the
// attacker takes the code from her redirect (referrer, log, history) and redeems it with his
// verifier and no secret. The server refuses (401 invalid_client), and @oidc-rp/node's default
// confidential logins still complete because they always authenticate the code exchange.
import { buildAuthorizationRequest, clientSecretBasic, exchangeCode, none } from '@oidc-rp/core';
import { createReferenceServer, demoConfig, type Listening } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenEndpointError, createNodeClient, serviceProvider } from '../src/index';
import { loginThroughForms, recordingFetch } from './support/reference-server';

const REDIRECT = 'http://127.0.0.1:3000/callback';
const SECRET = 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4';
let listening: Listening;
let issuer: string;
const logged: string[] = [];

beforeAll(async () => {
  const server = await createReferenceServer(demoConfig(), {
    logger: { info: (line) => logged.push(line), error: (line) => logged.push(line) },
    developmentKeys: true,
  });
  listening = await server.listen({ port: 0, host: '127.0.0.1' });
  issuer = `${listening.origin}/demo`;
});
afterAll(() => listening.close());

/** The attacker's part: an authorize request for the victim's client with HIS challenge; she signs in. */
async function stealCode(): Promise<{ code: string; verifier: string }> {
  const { url, transaction } = await buildAuthorizationRequest({
    provider: serviceProvider(issuer),
    clientId: 'web',
    redirectUri: REDIRECT,
    scope: 'openid profile email',
  });
  const result = await completeLogin(url, { username: 'alice', password: 'wonderland' });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const code = new URL(result.location).searchParams.get('code');
  if (!code || !transaction.codeVerifier) throw new Error('the login gave no code');
  return { code, verifier: transaction.codeVerifier };
}

describe('a stolen code of a confidential client', () => {
  it('is refused with 401 invalid_client when redeemed with the attacker’s verifier and no secret', async () => {
    const { code, verifier } = await stealCode();
    const response = await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'web', code_verifier: verifier }),
    });
    expect(response.status).toBe(401);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.error).toBe('invalid_client');
    expect(body.access_token).toBeUndefined();
    expect(logged.join('\n')).not.toContain(code);
  });

  it('is refused through core too (a public-client style exchange), with token_endpoint_error / invalid_client', async () => {
    const { code, verifier } = await stealCode();
    const error = await exchangeCode({
      provider: serviceProvider(issuer),
      client: { clientId: 'web' },
      clientAuth: none(),
      code,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({ code: 'token_endpoint_error', status: 401, error: 'invalid_client' });
    expect(String((error as Error).message)).not.toContain(code);
  });

  it('a refused attempt does not burn the code: the client, authenticating, still redeems it', async () => {
    // Here the "client" also knows the verifier, as the one who started the login would.
    const { code, verifier } = await stealCode();
    await exchangeCode({ provider: serviceProvider(issuer), client: { clientId: 'web' }, clientAuth: none(), code, redirectUri: REDIRECT, codeVerifier: verifier }).catch(() => undefined);
    const tokens = await exchangeCode({
      provider: serviceProvider(issuer),
      client: { clientId: 'web' },
      clientAuth: clientSecretBasic(SECRET),
      code,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    expect(tokens.accessToken).toEqual(expect.any(String));
  });
});

describe('@oidc-rp/node default confidential logins authenticate every code exchange', () => {
  it('discovery (the server advertises client_secret_basic): PKCE verifier beside HTTP Basic', async () => {
    const recorder = recordingFetch();
    const client = createNodeClient({ issuer, clientId: 'web', clientSecret: SECRET, redirectUri: REDIRECT, scope: 'openid', fetch: recorder.fetch });
    const { url, transaction, result } = await loginThroughForms(client);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    const tokens = await client.finishLogin(result.location, transaction);
    expect(tokens.claims?.sub).toBe('alice');
    const exchange = recorder.posts.find((p) => p.body.get('grant_type') === 'authorization_code');
    expect(exchange?.authorization).toBe(`Basic ${btoa(`web:${SECRET}`)}`);
    expect(exchange?.body.get('code_verifier')).toBe(transaction.codeVerifier);
    expect(exchange?.body.has('client_secret')).toBe(false);
  });

  it('the service preset (client_secret_post only): no PKCE, the secret in the body', async () => {
    const recorder = recordingFetch();
    const client = createNodeClient({ provider: serviceProvider(issuer), clientId: 'web', clientSecret: SECRET, redirectUri: REDIRECT, scope: 'openid', fetch: recorder.fetch });
    const { url, transaction, result } = await loginThroughForms(client);
    expect(url.searchParams.has('code_challenge')).toBe(false);
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    expect((await client.finishLogin(result.location, transaction)).claims?.sub).toBe('alice');
    const exchange = recorder.posts.find((p) => p.body.get('grant_type') === 'authorization_code');
    expect(exchange?.body.get('client_secret')).toBe(SECRET);
    expect(exchange?.body.has('code_verifier')).toBe(false);
  });
});
