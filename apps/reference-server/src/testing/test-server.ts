/**
 * The test preset: `createTestServer()` starts a server made for tests (fixed development keys,
 * no logging, no consent page) and `loginAs()` returns a signed-in user's tokens and validated
 * ID token claims through the real endpoints: authorize with PKCE, state and nonce (pushed first
 * when the client must use PAR), the login form, the code exchange with the client's own
 * authentication (secret, client assertion) and, when the client must use DPoP, a proof (tokens
 * bound to a key pair returned to the test). The ID token is checked with jose, never with the SDK.
 */
import { createLocalJWKSet, jwtVerify } from 'jose';
import { demoConfig } from '../config/demo';
import type { Client, Tenant, User } from '../config/model';
import { type ClientConfig, ConfigError, type ServerConfig, validateConfig } from '../config/schema';
import { randomToken, s256 } from '../crypto/secrets';
import { scopesReleasing, USER_SCOPES } from '../oauth/claims';
import { createReferenceServer, type ReferenceServer, tenantsOf } from '../server';
import { completeLogin, CookieJar } from './complete-login';
import { loginAuthMethod, loginClientAuth } from './login-client-auth';
import { dpopProof, type LoginAsDpop, loginDpopKey } from './login-dpop';

/** Options of {@link createTestServer}. */
export interface TestServerOptions {
  /** Default: the demo config (tenant `demo`, user `alice`, clients `spa`, `web`, `service`). */
  config?: ServerConfig;
  /** `true`: also listen on 127.0.0.1, port 0, and talk to it over real HTTP. Default false: in-process. */
  listen?: boolean;
  /** Clock in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /**
   * Sign with the fixed development keys shipped in the package (never for production; every
   * tenant must be `"development": true`). Default true; false generates keys.
   */
  developmentKeys?: boolean;
  /** Skip the consent page for every client. Default true. */
  skipConsent?: boolean;
  /**
   * Custom claims per scope, added to every tenant's `scope_claims`; each scope is also added to
   * the scopes of every client with a browser grant, so `loginAs` asks for it by default:
   * `createTestServer({ scopeClaims: { roles: ['roles'] } })` then
   * `loginAs('bob', { claims: { roles: ['admin'] } })` has `claims.roles`. Same rules as the
   * config's `scope_claims` (standard claims keep their standard scopes).
   */
  scopeClaims?: Record<string, string[]>;
}

/** Options of {@link TestServer.loginAs}. */
export interface LoginAsOptions {
  /** Default: the first client registered for the authorization_code grant. */
  client?: string;
  /**
   * Default: `openid` and every other scope of the client that releases claims (the standard
   * `profile`, `email`, `address`, `phone` and the tenant's `scope_claims`).
   */
  scope?: string;
  /**
   * Claims this user has from this login on: merged over a configured user's claims, or the
   * claims of a persona created on the fly when the username is unknown. Same rules as the
   * config file (any JSON; protocol claims refused).
   */
  claims?: Record<string, unknown>;
  /** Default: the first tenant. */
  tenant?: string;
  /** Default: the client's first redirect URI. */
  redirectUri?: string;
  /**
   * The client's private key (a JWK with `d`, or a `CryptoKey`), for a client registered with
   * keys (`jwks` or `jwks_uri`) that authenticates with `private_key_jwt`: `loginAs` signs its
   * client assertions with it (`kid` and `alg` from the JWK, else from the key's type). A
   * `client_secret_jwt` client needs nothing: its secret is in the config.
   */
  clientKey?: JsonWebKey | CryptoKey;
  /**
   * Push the authorization request (RFC 9126) first. Default: when the client or its tenant
   * requires it (`require_pushed_authorization_requests`).
   */
  par?: boolean;
  /**
   * Bind the tokens to a DPoP key (RFC 9449): `dpop_jkt` at authorize (or PAR) and a proof with
   * the code exchange, retried once with the server nonce on `use_dpop_nonce`. `true` makes an
   * ES256 key pair; a `CryptoKeyPair` is used as given. Default: when the client or its tenant
   * requires DPoP (`require_dpop`); `false` sends no proof even then (to see the refusal).
   */
  dpop?: boolean | CryptoKeyPair;
}

/** A token response of the code exchange. */
export interface TestTokens {
  access_token: string;
  token_type: string;
  id_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

/**
 * The validated claims of an ID token (declared here rather than taken from jose, whose types
 * are ESM-only and would break CommonJS consumers of this entry's declarations).
 *
 * @example
 * const { claims }: { claims: IdTokenClaims } = await op.loginAs('alice');
 */
export interface IdTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  nonce?: string;
  [claim: string]: unknown;
}

