// Dynamic client registration (RFC 7591/7592), resource indicators (RFC 8707) and discovery from
// an API (RFC 9728 client side, RFC 8414 fallback to OIDC discovery) against oidc-provider, a
// certified OpenID Provider, over real HTTP on 127.0.0.1: the SDK registers a client, logs in for
// an API's resource, refreshes for it, manages the registration; the provider is the judge of
// every request, and its refusals come back typed.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ClientRegistrationError,
  createNodeClient,
  deleteClientRegistration,
  discover,
  discoverApiAuthorization,
  discoverAuthorizationServer,
  readClientRegistration,
  registerClient,
  updateClientRegistration,
} from '@oidc-rp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const REDIRECT = 'http://127.0.0.1:8976/callback';
/** A JWT's claims, read without checking (the provider issued it to us over loopback). */
const decodeJwt = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
const INITIAL = 'an-initial-access-token-for-interop-0123456789';
let op: RunningOidcProvider;
let api: { origin: string; close(): Promise<void> };
let resource = '';

beforeAll(async () => {
  // The API only answers its challenge and its RFC 9728 metadata: which server, for which resource.
  const server = createServer((req, res) => {
    const metadataPath = '/.well-known/oauth-protected-resource/api';
    if (req.url === metadataPath) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource, authorization_servers: [op.issuer], scopes_supported: ['api.read'] }));
      return;
    }
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${resource.replace('/api', '')}${metadataPath}"` }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api = { origin, close: () => new Promise((r) => server.close(() => r())) };
  resource = `${origin}/api`;
  op = await startOidcProvider([], { registration: { initialAccessToken: INITIAL }, resourceIndicators: { resources: [resource] } });
});
afterAll(async () => {
  await op?.close();
  await api?.close();
});

const metadata = { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic', client_name: 'interop agent' };

describe('against oidc-provider', () => {
  it('finds the provider from the API (OIDC discovery when there is no RFC 8414 document)', async () => {
    const found = await discoverApiAuthorization(`${resource}/orders`);
    expect(found.resource).toBe(resource);
    expect(found.provider.issuer).toBe(op.issuer);
    expect((await discoverAuthorizationServer(op.issuer)).registration_endpoint).toBe(found.provider.registration_endpoint);
  });

  it('registers with the initial access token, logs in for the resource, refreshes for it, and manages the registration', async () => {
    const provider = await discover(op.issuer);
    const refused = await registerClient({ provider, metadata }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClientRegistrationError);
    expect(refused).toMatchObject({ status: 401, error: 'invalid_token' });

    const registered = await registerClient({ provider, metadata, initialAccessToken: INITIAL });
    expect(registered.clientSecret).toEqual(expect.any(String));
    const client = createNodeClient({
      provider,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret!,
      authMethod: 'client_secret_basic',
      redirectUri: REDIRECT,
      scope: 'openid offline_access api.read',
      resources: [resource],
    });
    const { url, transaction } = await client.startLogin();
    expect(url.searchParams.getAll('resource')).toEqual([resource]);
    const callback = await op.signIn(url);
    if (callback.type !== 'redirect') throw new Error('expected a redirect');
    const tokens = await client.finishLogin(new URL(callback.location), transaction);
    expect(decodeJwt(tokens.accessToken).aud).toBe(resource);
    const refreshed = await client.refresh(tokens.refreshToken!, { resource });
    expect(decodeJwt(refreshed.accessToken)).toMatchObject({ aud: resource, client_id: registered.clientId });

    const renamed = await updateClientRegistration(registered, { ...metadata, client_name: 'renamed agent' });
    expect(renamed.metadata.client_name).toBe('renamed agent');
    expect((await readClientRegistration(registered)).metadata.client_name).toBe('renamed agent');
    await deleteClientRegistration(registered);
    await expect(readClientRegistration(registered)).rejects.toMatchObject({ code: 'client_registration_failed', status: 401 });
  });

  it('refuses a resource the provider does not serve: invalid_target, typed', async () => {
    const provider = await discover(op.issuer);
    const registered = await registerClient({ provider, metadata, initialAccessToken: INITIAL });
    const client = createNodeClient({ provider, clientId: registered.clientId, clientSecret: registered.clientSecret!, authMethod: 'client_secret_basic', redirectUri: REDIRECT, scope: 'openid', resources: ['https://payroll.example.com/'] });
    const { url, transaction } = await client.startLogin();
    // oidc-provider answers the authorize request itself with the error redirect.
    const callback = await op.signIn(url);
    if (callback.type !== 'redirect') throw new Error('expected a redirect');
    await expect(client.finishLogin(new URL(callback.location), transaction)).rejects.toMatchObject({ code: 'authorization_error', error: 'invalid_target' });
  });

  it('refuses metadata oidc-provider does not accept: invalid_redirect_uri or invalid_client_metadata', async () => {
    const provider = await discover(op.issuer);
    const refused = await registerClient({ provider, metadata: { ...metadata, redirect_uris: ['not a url'] }, initialAccessToken: INITIAL }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClientRegistrationError);
    expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain((refused as ClientRegistrationError).error);
  });
});
