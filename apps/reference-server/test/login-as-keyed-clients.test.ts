// loginAs for the clients of FAPI-style tests: a client that authenticates with private_key_jwt
// (the test passes its private key) or client_secret_jwt, a client that must push its requests
// (PAR, per client or tenant), and a client_secret_post client of the contract profile. Each
// signs in through the real endpoints, authenticated the way it is registered.
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ClientConfig, demoConfig, type ServerConfig } from '../src/index';
import { createTestServer } from '../src/testing';
import { demoTenant, WEB_REDIRECT } from './helpers';

let privateJwk: JWK;
let publicJwk: JWK;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  privateJwk = { ...(await exportJWK(privateKey)), kid: 'fapi-1' };
  publicJwk = { ...(await exportJWK(publicKey)), kid: 'fapi-1' };
});

const base = { redirect_uris: [WEB_REDIRECT], scopes: ['openid', 'email'] } satisfies Partial<ClientConfig>;

function withClients(...clients: ClientConfig[]): ServerConfig {
  const config = demoConfig();
  demoTenant(config).clients?.push(...clients);
  return config;
}

describe('loginAs with keyed and PAR clients', () => {
  it('a private_key_jwt client that requires PAR: pushed with an assertion, authorize carries client_id and request_uri only, the code exchanged with an assertion', async () => {
    const fapi: ClientConfig = { client_id: 'fapi', ...base, jwks: { keys: [publicJwk as Record<string, unknown>] }, token_endpoint_auth_method: 'private_key_jwt', require_pushed_authorization_requests: true };
    await using op = await createTestServer({ config: withClients(fapi), listen: true });
    const { claims, tokens } = await op.loginAs('alice', { client: 'fapi', clientKey: privateJwk as JsonWebKey });
    expect(claims).toMatchObject({ sub: 'alice', aud: 'fapi', email: 'alice@example.com' });
    expect(tokens.access_token).toEqual(expect.any(String));

    const [push] = op.server.requests({ path: '/oauth/par' });
    expect(push).toMatchObject({ status: 201, client_id: 'fapi', params: { client_assertion: '[redacted]' } });
    expect(push?.authorization).toBeUndefined();
    const [authorize] = op.server.requests({ path: '/oidc/authorize' });
    expect(Object.keys(authorize?.params ?? {}).sort()).toEqual(['client_id', 'request_uri']);
    const [exchange] = op.server.requests({ path: '/oidc/token' });
    expect(exchange).toMatchObject({ status: 200, grant_type: 'authorization_code', params: { client_assertion: '[redacted]' } });
  });

  it('a private_key_jwt client with a CryptoKey (RSA-PSS: PS256 from the key), on a server clock moved 10 minutes ahead', async () => {
    const { privateKey, publicKey } = await generateKeyPair('PS256');
    const rsa = { client_id: 'rsa', ...base, jwks: { keys: [(await exportJWK(publicKey)) as Record<string, unknown>] } };
    await using op = await createTestServer({ config: withClients(rsa) });
    // An assertion on the real clock would be expired for the server: it must use the server's.
    await op.server.control.clock.advance(600);
    const { claims } = await op.loginAs('alice', { client: 'rsa', clientKey: privateKey });
    expect(claims.sub).toBe('alice');
    expect(op.server.requests({ path: '/oidc/token' })).toEqual([expect.objectContaining({ status: 200, params: expect.objectContaining({ client_assertion: '[redacted]' }) })]);
  });

  it('a client_secret_jwt client needs nothing more than a secret client: the assertion is keyed with its secret', async () => {
    const hmac: ClientConfig = { client_id: 'hmac', ...base, client_secret: 'hmac-client-secret-of-more-than-32-bytes-0123', token_endpoint_auth_method: 'client_secret_jwt' };
    await using op = await createTestServer({ config: withClients(hmac) });
    expect((await op.loginAs('alice', { client: 'hmac' })).claims.aud).toBe('hmac');
    const [exchange] = op.server.requests({ path: '/oidc/token' });
    expect(exchange).toMatchObject({ status: 200, params: { client_assertion: '[redacted]' } });
    expect(exchange?.authorization).toBeUndefined();
  });

  it('a tenant that requires PAR: the demo web client (secret in Basic) pushes; par: true pushes for a client that need not', async () => {
    const config = demoConfig();
    demoTenant(config).require_pushed_authorization_requests = true;
    await using op = await createTestServer({ config });
    expect((await op.loginAs('alice', { client: 'web' })).claims.sub).toBe('alice');
    expect(op.server.requests({ path: '/oauth/par' })).toEqual([expect.objectContaining({ status: 201, authorization: 'basic' })]);

    await using plain = await createTestServer();
    await plain.loginAs('alice', { client: 'spa', par: true });
    expect(plain.server.requests({ path: '/oauth/par' })).toEqual([expect.objectContaining({ status: 201, client_id: 'spa' })]);
    await plain.loginAs('alice', { client: 'spa' });
    expect(plain.server.requests({ path: '/oauth/par' })).toHaveLength(1);
  });

  it('a client_secret_post client of the contract profile: the secret in the body, so no PKCE (the contract takes one or the other)', async () => {
    const post: ClientConfig = { client_id: 'post', ...base, client_secret: 'post-client-secret-0123456789abcdef', token_endpoint_auth_method: 'client_secret_post' };
    await using op = await createTestServer({ config: withClients(post) });
    expect((await op.loginAs('alice', { client: 'post' })).claims.aud).toBe('post');
    expect(op.server.requests({ path: '/oidc/token' })).toEqual([expect.objectContaining({ status: 200, params: expect.objectContaining({ client_secret: '[redacted]' }) })]);
  });

  it('a private_key_jwt client without clientKey, or with its public key, is refused before anything is sent, naming what to pass', async () => {
    const fapi = { client_id: 'fapi', ...base, jwks: { keys: [publicJwk as Record<string, unknown>] }, require_pushed_authorization_requests: true };
    await using op = await createTestServer({ config: withClients(fapi) });
    await expect(op.loginAs('alice', { client: 'fapi' })).rejects.toThrow(/private_key_jwt: pass its private key, loginAs\(username, \{ client: 'fapi', clientKey \}\)/);
    await expect(op.loginAs('alice', { client: 'fapi', clientKey: publicJwk as JsonWebKey })).rejects.toThrow(/clientKey must be the private key of client "fapi"/);
    expect(op.server.requests({ path: '/oauth/par' })).toEqual([]);
    expect(op.server.requests({ path: '/oidc/authorize' })).toEqual([]);
  });

  it('another key than the registered one is refused by the server, and loginAs says so', async () => {
    const fapi = { client_id: 'fapi', ...base, jwks: { keys: [publicJwk as Record<string, unknown>] } };
    await using op = await createTestServer({ config: withClients(fapi) });
    const other = await generateKeyPair('ES256');
    await expect(op.loginAs('alice', { client: 'fapi', clientKey: other.privateKey })).rejects.toThrow(/code exchange failed with 401 invalid_client/);
  });
});
