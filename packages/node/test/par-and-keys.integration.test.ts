// Pushed authorization requests and private_key_jwt against the reference server over real
// HTTP: the login starts with a push when asked (or when the provider requires it), the browser
// carries client_id and request_uri only, and a client with a key and no secret logs in,
// refreshes and gets client-credentials tokens.
import { demoConfig } from '@oidc-rp/reference-server';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeClientOptions, createNodeClient, privateKeyJwt } from '../src/index';
import { type RunningServer, loginThroughForms, recordingFetch, startReferenceServer } from './support/reference-server';

let server: RunningServer;
let strict: RunningServer;
let privateJwk: JsonWebKey & { kid: string };
const REDIRECT = 'http://127.0.0.1:3000/callback';

function keyedConfig(requirePar: boolean, publicJwk: Record<string, unknown>) {
  const config = demoConfig();
  const tenant = config.tenants[0]!;
  tenant.require_pushed_authorization_requests = requirePar;
  tenant.clients?.push(
    {
      client_id: 'web-key',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'offline_access'],
      jwks: { keys: [publicJwk] },
      token_endpoint_auth_method: 'private_key_jwt',
    },
    { client_id: 'batch-key', grant_types: ['client_credentials'], scopes: ['api.read'], jwks: { keys: [publicJwk] } },
  );
  return config;
}

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  privateJwk = { ...(await exportJWK(privateKey)), kid: 'k1' } as JsonWebKey & { kid: string };
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1' };
  server = await startReferenceServer(keyedConfig(false, publicJwk));
  strict = await startReferenceServer(keyedConfig(true, publicJwk));
});
afterAll(async () => {
  await server?.close();
  await strict?.close();
});

function keyed(on: RunningServer, extra: Partial<NodeClientOptions> = {}): NodeClientOptions {
  return { issuer: on.issuer, clientId: 'web-key', clientAuth: privateKeyJwt(privateJwk), redirectUri: REDIRECT, scope: 'openid profile offline_access', ...extra };
}

function redirectOf(result: Awaited<ReturnType<typeof loginThroughForms>>['result']): string {
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  return result.location;
}

describe('PAR in the login', () => {
  it('par: true pushes the request (client secret in Basic); the browser gets client_id and request_uri only', async () => {
    const recorder = recordingFetch();
    const client = createNodeClient({ issuer: server.issuer, clientId: 'web', clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', redirectUri: REDIRECT, par: true, fetch: recorder.fetch });
    const { url, transaction, result } = await loginThroughForms(client);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const push = recorder.posts.find((p) => p.url === `${server.issuer}/oauth/par`);
    expect(push?.body.get('state')).toBe(transaction.state);
    expect(push?.body.get('code_challenge_method')).toBe('S256');
    expect(push?.authorization).toMatch(/^Basic /);
    const tokens = await client.finishLogin(redirectOf(result), transaction);
    expect(tokens.claims?.sub).toBe('alice');
  });

  it('without par, a provider that does not require it gets the plain redirect', async () => {
    const client = createNodeClient({ issuer: server.issuer, clientId: 'web', clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', redirectUri: REDIRECT });
    const { url } = await client.startLogin();
    expect(url.searchParams.has('request_uri')).toBe(false);
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
  });

  it('a provider that requires PAR gets a push without par set, and par: false is refused before any redirect', async () => {
    const { url } = await createNodeClient(keyed(strict)).startLogin();
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    await expect(createNodeClient(keyed(strict, { par: false })).startLogin()).rejects.toMatchObject({ code: 'invalid_options' });
  });
});

describe('private_key_jwt', () => {
  it('a client with a key and no secret logs in through PAR with PKCE, and refreshes', async () => {
    const recorder = recordingFetch();
    const client = createNodeClient(keyed(strict, { fetch: recorder.fetch }));
    const { transaction, result } = await loginThroughForms(client);
    const tokens = await client.finishLogin(redirectOf(result), transaction);
    expect(tokens.claims?.sub).toBe('alice');
    expect(tokens.refreshToken).toEqual(expect.any(String));
    const exchange = recorder.posts.find((p) => p.body.get('grant_type') === 'authorization_code');
    expect(exchange?.body.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(exchange?.body.get('code_verifier')).toBe(transaction.codeVerifier);
    expect(exchange?.body.has('client_secret')).toBe(false);
    const refreshed = await client.refresh(tokens.refreshToken as string);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
  });

  it('gets client-credentials tokens; a key the provider does not hold for the client is invalid_client', async () => {
    const client = createNodeClient({ issuer: server.issuer, clientId: 'batch-key', clientAuth: privateKeyJwt(privateJwk), grants: ['client_credentials'] });
    expect((await client.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toEqual(expect.any(String));
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const stranger = createNodeClient({
      issuer: server.issuer,
      clientId: 'batch-key',
      clientAuth: privateKeyJwt(await exportJWK(privateKey)),
      grants: ['client_credentials'],
      retry: false,
    });
    await expect(stranger.getClientCredentialsToken({ scope: 'api.read' })).rejects.toMatchObject({ code: 'token_endpoint_error', error: 'invalid_client' });
  });

  it('refuses clientAuth beside clientSecret, and neither', () => {
    expect(() => createNodeClient({ ...keyed(server), clientSecret: 'x' })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    const { clientAuth: _, ...withoutAuth } = keyed(server);
    expect(() => createNodeClient(withoutAuth)).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(() => createNodeClient({ ...keyed(server), par: 'yes' as unknown as boolean })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
