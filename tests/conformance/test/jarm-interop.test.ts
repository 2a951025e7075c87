// JARM across implementations, over real HTTP on 127.0.0.1: @oidc-rp/node against oidc-provider
// (certified) with its jwtResponseModes feature (query.jwt, form_post.jwt, and fapi2() with
// messageSigning against its FAPI 2.0 profile, signed request objects required), and the reference server's JARM responses judged
// by openid-client v6 (certified), which must accept the healthy ones and refuse each JARM fault
// before it redeems the code. Each side is the judge of the other.
import { generateKeyPairSync } from 'node:crypto';
import { createNodeClient, dpop, fapi2 } from '@oidc-rp/node';
import { demoConfig, JARM_FAULTS, type ServerConfig } from '@oidc-rp/reference-server';
import { completeLogin, createTestServer, type TestServer } from '@oidc-rp/reference-server/testing';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const REDIRECT = 'http://127.0.0.1:3000/callback';
const SECRET = 'jarm-interop-client-secret-of-some-length';

describe('@oidc-rp/node against oidc-provider with JARM', () => {
  let op: RunningOidcProvider;
  let fapi: RunningOidcProvider;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'ms-k1' } as JsonWebKey & { kid: string };
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'ms-k1', alg: 'ES256', use: 'sig' } as Record<string, unknown>;

  beforeAll(async () => {
    op = await startOidcProvider(
      [{ client_id: 'rp', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [REDIRECT], grant_types: ['authorization_code'] }],
      { jarm: true },
    );
    fapi = await startOidcProvider(
      [
        {
          client_id: 'fapi-rp',
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicJwk] },
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code'],
          dpop_bound_access_tokens: true,
          request_object_signing_alg: 'ES256',
        },
      ],
      // FAPI 2.0 Message Signing: signed request objects required beside JARM.
      { fapi2: true, jarm: true, requestObjects: { requireSigned: true } },
    );
  });
  afterAll(async () => {
    await op?.close();
    await fapi?.close();
  });

  it('discovery offers JARM; responseMode "jwt" logs in with a query.jwt response', async () => {
    const rp = createNodeClient({ issuer: op.issuer, clientId: 'rp', clientSecret: SECRET, redirectUri: REDIRECT, scope: 'openid email', responseMode: 'jwt' });
    expect((await rp.getProvider()).response_modes_supported).toEqual(expect.arrayContaining(['query.jwt', 'form_post.jwt', 'jwt']));
    const { url, transaction } = await rp.startLogin();
    expect(url.searchParams.get('response_mode')).toBe('query.jwt');
    const callback = await op.signIn(url);
    if (callback.type !== 'redirect') throw new Error('expected a redirect');
    expect([...new URL(callback.location).searchParams.keys()]).toEqual(['response']);
    const tokens = await rp.finishLogin(callback.location, transaction);
    expect(tokens.claims).toMatchObject({ sub: 'alice', iss: op.issuer });
  });

  it('form_post.jwt: the posted response is verified and redeemed', async () => {
    const rp = createNodeClient({ issuer: op.issuer, clientId: 'rp', clientSecret: SECRET, redirectUri: REDIRECT, scope: 'openid', responseMode: 'form_post.jwt' });
    const { url, transaction } = await rp.startLogin();
    const callback = await op.signIn(url);
    if (callback.type !== 'form_post') throw new Error('expected a form_post');
    expect([...callback.body.keys()]).toEqual(['response']);
    expect((await rp.finishLogin(callback.body, transaction)).claims?.sub).toBe('alice');
  });

  it("another client's JARM response from the same provider is refused (aud) before the code is redeemed", async () => {
    const rp = createNodeClient({ issuer: op.issuer, clientId: 'rp', clientSecret: SECRET, redirectUri: REDIRECT, scope: 'openid', responseMode: 'jwt' });
    const { url } = await rp.startLogin();
    const callback = await op.signIn(url);
    if (callback.type !== 'redirect') throw new Error('expected a redirect');
    const other = createNodeClient({ issuer: op.issuer, clientId: 'someone-else', clientSecret: SECRET, redirectUri: REDIRECT, scope: 'openid', responseMode: 'jwt' });
    const { transaction } = await other.startLogin();
    await expect(other.finishLogin(callback.location, transaction)).rejects.toMatchObject({ code: 'jarm_aud_mismatch' });
  });

  it('fapi2({ messageSigning: true }): a pushed signed request object (required) asking query.jwt, a PS256 response JWT, DPoP-bound tokens', async () => {
    const rp = createNodeClient(fapi2({ issuer: fapi.issuer, clientId: 'fapi-rp', privateKey: privateJwk, dpop: await dpop(), redirectUri: REDIRECT, scope: 'openid email', messageSigning: true }));
    const { url, transaction } = await rp.startLogin();
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const callback = await fapi.signIn(url);
    if (callback.type !== 'redirect') throw new Error('expected a redirect');
    const response = new URL(callback.location).searchParams.get('response') ?? '';
    expect(JSON.parse(Buffer.from(response.split('.')[0] ?? '', 'base64url').toString()).alg).toBe('PS256');
    const tokens = await rp.finishLogin(callback.location, transaction);
    expect(tokens).toMatchObject({ tokenType: 'DPoP', claims: { sub: 'alice' } });
  });
});

