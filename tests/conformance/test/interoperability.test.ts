// The same SDK calling code against two providers: the reference server (one token endpoint
// per grant family) and oidc-provider, a certified OpenID Provider (one token endpoint). Each
// flow runs through @oidc-rp/node and through core, over real HTTP on 127.0.0.1; every ID
// token is validated on the way.
import {
  buildAuthorizationRequest,
  clearJwksCache,
  clientCredentials,
  completeAuthorization,
  discover,
  fetchUserInfo,
  refreshTokens,
  validateIdToken,
  type ClientConfig,
  type ProviderMetadata,
} from '@oidc-rp/core';
import { createNodeClient, type NodeClientOptions } from '@oidc-rp/node';
import { createReferenceServer, type Listening, type ServerConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOidcProvider, type InteropClient, type RunningOidcProvider } from './support/oidc-provider';

const NODE_REDIRECT = 'http://127.0.0.1:3000/callback';
const PUBLIC_REDIRECT = 'http://127.0.0.1:5173/callback';
const SECRET = 'interop-client-secret-0123456789';
const SCOPE = 'openid profile email offline_access';

// One registration, given to both providers.
const CLIENTS: InteropClient[] = [
  { client_id: 'rp-post', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_post', redirect_uris: [NODE_REDIRECT], grant_types: ['authorization_code', 'refresh_token', 'client_credentials'] },
  { client_id: 'rp-basic', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [NODE_REDIRECT], grant_types: ['authorization_code', 'refresh_token', 'client_credentials'] },
  { client_id: 'rp-public', token_endpoint_auth_method: 'none', redirect_uris: [PUBLIC_REDIRECT], grant_types: ['authorization_code', 'refresh_token'] },
];

function referenceConfig(): ServerConfig {
  return {
    tenants: [
      {
        id: 'interop',
        users: [{ username: 'alice', password: 'wonderland', claims: { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com', email_verified: true } }],
        clients: CLIENTS.map((c) => ({
          client_id: c.client_id,
          ...(c.client_secret ? { client_secret: c.client_secret } : {}),
          redirect_uris: c.redirect_uris,
          grant_types: c.grant_types as ('authorization_code' | 'refresh_token' | 'client_credentials')[],
          scopes: ['openid', 'profile', 'email', 'offline_access', 'api.read'],
          skip_consent: true,
        })),
      },
    ],
  };
}

/** A provider under test: where it is, and how a person signs in there (not SDK code). */
interface Target {
  name: string;
  issuer: string;
  signIn(authorizeUrl: URL): Promise<string>;
  /** Token endpoint URLs the SDK must pick, per grant. */
  tokenEndpoints: { code: string; refresh: string; clientCredentials: string };
}

const targets: Target[] = [];
let reference: Listening;
let oidcProvider: RunningOidcProvider;
/** Every POST the SDK sent, by URL and grant_type. */
const posts: Array<{ url: string; grant: string | null; basic: boolean; secretInBody: boolean; verifier: boolean }> = [];

const recordingFetch: typeof fetch = async (input, init) => {
  if (init?.method === 'POST' && init.body instanceof URLSearchParams) {
    const headers = new Headers(init.headers);
    posts.push({
      url: String(input),
      grant: init.body.get('grant_type'),
      basic: headers.get('authorization')?.startsWith('Basic ') ?? false,
      secretInBody: init.body.has('client_secret'),
      verifier: init.body.has('code_verifier'),
    });
  }
  return fetch(input, init);
};

beforeAll(async () => {
  const server = await createReferenceServer(referenceConfig(), { logger: false });
  reference = await server.listen({ port: 0, host: '127.0.0.1' });
  oidcProvider = await startOidcProvider(CLIENTS);
  const referenceIssuer = `${reference.origin}/interop`;
  targets.push(
    {
      name: 'reference server',
      issuer: referenceIssuer,
      signIn: async (url) => {
        const result = await completeLogin(url);
        if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
        return result.location;
      },
      tokenEndpoints: { code: `${referenceIssuer}/oidc/token`, refresh: `${referenceIssuer}/oauth/token`, clientCredentials: `${referenceIssuer}/oauth/token` },
    },
    {
      name: 'oidc-provider',
      issuer: oidcProvider.issuer,
      signIn: (url) => oidcProvider.signIn(url),
      tokenEndpoints: { code: `${oidcProvider.issuer}/token`, refresh: `${oidcProvider.issuer}/token`, clientCredentials: `${oidcProvider.issuer}/token` },
    },
  );
});
afterAll(async () => {
  await Promise.all([reference?.close(), oidcProvider?.close()]);
});
beforeEach(() => {
  clearJwksCache();
  posts.length = 0;
});

const grantPosts = (grant: string) => posts.filter((p) => p.grant === grant);

// ---------------------------------------------------------------------------------------
// The calling code: written once, run against both providers.

function nodeClient(issuer: string, options: Partial<NodeClientOptions> = {}) {
  return createNodeClient({
    issuer,
    clientId: 'rp-post',
    clientSecret: SECRET,
    redirectUri: NODE_REDIRECT,
    scope: SCOPE,
    cookieSecret: 'interop-cookie-secret-of-at-least-32-chars',
    fetch: recordingFetch,
    ...options,
  });
}

/** A backend login: startLogin → the person signs in → finishLogin at the callback. */
async function nodeLogin(target: Target, options: Partial<NodeClientOptions> = {}) {
  const client = nodeClient(target.issuer, options);
  const { url, transaction } = await client.startLogin();
  const tokens = await client.finishLogin(await target.signIn(url), transaction);
  return { client, tokens, transaction };
}

/** A public client through core alone: PKCE, no secret. */
async function coreLogin(target: Target, provider: ProviderMetadata, client: ClientConfig, redirectUri: string) {
  const { url, transaction } = await buildAuthorizationRequest({ provider, clientId: client.clientId, redirectUri, scope: SCOPE });
  const input = await target.signIn(url);
  return { tokens: await completeAuthorization({ provider, client, input, transaction, http: { fetch: recordingFetch } }), transaction };
}

// Scope claims (email...) may be in the ID token (reference server) or only at userinfo
// (oidc-provider, when an access token is issued too): both are right, so they are checked at userinfo.
function expectAlice(claims: Record<string, unknown> | undefined, target: Target, clientId: string, nonce: string | undefined): void {
  expect(claims).toMatchObject({ iss: target.issuer, sub: 'alice', aud: clientId, nonce });
}

describe.each(['reference server', 'oidc-provider'])('interoperability with %s', (name) => {
  const target = () => {
    const found = targets.find((t) => t.name === name);
    if (!found) throw new Error(`${name} did not start`);
    return found;
  };

  it('discovery: the issuer matches and the endpoints the SDK needs are there', async () => {
    const t = target();
    const provider = await discover(t.issuer, { fetch: recordingFetch });
    expect(provider).toMatchObject({ issuer: t.issuer, token_endpoint: t.tokenEndpoints.code, jwks_uri: expect.any(String), userinfo_endpoint: expect.any(String) });
    expect(await nodeClient(t.issuer).getProvider()).toEqual(provider);
  });

  it('code + PKCE, public client, through core: ID token validated, then refresh and userinfo', async () => {
    const t = target();
    const provider = await discover(t.issuer);
    const client = { clientId: 'rp-public' };
    const { tokens, transaction } = await coreLogin(t, provider, client, PUBLIC_REDIRECT);
    expectAlice(tokens.claims, t, 'rp-public', transaction.nonce);
    const exchange = grantPosts('authorization_code');
    expect(exchange).toEqual([{ url: t.tokenEndpoints.code, grant: 'authorization_code', basic: false, secretInBody: false, verifier: true }]);

    // The ID token stands on its own too.
    expect(await validateIdToken(tokens.idToken ?? '', { provider, clientId: 'rp-public', nonce: transaction.nonce })).toMatchObject({ sub: 'alice' });

    const refreshed = await refreshTokens({ provider, client, refreshToken: tokens.refreshToken ?? '', expectedSubject: 'alice', http: { fetch: recordingFetch } });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(grantPosts('refresh_token').map((p) => p.url)).toEqual([t.tokenEndpoints.refresh]);
    expect(await fetchUserInfo({ provider, accessToken: refreshed.accessToken, expectedSubject: 'alice' })).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  });

  it('code + PKCE, confidential client, through @oidc-rp/node with its defaults', async () => {
    const t = target();
    const { tokens, transaction } = await nodeLogin(t);
    expectAlice(tokens.claims, t, 'rp-post', transaction.nonce);
    const [exchange] = grantPosts('authorization_code');
    expect(exchange).toMatchObject({ url: t.tokenEndpoints.code, verifier: true });
    // The reference server takes the verifier instead of the secret; a standard provider gets both.
    expect(exchange?.secretInBody).toBe(t.name === 'oidc-provider');
  });

  it.each([
    ['client_secret_post', 'rp-post', {}],
    ['client_secret_basic', 'rp-basic', { authMethod: 'client_secret_basic' as const }],
  ])('code + client secret (%s) through @oidc-rp/node: login, refresh, userinfo', async (method, clientId, extra) => {
    const t = target();
    const { client, tokens, transaction } = await nodeLogin(t, { clientId, pkce: false, ...extra });
    expectAlice(tokens.claims, t, clientId, transaction.nonce);
    expect(grantPosts('authorization_code')).toEqual([
      { url: t.tokenEndpoints.code, grant: 'authorization_code', basic: method === 'client_secret_basic', secretInBody: method === 'client_secret_post', verifier: false },
    ]);

    const refreshed = await client.refresh(tokens.refreshToken ?? '', { expectedSubject: 'alice' });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.refreshToken).toEqual(expect.any(String));
    expect(grantPosts('refresh_token')).toEqual([expect.objectContaining({ url: t.tokenEndpoints.refresh, basic: method === 'client_secret_basic' })]);
    // A provider that returns an ID token on refresh (oidc-provider) had it validated for alice.
    if (refreshed.claims) expect(refreshed.claims.sub).toBe('alice');

    expect(await client.getUserInfo(refreshed.accessToken, { expectedSubject: 'alice' })).toMatchObject({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com' });
  });

  it.each([
    ['client_secret_post', 'rp-post'],
    ['client_secret_basic', 'rp-basic'],
  ] as const)('code + client secret (%s) through core', async (authMethod, clientId) => {
    const t = target();
    const provider = await discover(t.issuer);
    const client: ClientConfig = { clientId, clientSecret: SECRET, authMethod };
    const { url, transaction } = await buildAuthorizationRequest({ provider, clientId, redirectUri: NODE_REDIRECT, scope: SCOPE, pkce: false });
    const tokens = await completeAuthorization({ provider, client, input: await t.signIn(url), transaction, http: { fetch: recordingFetch } });
    expectAlice(tokens.claims, t, clientId, transaction.nonce);
    const basic = authMethod === 'client_secret_basic';
    expect(grantPosts('authorization_code')).toEqual([{ url: t.tokenEndpoints.code, grant: 'authorization_code', basic, secretInBody: !basic, verifier: false }]);
  });

  it('client credentials through @oidc-rp/node (cached) and through core', async () => {
    const t = target();
    const client = nodeClient(t.issuer);
    const first = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(first.accessToken).toEqual(expect.any(String));
    expect((await client.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toBe(first.accessToken);
    expect(grantPosts('client_credentials').map((p) => p.url)).toEqual([t.tokenEndpoints.clientCredentials]);

    const provider = await discover(t.issuer);
    const direct = await clientCredentials({ provider, client: { clientId: 'rp-basic', clientSecret: SECRET, authMethod: 'client_secret_basic' }, scope: 'api.read', http: { fetch: recordingFetch } });
    expect(direct.accessToken).not.toBe(first.accessToken);
    expect(direct.expiresAt).toEqual(expect.any(Number));
  });
});