/** What {@link TestServer.loginAs} returns. */
export interface LoginAsResult {
  /** The token response, as the client received it. */
  tokens: TestTokens;
  /** The ID token's claims, after checking signature, `iss`, `aud`, `exp` and `nonce`. */
  claims: IdTokenClaims;
  /**
   * Present when the login used DPoP (`token_type` is then `DPoP`): the key pair the tokens are
   * bound to, its thumbprint, and the last server nonce. Sign the proofs of your API calls with
   * it, e.g. with {@link dpopProof}.
   */
  dpop?: LoginAsDpop;
}

/** A server for tests. `await using op = await createTestServer()` closes it at the end of the scope. */
export interface TestServer extends AsyncDisposable {
  /** The underlying server (in-process `fetch`, `rotateSigningKey`, ...). */
  server: ReferenceServer;
  /** `http://localhost` in-process, else `http://127.0.0.1:PORT`. */
  origin: string;
  /** The first tenant's issuer, `${origin}/${tenantId}`. */
  issuer: string;
  /** The issuer of a tenant. */
  issuerOf(tenantId: string): string;
  /** Sends a request to the server: in-process, or over HTTP when listening. */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /** Signs `username` in through the real endpoints and returns the tokens and validated claims. */
  loginAs(username: string, options?: LoginAsOptions): Promise<LoginAsResult>;
  /** Closes the listener, if any. */
  close(): Promise<void>;
}

const IN_PROCESS_ORIGIN = 'http://localhost';

/** The config with the consent page skipped for every client; the caller's object is left alone. */
function withoutConsent(config: ServerConfig): ServerConfig {
  return {
    ...config,
    tenants: config.tenants.map((t) => ({ ...t, clients: t.clients?.map((c) => ({ ...c, skip_consent: true })) })),
  };
}

/** Whether a client signs users in (and so may ask for claim-releasing scopes). */
function signsUsersIn(client: ClientConfig): boolean {
  const grants = client.grant_types ?? ['authorization_code'];
  return grants.includes('authorization_code') || grants.includes('implicit');
}

/** The config with `scopeClaims` merged into every tenant and their scopes granted to every sign-in client. */
function withScopeClaims(config: ServerConfig, scopeClaims: Record<string, string[]>): ServerConfig {
  const scopes = Object.keys(scopeClaims);
  return {
    ...config,
    tenants: config.tenants.map((t) => ({
      ...t,
      scope_claims: { ...t.scope_claims, ...scopeClaims },
      clients: t.clients?.map((c) => (signsUsersIn(c) ? { ...c, scopes: [...new Set([...(c.scopes ?? ['openid']), ...scopes])] } : c)),
    })),
  };
}

/**
 * Refuses claims that the login would silently drop: each given claim must be released by a
 * requested scope. The message names the scope to add and, when the client may not ask for it,
 * the config change; thrown before anything is changed on the server.
 */
function checkReleased(tenant: Tenant, client: Client, scope: string, claims: Record<string, unknown> | undefined): void {
  const requested = scope.split(' ');
  for (const claim of Object.keys(claims ?? {})) {
    if (claim === 'sub') continue;
    const releasing = scopesReleasing(tenant, claim);
    if (releasing.some((s) => requested.includes(s))) continue;
    const field = `claims.${claim}`;
    if (releasing.length === 0) {
      throw new ConfigError(
        field,
        `no scope of tenant "${tenant.id}" releases "${claim}", so the ID token would not carry it: map it to a scope, e.g. createTestServer({ scopeClaims: { ${claim}: ['${claim}'] } }) or "scope_claims": { "${claim}": ["${claim}"] } in the tenant's config`,
      );
    }
    const allowed = releasing.filter((s) => client.scopes.includes(s));
    const names = releasing.map((s) => `"${s}"`).join(' or ');
    if (allowed.length > 0) {
      throw new ConfigError(field, `"${claim}" is released by the scope ${names}, which the requested scope "${scope}" lacks: pass scope: '${scope} ${allowed[0]}'`);
    }
    throw new ConfigError(
      field,
      `"${claim}" is released by the scope ${names}, which client "${client.client_id}" may not ask for: add "${releasing[0]}" to the client's "scopes" in the config (createTestServer({ scopeClaims }) adds its scopes to every client), then pass scope: '${scope} ${releasing[0]}'`,
    );
  }
}

function tenantOf(server: ReferenceServer, id: string | undefined): Tenant {
  const tenants = tenantsOf(server);
  const entry = id === undefined ? tenants?.values().next().value : tenants?.get(id);
  if (!entry) throw new Error(`loginAs: there is no tenant "${id}" on this server`);
  return entry.tenant;
}

