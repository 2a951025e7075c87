/**
 * oidc-provider (a certified OpenID Provider) in this process on 127.0.0.1, port 0, with the
 * same clients and user as the reference server's interoperability tenant, and a driver for
 * its development sign-in and consent pages (a person's part of the flow, not the SDK's).
 */
import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CookieJar } from '@oidc-rp/reference-server/testing';
import Provider, { errors } from 'oidc-provider';
import { decodeHtml, formAction, walk } from './browser-walk';

export interface InteropClient {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method: 'client_secret_post' | 'client_secret_basic' | 'none' | 'private_key_jwt';
  /** Public keys of a `private_key_jwt` client. */
  jwks?: { keys: Record<string, unknown>[] };
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
  grant_types: string[];
  /** Default `['code']`. */
  response_types?: string[];
  /** RFC 9449 10: true makes every access token of this client DPoP-bound (a Bearer request is refused). */
  dpop_bound_access_tokens?: boolean;
  /** Back-Channel Logout 1.0 (needs the `backchannelLogout` option): where logout tokens go. */
  backchannel_logout_uri?: string;
  /** Logout tokens carry `sid`. */
  backchannel_logout_session_required?: boolean;
  /** JARM (needs the `jarm` option): the algorithm of this client's response JWTs. */
  authorization_signed_response_alg?: string;
  /** RFC 9101 (needs the `requestObjects` option): the algorithm of the client's request objects. */
  request_object_signing_alg?: string;
  /** OIDC Core 5.3.2 (needs the `jwtUserinfo` option): userinfo as a JWT signed with this algorithm. */
  userinfo_signed_response_alg?: string;
}

/** How a person's browser meets the provider: what the provider sent back to the client. */
export type Callback = { type: 'redirect'; location: string } | { type: 'form_post'; action: string; body: URLSearchParams };

export interface RunningOidcProvider {
  issuer: string;
  /** Signs alice in on the provider's pages (reusing `cookies` for SSO); what it sends the browser back with. */
  signIn(authorizeUrl: string | URL, cookies?: CookieJar): Promise<Callback>;
  /** Visits the end-session URL with the browser's cookies and confirms; where the provider sends the browser. */
  signOut(endSessionUrl: string | URL, cookies: CookieJar): Promise<string>;
  close(): Promise<void>;
}

/** A provider configuration other than oidc-provider's defaults. */
export interface OidcProviderOptions {
  /** `token_endpoint_auth_methods_supported`; default oidc-provider's list. */
  clientAuthMethods?: string[];
  /** false: no RFC 9207 `iss` in any authorization response, and none advertised. Default true. */
  issParameter?: boolean;
  /**
   * true: oidc-provider's own refresh-token policy, OpenID Connect Core 11 (a refresh token only
   * for `offline_access`, which it grants only on a request with `prompt=consent`). Default
   * false: a refresh token for every client allowed the grant.
   */
  standardRefreshTokens?: boolean;
  /** DPoP server nonces (RFC 9449 8, 9): `requireNonce` makes every proof need one. Default: DPoP without nonces. */
  dpop?: { requireNonce: boolean };
  /** Pushed authorization requests (RFC 9126); `required`: every authorize request must be pushed. Default: oidc-provider's (offered, not required). */
  par?: { required: boolean };
  /** oidc-provider's FAPI 2.0 security profile (its `fapi` feature), with DPoP and PAR required. */
  fapi2?: boolean;
  /** JARM (oidc-provider's `jwtResponseModes` feature): response modes jwt, query.jwt, fragment.jwt, form_post.jwt. Default off. */
  jarm?: boolean;
  /** RFC 7662 introspection (oidc-provider's `introspection` feature). Default off. */
  introspection?: boolean;
  /** oidc-provider's `backchannelLogout` feature (OpenID Connect Back-Channel Logout 1.0). Default off. */
  backchannelLogout?: boolean;
  /** Dynamic client registration (RFC 7591) with management (RFC 7592): open, or behind `initialAccessToken`. Default off. */
  registration?: { initialAccessToken?: string };
  /**
   * RFC 8707 resource indicators: these resources get JWT access tokens with `api.read`; any other
   * is `invalid_target`. Default off.
   */
  resourceIndicators?: { resources: string[] };
  /** Request objects (RFC 9101, oidc-provider's `requestObjects` feature); `requireSigned`: every request must carry a signed one. Default off. */
  requestObjects?: { requireSigned: boolean };
  /** Signed userinfo (oidc-provider's `jwtUserinfo` feature). Default off. */
  jwtUserinfo?: boolean;
}

