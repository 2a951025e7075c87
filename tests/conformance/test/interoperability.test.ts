// The same SDK calling code against three providers: the reference server (one token endpoint
// per grant family), oidc-provider (a certified OpenID Provider, one token endpoint) with its
// defaults, and oidc-provider configured with only client_secret_basic and no RFC 9207 `iss`.
// Each flow runs through @oidc-rp/node and through core, over real HTTP on 127.0.0.1; every ID
// token is validated on the way.
import {
  buildAuthorizationRequest,
  clearJwksCache,
  clientCredentials,
  completeAuthorization,
  discover,
  fetchUserInfo,
  clientSecretBasic,
  clientSecretPost,
  none,
  refreshTokens,
  validateIdToken,
  type ClientConfig,
  type ProviderMetadata,
} from '@oidc-rp/core';
import { AuthorizationResponseError, createNodeClient, type NodeClientOptions } from '@oidc-rp/node';
import { createReferenceServer, type Listening, type ServerConfig } from '@oidc-rp/reference-server';
import { completeLogin, CookieJar } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeHtml, formAction, walk } from './support/browser-walk';
import { type Callback, startOidcProvider, type InteropClient, type RunningOidcProvider } from './support/oidc-provider';

const NODE_REDIRECT = 'http://127.0.0.1:3000/callback';
const SIGNED_OUT = 'http://127.0.0.1:3000/signed-out';
const PUBLIC_REDIRECT = 'http://127.0.0.1:5173/callback';
const SECRET = 'interop-client-secret-0123456789';
const SCOPE = 'openid profile email offline_access';

// One registration, given to every provider (the basic-only one gets the client it can hold).
const CONFIDENTIAL = { redirect_uris: [NODE_REDIRECT], post_logout_redirect_uris: [SIGNED_OUT], response_types: ['code', 'code id_token'], grant_types: ['authorization_code', 'refresh_token', 'client_credentials'] };
const CLIENTS: InteropClient[] = [
  { client_id: 'rp-post', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_post', ...CONFIDENTIAL },
  { client_id: 'rp-basic', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_basic', ...CONFIDENTIAL },
  { client_id: 'rp-public', token_endpoint_auth_method: 'none', redirect_uris: [PUBLIC_REDIRECT], grant_types: ['authorization_code', 'refresh_token'] },
];
const BASIC_ONLY_CLIENTS = CLIENTS.filter((c) => c.token_endpoint_auth_method === 'client_secret_basic');

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
          post_logout_redirect_uris: c.post_logout_redirect_uris ?? [],
          ...(c.response_types ? { response_types: c.response_types as ('code' | 'code id_token')[] } : {}),
          grant_types: c.grant_types as ('authorization_code' | 'refresh_token' | 'client_credentials')[],
          scopes: ['openid', 'profile', 'email', 'offline_access', 'api.read'],
          skip_consent: true,
        })),
      },
    ],
  };
}

/** A provider under test: where it is, and how a person signs in and out there (not SDK code). */
interface Target {
  name: string;
  issuer: string;
  /** The person signs in (with the browser's cookies, for SSO); what the provider sends back. */
  browserSignIn(authorizeUrl: URL, cookies?: CookieJar): Promise<Callback>;
  /** The person visits the end-session URL (and confirms if asked); where the provider sends the browser. */
  browserSignOut(endSessionUrl: URL, cookies: CookieJar): Promise<string>;
  /** Token endpoint URLs the SDK must pick, per grant. */
  tokenEndpoints: { code: string; refresh: string; clientCredentials: string };
  /** The confidential client registered there with the method the SDK picks by default. */
  defaultClientId: string;
}

/** The redirect the code and query flows come back with. */
async function signIn(target: Target, url: URL): Promise<string> {
  const callback = await target.browserSignIn(url);
  if (callback.type !== 'redirect') throw new Error(`expected a redirect, got ${callback.type}`);
  return callback.location;
}

/** What the app's callback route receives, as finishLogin takes it. */
function callbackInput(callback: Callback): string | URLSearchParams {
  return callback.type === 'redirect' ? callback.location : callback.body;
}

/** The reference server's end session, followed like a browser (a confirmation form, if any, is submitted). */
async function referenceSignOut(issuer: string, endSessionUrl: URL, cookies: CookieJar): Promise<string> {
  const end = await walk<never>(endSessionUrl, cookies, (url) => url.href.startsWith(issuer), (page, status, at) => {
    const action = formAction(page, at);
    if (!action) throw new Error(`the reference server answered ${status} without a redirect or a form`);
    const form = new URLSearchParams([...page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1] ?? '', decodeHtml(m[2] ?? '')]));
    const button = /<button[^>]*name="([^"]+)"[^>]*value="([^"]*)"/.exec(page);
    if (button) form.set(button[1] ?? '', button[2] ?? '');
    return { submit: action, form };
  }, 6);
  if (!('redirect' in end)) throw new Error('the reference server did not redirect after the sign-out');
  return end.redirect;
}