/**
 * The user `username` with `claims` merged in; created (a persona) when unknown. Stored through
 * the runtime control, so later runtime changes to users and clients keep it.
 */
async function persona(server: ReferenceServer, tenant: Tenant, username: string, claims: Record<string, unknown> | undefined, beforeSaving: () => void): Promise<User> {
  const existing = tenant.users.get(username);
  if (existing && claims === undefined) return existing;
  if (existing && claims?.sub !== undefined && claims.sub !== existing.claims.sub) {
    throw new ConfigError('claims.sub', `user "${username}" already has sub "${existing.claims.sub}"; a login cannot change it`);
  }
  const candidate = {
    username,
    password: existing?.password ?? randomToken(16),
    claims: { ...existing?.claims, ...claims },
  };
  let user: User | undefined;
  try {
    user = validateConfig({ tenants: [{ id: 'persona', users: [candidate] }] })[0]?.users.get(username);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.field.replace(/^tenants\[0\]\.users\[0\]\./, ''), error.message.replace(/^invalid config at \S+: /, ''));
    throw error;
  }
  if (!user) throw new Error(`loginAs: cannot create user "${username}"`);
  for (const other of tenant.users.values()) {
    if (other.username !== username && other.claims.sub === user.claims.sub) {
      throw new ConfigError('claims.sub', `sub "${user.claims.sub}" belongs to user "${other.username}"`);
    }
  }
  beforeSaving();
  const entry = { username, password: user.password, claims: user.claims };
  if (existing) await server.control.users.update(username, { claims: entry.claims }, { tenant: tenant.id });
  else await server.control.users.add(entry, { tenant: tenant.id });
  return user;
}

function defaultScope(tenant: Tenant, scopes: readonly string[]): string {
  const releasing = scopes.filter((s) => s !== 'openid' && s !== 'offline_access' && (USER_SCOPES.has(s) || tenant.scope_claims.has(s)));
  return ['openid', ...releasing].join(' ');
}

/**
 * Starts a server made for tests: the demo config (or yours), the fixed development signing
 * keys (the first ID token is signed at once), logging off, consent skipped. In-process by
 * default; `listen: true` serves 127.0.0.1 on a free port.
 *
 * @example
 * await using op = await createTestServer();
 * const { tokens, claims } = await op.loginAs('alice', { client: 'web', scope: 'openid email' });
 */