/** The provider's outgoing requests: without its SSRF dispatcher for 127.0.0.1 only. */
function loopbackFetch(url: URL | string, init: RequestInit & { dispatcher?: unknown }): Promise<Response> {
  const { dispatcher: _ssrfCheck, ...withoutCheck } = init;
  return fetch(url, new URL(url).hostname === '127.0.0.1' ? withoutCheck : init);
}

const ALICE = { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com', email_verified: true };

/**
 * Starts oidc-provider with `clients` registered.
 *
 * @example
 * const op = await startOidcProvider([{ client_id: 'rp', ... }], { clientAuthMethods: ['client_secret_basic'] });
 */
// One RSA signing key for every provider this process starts: each is its own issuer, no test here
// is about the provider's key generation, and an RSA-2048 pair costs a tenth of a second of CPU or more.
let providerKey: KeyObject | undefined;

export async function startOidcProvider(clients: InteropClient[], options: OidcProviderOptions = {}): Promise<RunningOidcProvider> {
  providerKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const privateKey = providerKey;
  // FAPI 2.0 allows PS256, ES256 and EdDSA only: the same RSA key, signing with PS256.
  const signingKey = { ...privateKey.export({ format: 'jwk' }), alg: options.fapi2 ? 'PS256' : 'RS256', use: 'sig', kid: options.fapi2 ? 'interop-ps256' : 'interop-rs256' };
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      response_types: ['code'],
      ...(options.fapi2 ? { id_token_signed_response_alg: 'PS256' } : {}),
      ...(options.fapi2 && options.jarm ? { authorization_signed_response_alg: 'PS256' } : {}),
      ...c,
      scope: 'openid profile email offline_access api.read',
    })),
    jwks: { keys: [signingKey] },
    cookies: { keys: ['interop-cookie-signing-key-of-some-length'] },
    scopes: ['openid', 'offline_access', 'profile', 'email', 'api.read'],
    claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'] },
    findAccount: async (_ctx, sub) => (sub === ALICE.sub ? { accountId: sub, claims: async () => ({ ...ALICE }) } : undefined),
    features: {
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      ...(options.introspection ? { introspection: { enabled: true } } : {}),
      ...(options.jarm ? { jwtResponseModes: { enabled: true } } : {}),
      ...(options.backchannelLogout ? { backchannelLogout: { enabled: true } } : {}),
      ...(options.registration
        ? { registration: { enabled: true, initialAccessToken: options.registration.initialAccessToken ?? false }, registrationManagement: { enabled: true, rotateRegistrationAccessToken: false } }
        : {}),
      ...(options.resourceIndicators ? { resourceIndicators: resourceIndicators(options.resourceIndicators.resources) } : {}),
      ...(options.dpop ? { dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => options.dpop?.requireNonce === true } } : {}),
      ...(options.par || options.fapi2 ? { pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: options.par?.required === true || options.fapi2 === true } } : {}),
      ...(options.fapi2 ? { fapi: { enabled: true, profile: '2.0' }, dPoP: { enabled: true } } : {}),
      ...(options.requestObjects ? { requestObjects: { enabled: true, requireSignedRequestObject: options.requestObjects.requireSigned } } : {}),
      ...(options.jwtUserinfo ? { jwtUserinfo: { enabled: true } } : {}),
    },
    ...(options.fapi2 ? { enabledJWA: { authorizationSigningAlgValues: ['PS256', 'ES256', 'EdDSA'], clientAuthSigningAlgValues: ['PS256', 'ES256', 'EdDSA'], idTokenSigningAlgValues: ['PS256', 'ES256', 'EdDSA'] } } : {}),
    ...(options.clientAuthMethods ? { clientAuthMethods: options.clientAuthMethods } : {}),
    // oidc-provider refuses outgoing requests to special-use addresses (SSRF protection); the
    // apps these tests deliver logout tokens to listen on 127.0.0.1, so that check is left out
    // for loopback URLs here, and only here. (Its `fetch` option is missing from its types.)
    ...({ fetch: loopbackFetch } as Record<string, unknown>),
    // A refresh token for every client allowed the grant (it otherwise needs offline_access with prompt=consent).
    ...(options.standardRefreshTokens ? {} : { issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) => client.grantTypeAllowed('refresh_token') }),
    ttl: { AccessToken: 3600, AuthorizationCode: 60, ClientCredentials: 600, Grant: 3600, IdToken: 3600, Interaction: 600, RefreshToken: 86_400, Session: 3600 },
  });
  // Hybrid clients are implicit-grant clients, which oidc-provider wants on https and off
  // localhost; these tests run on 127.0.0.1 over http (oidc-provider's documented override).
  const schema = provider.Client.Schema.prototype;
  const invalidate = schema.invalidate;
  schema.invalidate = function (message: string, code?: string) {
    if (code === 'implicit-force-https' || code === 'implicit-forbid-localhost') return;
    invalidate.call(this, message, code);
  };
  if (options.issParameter === false) {
    provider.on('authorization.success', (_ctx, out) => {
      delete out.iss;
    });
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.path === '/.well-known/openid-configuration' && ctx.body && typeof ctx.body === 'object') {
        delete (ctx.body as Record<string, unknown>).authorization_response_iss_parameter_supported;
      }
    });
  }
  server.on('request', provider.callback());

  return {
    issuer,
    signIn: (url, cookies) => signIn(issuer, String(url), cookies ?? new CookieJar()),
    signOut: (url, cookies) => signOut(issuer, String(url), cookies),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** oidc-provider's resourceIndicators feature allowing `resources` only (JWT access tokens), the granted one used at the code exchange. */
function resourceIndicators(resources: string[]) {
  return {
    enabled: true,
    defaultResource: () => undefined,
    useGrantedResource: () => true,
    getResourceServerInfo: (_ctx: unknown, resource: string) => {
      if (!resources.includes(resource)) throw new errors.InvalidTarget();
      return { scope: 'api.read', audience: resource, accessTokenFormat: 'jwt' as const };
    },
  };
}

/** Follows redirects and fills the development login and consent forms, with cookies. */
async function signIn(issuer: string, authorizeUrl: string, cookies: CookieJar): Promise<Callback> {
  const onProvider = (url: URL) => url.origin === new URL(issuer).origin;
  const end = await walk<Callback>(new URL(authorizeUrl), cookies, onProvider, (page, status, at) => {
    const action = formAction(page, at);
    // form_post: an auto-submitting form aimed at the client.
    if ((status === 200 || status === 400) && action && !onProvider(action)) {
      const inputs = [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)];
      return { result: { type: 'form_post', action: action.href, body: new URLSearchParams(inputs.map((m) => [decodeHtml(m[1] ?? ''), decodeHtml(m[2] ?? '')])) } };
    }
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
    if (status !== 200 || !action || !prompt) throw new Error(`oidc-provider answered ${status} without a sign-in form`);
    return { submit: action, form: new URLSearchParams(prompt === 'login' ? { prompt, login: ALICE.sub, password: 'any' } : { prompt }) };
  }, 12);
  return 'redirect' in end ? { type: 'redirect', location: end.redirect } : end.result;
}

/** The end-session page asks "Do you want to sign-out?": the person says yes. */
async function signOut(issuer: string, endSessionUrl: string, cookies: CookieJar): Promise<string> {
  const end = await walk<never>(new URL(endSessionUrl), cookies, (url) => url.origin === new URL(issuer).origin, (page, status, at) => {
    const action = formAction(page, at, /<form id="op.logoutForm"[^>]*action="([^"]+)"/);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1];
    if (status !== 200 || !action || !xsrf) throw new Error(`oidc-provider answered ${status} without a sign-out form`);
    return { submit: action, form: new URLSearchParams({ xsrf, logout: 'yes' }) };
  }, 6);
  if (!('redirect' in end)) throw new Error('oidc-provider did not redirect after the sign-out');
  return end.redirect;
}