describe("openid-client v6 judges the reference server's JARM responses", () => {
  let op: TestServer;
  let tokenRequests = 0;
  const clientIds = ['jarm-rp', ...JARM_FAULTS];

  function jarmConfig(): ServerConfig {
    const config = demoConfig();
    const tenant = config.tenants[0];
    if (!tenant) throw new Error('demo config without a tenant');
    tenant.profile = 'standard';
    for (const client_id of clientIds) {
      tenant.clients?.push({
        client_id,
        client_secret: SECRET,
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'],
        scopes: ['openid', 'email'],
        skip_consent: true,
        ...(client_id === 'jarm-rp' ? {} : { fault: client_id as (typeof JARM_FAULTS)[number] }),
      });
    }
    return config;
  }

  beforeAll(async () => {
    op = await createTestServer({ config: jarmConfig(), listen: true });
  });
  afterAll(() => op?.close());

  async function configFor(clientId: string) {
    return client.discovery(new URL(op.issuer), clientId, SECRET, undefined, {
      execute: [client.allowInsecureRequests, client.useJwtResponseMode],
      // Counts the code exchanges openid-client makes.
      [client.customFetch]: (url: string, init: client.CustomFetchOptions) => {
        if (url.endsWith('/token')) tokenRequests++;
        return fetch(url, init as RequestInit);
      },
    });
  }

  async function login(clientId: string) {
    const config = await configFor(clientId);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce: client.randomNonce(),
    });
    expect(url.searchParams.get('response_mode')).toBe('jwt');
    const result = await completeLogin(url);
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    return { config, callback: new URL(result.location), checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: url.searchParams.get('nonce') ?? '' } };
  }

  it('accepts a healthy response (signature, iss, aud, exp, state) and redeems its code', async () => {
    const { config, callback, checks } = await login('jarm-rp');
    expect([...callback.searchParams.keys()]).toEqual(['response']);
    const before = tokenRequests;
    const tokens = await client.authorizationCodeGrant(config, callback, checks);
    expect(tokens.claims()?.sub).toBe('alice');
    expect(tokenRequests).toBe(before + 1); // the counter the fault rows rely on sees the exchange
  });

  it.each(JARM_FAULTS)('refuses %s before any token request', async (fault) => {
    const { config, callback, checks } = await login(fault);
    const before = tokenRequests;
    await expect(client.authorizationCodeGrant(config, callback, checks)).rejects.toThrow();
    expect(tokenRequests).toBe(before);
  });
});