export async function createTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const given = options.config ?? demoConfig();
  const base = options.scopeClaims ? withScopeClaims(given, options.scopeClaims) : given;
  const config = options.skipConsent === false ? base : withoutConsent(base);
  const server = await createReferenceServer(config, {
    logger: false,
    developmentKeys: options.developmentKeys ?? true,
    ...(options.now ? { now: options.now } : {}),
  });
  const listening = options.listen ? await server.listen({ port: 0 }) : undefined;
  const origin = listening?.origin ?? IN_PROCESS_ORIGIN;
  const send = (request: Request): Promise<Response> => (listening ? fetch(request) : server.fetch(request));
  const issuerOf = (tenantId: string) => `${origin}/${tenantId}`;
  const first = tenantOf(server, undefined);

  async function loginAs(username: string, o: LoginAsOptions = {}): Promise<LoginAsResult> {
    const tenant = tenantOf(server, o.tenant);
    const issuer = issuerOf(tenant.id);
    const client = o.client === undefined
      ? [...tenant.clients.values()].find((c) => c.grant_types.includes('authorization_code'))
      : tenant.clients.get(o.client);
    if (!client) throw new Error(`loginAs: there is no client "${o.client ?? '(with the authorization_code grant)'}" in tenant "${tenant.id}"`);
    if (!client.response_types.includes('code')) throw new Error(`loginAs: client "${client.client_id}" is not registered for response_type "code"`);
    const redirectUri = o.redirectUri ?? client.redirect_uris[0] ?? '';
    const scope = o.scope ?? defaultScope(tenant, client.scopes);
    const user = await persona(server, tenant, username, o.claims, () => checkReleased(tenant, client, scope, o.claims));
    const method = loginAuthMethod(tenant, client, o.clientKey !== undefined);
    // Every request of the client authenticates with a fresh credential, on the server's clock.
    const serverSeconds = async () => Math.floor(Date.parse((await server.control.clock.get()).time) / 1000);
    const credentials = async () => loginClientAuth(method, client, { issuer, now: await serverSeconds(), key: o.clientKey });
    if (method === 'private_key_jwt' && o.clientKey === undefined) await credentials(); // says what to pass, before anything is sent
    const dpopWanted = o.dpop ?? (tenant.require_dpop || client.require_dpop);
    const dpop = dpopWanted === false ? undefined : await loginDpopKey(dpopWanted);
    const verifier = randomToken(32);
    const state = randomToken(16);
    const nonce = randomToken(16);
    // The contract profile takes a secret in the body or a verifier, never both: such a client skips PKCE.
    const pkce = !(method === 'client_secret_post' && tenant.profile !== 'standard');
    const request: Record<string, string> = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope,
      state,
      nonce,
      ...(pkce ? { code_challenge: s256(verifier), code_challenge_method: 'S256' } : {}),
      ...(dpop ? { dpop_jkt: dpop.jkt } : {}),
    };
    const authorize = new URL(`${issuer}/oidc/authorize`);
    const push = o.par ?? (tenant.require_pushed_authorization_requests || client.require_pushed_authorization_requests);
    if (push) {
      const { form, headers } = await credentials();
      const pushed = await send(
        new Request(`${issuer}/oauth/par`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ ...request, ...form }).toString(),
        }),
      );
      const answer = (await pushed.json()) as { request_uri?: string; error?: string; error_description?: string };
      if (pushed.status !== 201 || typeof answer.request_uri !== 'string') {
        throw new Error(`loginAs: the pushed authorization request failed with ${pushed.status} ${answer.error ?? ''}: ${answer.error_description ?? ''}`);
      }
      authorize.searchParams.set('client_id', client.client_id);
      authorize.searchParams.set('request_uri', answer.request_uri);
    } else {
      for (const [k, v] of Object.entries(request)) authorize.searchParams.set(k, v);
    }
    const result = await completeLogin(authorize, { fetch: send, cookies: new CookieJar(), username, password: user.password, consent: 'allow' });
    if (result.type !== 'redirect') throw new Error('loginAs: the login ended in a form_post page, expected a redirect');
    const callback = new URL(result.location);
    const params = callback.searchParams;
    if (params.get('error')) throw new Error(`loginAs: the authorize request failed: ${params.get('error')}: ${params.get('error_description') ?? ''}`);
    if (params.get('state') !== state) throw new Error('loginAs: the callback state does not match the request');
    if (params.get('iss') !== issuer) throw new Error('loginAs: the callback iss is not the issuer');
    const code = params.get('code');
    if (!code) throw new Error('loginAs: the callback has no code');

    // A confidential client always authenticates its code exchange (the method above), with a
    // fresh credential and proof per attempt; one retry when the server asks for its DPoP nonce.
    const tokenUrl = `${issuer}/oidc/token`;
    let dpopNonce: string | undefined;
    let response: Response | undefined;
    let tokens: TestTokens & { error?: string; error_description?: string } = {} as TestTokens;
    for (let attempt = 0; attempt < 2; attempt++) {
      const auth = await credentials();
      const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, ...(pkce ? { code_verifier: verifier } : {}), ...auth.form });
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...auth.headers };
      if (dpop) headers.dpop = await dpopProof(dpop.keyPair, { method: 'POST', url: tokenUrl, now: await serverSeconds(), ...(dpopNonce !== undefined ? { nonce: dpopNonce } : {}) });
      response = await send(new Request(tokenUrl, { method: 'POST', headers, body: form.toString() }));
      dpopNonce = response.headers.get('dpop-nonce') ?? dpopNonce;
      tokens = (await response.json()) as typeof tokens;
      if (!(dpop && response.status === 400 && tokens.error === 'use_dpop_nonce' && response.headers.has('dpop-nonce'))) break;
    }
    if (!response?.ok) throw new Error(`loginAs: the code exchange failed with ${response?.status} ${tokens.error ?? ''}: ${tokens.error_description ?? ''}`);
    if (typeof tokens.id_token !== 'string') throw new Error('loginAs: the token response has no id_token (does the scope include openid?)');
    const jwks = (await (await send(new Request(`${issuer}/oidc/jwks`))).json()) as Parameters<typeof createLocalJWKSet>[0];
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(jwks), {
      issuer,
      audience: client.client_id,
      ...(options.now ? { currentDate: new Date(options.now()) } : {}),
    });
    if (payload.nonce !== nonce) throw new Error('loginAs: the ID token nonce does not match the request');
    return { tokens, claims: payload as IdTokenClaims, ...(dpop ? { dpop: { ...dpop, ...(dpopNonce !== undefined ? { nonce: dpopNonce } : {}) } } : {}) };
  }

  const close = async (): Promise<void> => {
    await listening?.close();
    await server.close();
  };
  return {
    server,
    origin,
    issuer: issuerOf(first.id),
    issuerOf,
    fetch: (input, init) => send(input instanceof Request && init === undefined ? input : new Request(input, init)),
    loginAs,
    close,
    [Symbol.asyncDispose]: close,
  };
}