const targets: Target[] = [];
let reference: Listening;
let oidcProvider: RunningOidcProvider;
let basicOnlyProvider: RunningOidcProvider;
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
  basicOnlyProvider = await startOidcProvider(BASIC_ONLY_CLIENTS, { clientAuthMethods: ['client_secret_basic'], issParameter: false });
  const referenceIssuer = `${reference.origin}/interop`;
  const oidcProviderTarget = (name: string, op: RunningOidcProvider, defaultClientId: string): Target => ({
    name,
    issuer: op.issuer,
    browserSignIn: (url, cookies) => op.signIn(url, cookies),
    browserSignOut: (url, cookies) => op.signOut(url, cookies),
    tokenEndpoints: { code: `${op.issuer}/token`, refresh: `${op.issuer}/token`, clientCredentials: `${op.issuer}/token` },
    defaultClientId,
  });
  targets.push(
    {
      name: 'reference server',
      issuer: referenceIssuer,
      browserSignIn: (url, cookies) => completeLogin(url, cookies ? { cookies } : {}),
      browserSignOut: (url, cookies) => referenceSignOut(referenceIssuer, url, cookies),
      tokenEndpoints: { code: `${referenceIssuer}/oidc/token`, refresh: `${referenceIssuer}/oauth/token`, clientCredentials: `${referenceIssuer}/oauth/token` },
      // Its discovery lists both secret methods; the reference server accepts either for any client.
      defaultClientId: 'rp-post',
    },
    oidcProviderTarget('oidc-provider', oidcProvider, 'rp-post'),
    oidcProviderTarget('oidc-provider (client_secret_basic only, no iss)', basicOnlyProvider, 'rp-basic'),
  );
});
afterAll(async () => {
  await Promise.all([reference?.close(), oidcProvider?.close(), basicOnlyProvider?.close()]);
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
    cookieSecret: 'interop-kHDztzWCvlg9CH7lLDQAr4Lkodgno-IQ',
    fetch: recordingFetch,
    ...options,
  });
}

/** A backend login: startLogin → the person signs in → finishLogin at the callback. */
async function nodeLogin(target: Target, options: Partial<NodeClientOptions> = {}) {
  const client = nodeClient(target.issuer, options);
  const { url, transaction } = await client.startLogin();
  const tokens = await client.finishLogin(await signIn(target, url), transaction);
  return { client, tokens, transaction };
}

/** A public client through core alone: PKCE, no secret. */
async function coreLogin(target: Target, provider: ProviderMetadata, client: ClientConfig, redirectUri: string) {
  const { url, transaction } = await buildAuthorizationRequest({ provider, clientId: client.clientId, redirectUri, scope: SCOPE });
  const input = await signIn(target, url);
  return { tokens: await completeAuthorization({ provider, client, clientAuth: none(), input, transaction, http: { fetch: recordingFetch } }), transaction };
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

    const refreshed = await refreshTokens({ provider, client, clientAuth: none(), refreshToken: tokens.refreshToken ?? '', expectedSubject: 'alice', http: { fetch: recordingFetch } });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(grantPosts('refresh_token').map((p) => p.url)).toEqual([t.tokenEndpoints.refresh]);
    expect(await fetchUserInfo({ provider, accessToken: refreshed.accessToken, expectedSubject: 'alice' })).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  });

  it('code + PKCE, confidential client, through @oidc-rp/node with its defaults', async () => {
    const t = target();
    const { tokens, transaction } = await nodeLogin(t);
    expectAlice(tokens.claims, t, 'rp-post', transaction.nonce);
    const [exchange] = grantPosts('authorization_code');
    // Never the verifier alone: the reference server (secret XOR verifier in the body) gets HTTP
    // Basic beside it, as its discovery allows; a standard provider gets the secret in the body.
    const basic = t.name === 'reference server';
    expect(exchange).toEqual({ url: t.tokenEndpoints.code, grant: 'authorization_code', basic, secretInBody: !basic, verifier: true });
  });

  it.each([
    ['client_secret_post', 'rp-post', { authMethod: 'client_secret_post' as const }],
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
    const client: ClientConfig = { clientId };
    const clientAuth = authMethod === 'client_secret_basic' ? clientSecretBasic(SECRET) : clientSecretPost(SECRET);
    const { url, transaction } = await buildAuthorizationRequest({ provider, clientId, redirectUri: NODE_REDIRECT, scope: SCOPE, pkce: false });
    const tokens = await completeAuthorization({ provider, client, clientAuth, input: await signIn(t, url), transaction, http: { fetch: recordingFetch } });
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
    const direct = await clientCredentials({ provider, client: { clientId: 'rp-basic' }, clientAuth: clientSecretBasic(SECRET), scope: 'api.read', http: { fetch: recordingFetch } });
    expect(direct.accessToken).not.toBe(first.accessToken);
    expect(direct.expiresAt).toEqual(expect.any(Number));
  });
});

// ---------------------------------------------------------------------------------------
// Every backend flow, with @oidc-rp/node's defaults, against all three providers: the same
// calling code; only the registered client differs (the one registered with the method the
// provider's discovery makes the SDK pick).

