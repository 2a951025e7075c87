// An agent that starts from an API's URL, over real HTTP on 127.0.0.1: the API's 401 names its
// RFC 9728 metadata, the metadata names the reference server, the agent registers itself there
// (RFC 7591), logs in with PKCE and the API's resource (RFC 8707), calls the API, and refreshes
// for it. Then every refusal: an API whose metadata names another resource, an authorization
// server the API does not list, a plain-http issuer off loopback, metadata on another origin, no
// metadata at all, a registration the server refuses, an answer that changed the redirect URIs.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClientRegistrationError,
  createNodeClient,
  deleteClientRegistration,
  discoverApiAuthorization,
  readClientRegistration,
  registerClient,
  updateClientRegistration,
} from '../src/index';
import { jwtAccessTokenVerifier, protectedResourceMetadata, requireAccessToken, withAccessToken } from '../src/api/index';
import { type RunningServer, startReferenceServer } from './support/reference-server';
import { serveFetch } from './support/serve-fetch';

const REDIRECT = 'http://127.0.0.1:8976/callback'; // the agent's loopback callback (RFC 8252), never listened on

let op: RunningServer;
let api: { origin: string; close(): Promise<void> };
let hostile: { origin: string; close(): Promise<void>; answer: (path: string) => { status: number; headers?: Record<string, string>; body?: unknown } };

beforeAll(async () => {
  let handler: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  api = await serveFetch((request) => handler(request));
  const resource = `${api.origin}/api`;
  const config = demoConfig();
  const tenant = config.tenants[0]!;
  tenant.access_token_format = 'jwt';
  tenant.registration = { access: 'open', scopes: ['openid', 'offline_access', 'api.read'], resources: [resource] };
  op = await startReferenceServer(config);

  const verifier = jwtAccessTokenVerifier({ issuer: op.issuer, jwksUri: `${op.issuer}/oidc/jwks`, audience: resource });
  const metadata = protectedResourceMetadata({ resource, authorizationServers: [op.issuer], scopesSupported: ['api.read'], verifier });
  const guard = requireAccessToken({ verifier, origin: api.origin, scope: 'api.read', resourceMetadata: metadata.url });
  const orders = withAccessToken(guard, async (_request, token) => Response.json({ sub: token.claims.sub, client: token.claims.client_id }));
  handler = async (request) => (new URL(request.url).pathname === metadata.path ? metadata.handle() : orders(request));

  // A second API whose answers each test sets: the hostile or broken cases.
  let answer: typeof hostile.answer = () => ({ status: 404 });
  const server = createServer((req, res) => {
    const { status, headers = {}, body } = answer(req.url ?? '/');
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body === undefined ? '' : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hostile = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
    set answer(fn) {
      answer = fn;
    },
    get answer() {
      return answer;
    },
  };
});
afterAll(async () => {
  await hostile?.close();
  await api?.close();
  await op?.close();
});

describe('from an API URL to a call', () => {
  it('discovers the authorization server from the 401, registers, logs in with PKCE and the resource, calls the API and refreshes for it', async () => {
    const found = await discoverApiAuthorization(`${api.origin}/api/orders`);
    expect(found.resource).toBe(`${api.origin}/api`);
    expect(found.provider.issuer).toBe(op.issuer);
    expect(found.provider.registration_endpoint).toBe(`${op.issuer}/oauth/register`);
    expect(found.scopes).toEqual(['api.read']);

    const registered = await registerClient({
      provider: found.provider,
      metadata: { client_name: 'orders agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid offline_access api.read' },
    });
    expect(registered.clientSecret).toEqual(expect.any(String));
    expect(registered.registrationAccessToken).toEqual(expect.any(String));

    const agent = createNodeClient({
      provider: found.provider,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret!,
      authMethod: 'client_secret_basic',
      redirectUri: REDIRECT,
      scope: ['openid', 'offline_access', ...(found.scopes ?? [])],
      grants: ['authorization_code', 'refresh_token'],
    });
    const { url, transaction } = await agent.startLogin({ extra: { resource: found.resource } });
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const result = await completeLogin(url);
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    const tokens = await agent.finishLogin(new URL(result.location), transaction);

    const call = (token: string) => fetch(`${api.origin}/api/orders`, { headers: { Authorization: `Bearer ${token}` } });
    const answer = await call(tokens.accessToken);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ sub: 'alice', client: registered.clientId });
    const refreshed = await agent.refresh(tokens.refreshToken!);
    expect((await call(refreshed.accessToken)).status).toBe(200);

    // RFC 7592: the agent reads, renames and finally deletes its registration.
    expect((await readClientRegistration(registered)).metadata.client_name).toBe('orders agent');
    const renamed = await updateClientRegistration(registered, { ...registered.metadata, client_name: 'renamed agent' });
    expect(renamed.metadata.client_name).toBe('renamed agent');
    await deleteClientRegistration(registered);
    await expect(readClientRegistration(registered)).rejects.toMatchObject({ code: 'client_registration_failed', error: 'invalid_token', status: 401 });
    await expect(agent.refresh(refreshed.refreshToken!)).rejects.toMatchObject({ code: 'token_endpoint_error', error: 'invalid_client' });
  });

  it('a token for another resource is refused by the API, and the login names why when the resource is not the client’s', async () => {
    const found = await discoverApiAuthorization(`${api.origin}/api/orders`);
    const registered = await registerClient({ provider: found.provider, metadata: { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' } });
    const agent = createNodeClient({ provider: found.provider, clientId: registered.clientId, clientSecret: registered.clientSecret!, redirectUri: REDIRECT });
    const { url, transaction } = await agent.startLogin({ extra: { resource: 'https://payroll.example/' } });
    const result = await completeLogin(url);
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    const refused = await agent.finishLogin(new URL(result.location), transaction).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'authorization_error', error: 'invalid_target' });
    expect(String((refused as Error).message)).toContain('https://payroll.example/');
  });
});

describe('refusals while finding the authorization server', () => {
  const metadataUrl = () => `${hostile.origin}/.well-known/oauth-protected-resource/api`;
  const challenge = (url = metadataUrl()) => ({ status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${url}"` } });

  it('metadata naming another resource than the API called: resource_metadata_mismatch', async () => {
    hostile.answer = (path) => (path.startsWith('/.well-known') ? { status: 200, body: { resource: `${api.origin}/api`, authorization_servers: [op.issuer] } } : challenge());
    await expect(discoverApiAuthorization(`${hostile.origin}/api/orders`)).rejects.toMatchObject({ code: 'resource_metadata_mismatch' });
    hostile.answer = (path) => (path.startsWith('/.well-known') ? { status: 200, body: { resource: `${hostile.origin}/admin`, authorization_servers: [op.issuer] } } : challenge());
    await expect(discoverApiAuthorization(`${hostile.origin}/api/orders`)).rejects.toMatchObject({ code: 'resource_metadata_mismatch' });
  });

  it('an authorization server the API does not list: authorization_server_not_listed', async () => {
    hostile.answer = (path) => (path.startsWith('/.well-known') ? { status: 200, body: { resource: `${hostile.origin}/api`, authorization_servers: [op.issuer] } } : challenge());
    await expect(discoverApiAuthorization(`${hostile.origin}/api/orders`, { issuer: 'https://evil.example' })).rejects.toMatchObject({ code: 'authorization_server_not_listed' });
    const found = await discoverApiAuthorization(`${hostile.origin}/api/orders`, { issuer: op.issuer });
    expect(found.provider.issuer).toBe(op.issuer);
  });

  it('a plain-http issuer off loopback: authorization_server_insecure, before any request to it', async () => {
    hostile.answer = (path) => (path.startsWith('/.well-known') ? { status: 200, body: { resource: `${hostile.origin}/api`, authorization_servers: ['http://login.example.com'] } } : challenge());
    await expect(discoverApiAuthorization(`${hostile.origin}/api/orders`)).rejects.toMatchObject({ code: 'authorization_server_insecure' });
  });

  it('a resource_metadata URL on another origin: resource_metadata_mismatch', async () => {
    hostile.answer = () => challenge(`${api.origin}/.well-known/oauth-protected-resource/api`);
    await expect(discoverApiAuthorization(`${hostile.origin}/api/orders`)).rejects.toMatchObject({ code: 'resource_metadata_mismatch', message: expect.stringContaining('own origin') });
  });

  it('an API with neither a challenge nor metadata: resource_challenge_missing; broken metadata: resource_metadata_invalid', async () => {
    hostile.answer = () => ({ status: 404 });
    await expect(discoverApiAuthorization(`${hostile.origin}/api/orders`)).rejects.toMatchObject({ code: 'resource_challenge_missing' });
    hostile.answer = (path) => (path.startsWith('/.well-known') ? { status: 200, body: { resource: `${hostile.origin}/api`, authorization_servers: [] } } : challenge());
    await expect(discoverApiAuthorization(`${hostile.origin}/api/orders`)).rejects.toMatchObject({ code: 'resource_metadata_invalid' });
  });

  it('finds the metadata at the well-known URL when the API sends no challenge', async () => {
    hostile.answer = (path) => (path === '/.well-known/oauth-protected-resource/api/orders' ? { status: 200, body: { resource: `${hostile.origin}/api/orders`, authorization_servers: [op.issuer] } } : { status: 404 });
    const found = await discoverApiAuthorization(`${hostile.origin}/api/orders`);
    expect(found.resource).toBe(`${hostile.origin}/api/orders`);
  });
});

describe('registration refusals', () => {
  it('a redirect URI the server refuses is a ClientRegistrationError with the RFC error', async () => {
    const provider = (await discoverApiAuthorization(`${api.origin}/api/orders`)).provider;
    const refused = await registerClient({ provider, metadata: { redirect_uris: ['http://agent.example/cb'], token_endpoint_auth_method: 'none' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClientRegistrationError);
    expect(refused).toMatchObject({ code: 'client_registration_failed', error: 'invalid_redirect_uri', status: 400 });
    await expect(registerClient({ provider, metadata: { redirect_uris: [REDIRECT], grant_types: ['implicit'] } })).rejects.toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('a provider without a registration endpoint: registration_not_supported, nothing sent', async () => {
    const provider = { ...(await discoverApiAuthorization(`${api.origin}/api/orders`)).provider, registration_endpoint: undefined };
    await expect(registerClient({ provider, metadata: { redirect_uris: [REDIRECT] } })).rejects.toMatchObject({ code: 'registration_not_supported' });
  });

  it('an answer that changed the redirect URIs, or lacks the secret its method needs: client_registration_invalid', async () => {
    hostile.answer = () => ({ status: 201, body: { client_id: 'x', redirect_uris: ['https://evil.example/cb'], token_endpoint_auth_method: 'none' } });
    await expect(registerClient({ provider: `${hostile.origin}/register`, metadata: { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' } })).rejects.toMatchObject({ code: 'client_registration_invalid' });
    hostile.answer = () => ({ status: 201, body: { client_id: 'x', token_endpoint_auth_method: 'client_secret_basic' } });
    await expect(registerClient({ provider: `${hostile.origin}/register`, metadata: { redirect_uris: [REDIRECT] } })).rejects.toMatchObject({ code: 'client_registration_invalid' });
  });
});