describe.each(['reference server', 'oidc-provider', 'oidc-provider (client_secret_basic only, no iss)'])('backend flows with %s', (name) => {
  const target = () => {
    const found = targets.find((t) => t.name === name);
    if (!found) throw new Error(`${name} did not start`);
    return found;
  };
  const backend = (t: Target, options: Partial<NodeClientOptions> = {}) => nodeClient(t.issuer, { clientId: t.defaultClientId, ...options });

  it('code + PKCE with the defaults: the client authentication the provider advertises, never the verifier alone', async () => {
    const t = target();
    const client = backend(t);
    const { url, transaction } = await client.startLogin();
    const tokens = await client.finishLogin(await signIn(t, url), transaction);
    expectAlice(tokens.claims, t, t.defaultClientId, transaction.nonce);
    const [exchange] = grantPosts('authorization_code');
    expect(exchange?.verifier).toBe(true);
    expect(exchange?.basic || exchange?.secretInBody).toBe(true);
    // A provider that lists only client_secret_basic gets Basic (and would refuse client_secret_post).
    if (t.defaultClientId === 'rp-basic') expect(exchange).toMatchObject({ basic: true, secretInBody: false });
  });

  it('hybrid (code id_token) by form_post: front-channel ID token (c_hash) validated, code redeemed, then refresh and userinfo', async () => {
    const t = target();
    const client = backend(t);
    const { url, transaction } = await client.startLogin({ responseType: 'code id_token' });
    expect(url.searchParams.get('response_mode')).toBe('form_post');
    const callback = await t.browserSignIn(url);
    expect(callback.type).toBe('form_post');
    if (callback.type === 'form_post') {
      expect(callback.body.has('id_token')).toBe(true);
      // oidc-provider leaves iss out when the response carries an ID token (RFC 9207 2.4).
      if (t.name !== 'reference server') expect(callback.body.has('iss')).toBe(false);
    }
    const tokens = await client.finishLogin(callbackInput(callback), transaction);
    expectAlice(tokens.claims, t, t.defaultClientId, transaction.nonce);
    expect(grantPosts('authorization_code').map((p) => p.url)).toEqual([t.tokenEndpoints.code]);

    const refreshed = await client.refresh(tokens.refreshToken ?? '', { expectedSubject: 'alice' });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(grantPosts('refresh_token').map((p) => p.url)).toEqual([t.tokenEndpoints.refresh]);
    expect(await client.getUserInfo(refreshed.accessToken, { expectedSubject: 'alice' })).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  });

  it('code by form_post: the POST body is the callback', async () => {
    const t = target();
    const client = backend(t, { responseMode: 'form_post' });
    const { url, transaction } = await client.startLogin();
    const callback = await t.browserSignIn(url);
    expect(callback.type).toBe('form_post');
    const tokens = await client.finishLogin(callbackInput(callback), transaction);
    expectAlice(tokens.claims, t, t.defaultClientId, transaction.nonce);
  });

  it('refresh twice in a row: each refresh token is used once, the ID token (if any) is alice', async () => {
    const t = target();
    const { client, tokens } = await nodeLogin(t, { clientId: t.defaultClientId });
    const first = await client.refresh(tokens.refreshToken ?? '', { expectedSubject: 'alice' });
    const second = await client.refresh(first.refreshToken ?? '', { expectedSubject: 'alice' });
    expect(new Set([tokens.accessToken, first.accessToken, second.accessToken]).size).toBe(3);
    for (const refreshed of [first, second]) if (refreshed.claims) expect(refreshed.claims.sub).toBe('alice');
  });

  it('RP-initiated logout: endSessionUrl ends the provider session, back at post_logout_redirect_uri with state; prompt=none then says login_required', async () => {
    const t = target();
    const client = backend(t);
    const cookies = new CookieJar();
    const { url, transaction } = await client.startLogin();
    const callback = await t.browserSignIn(url, cookies);
    const tokens = await client.finishLogin(callbackInput(callback), transaction);

    // While signed in, prompt=none completes silently.
    const silent = await client.startLogin({ prompt: 'none' });
    const silentTokens = await client.finishLogin(callbackInput(await t.browserSignIn(silent.url, cookies)), silent.transaction);
    expect(silentTokens.claims?.sub).toBe('alice');

    const endSession = await client.endSessionUrl({ idTokenHint: tokens.idToken ?? '', postLogoutRedirectUri: SIGNED_OUT, state: 'after-logout-1' });
    expect(endSession).toBeInstanceOf(URL);
    const landed = new URL(await t.browserSignOut(endSession as URL, cookies));
    expect(`${landed.origin}${landed.pathname}`).toBe(SIGNED_OUT);
    expect(landed.searchParams.get('state')).toBe('after-logout-1');

    const after = await client.startLogin({ prompt: 'none' });
    const refused = await client.finishLogin(callbackInput(await t.browserSignIn(after.url, cookies)), after.transaction).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthorizationResponseError);
    expect(refused).toMatchObject({ code: 'authorization_error', error: 'login_required' });
  });
});
