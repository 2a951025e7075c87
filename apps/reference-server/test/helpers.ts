import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import { ConfigError, createReferenceServer, demoConfig, type ReferenceServer, type ServerConfig, validateConfig } from '../src/index';
import { completeLogin, CookieJar, type CompleteLoginOptions } from '../src/testing';
import { ControlError } from '../src/control/errors';
import { developmentKeysFor } from '../../../test-support/development-keys';

export const ORIGIN = 'http://localhost';
export const ISSUER = `${ORIGIN}/demo`;
export const SPA_REDIRECT = 'http://127.0.0.1:5173/callback';
export const WEB_REDIRECT = 'http://127.0.0.1:3000/callback';

/** A clock the test moves by hand (epoch ms). */
export class Clock {
  ms = Date.UTC(2030, 0, 1);
  now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export interface Harness {
  server: ReferenceServer;
  clock: Clock;
  fetch: (request: Request) => Promise<Response>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, form: Record<string, string> | string, headers?: Record<string, string>): Promise<Response>;
}

/**
 * A server on the demo config (optionally changed), with a hand-moved clock, no logging. It signs
 * with the fixed development keys when the server allows them (test-support/development-keys.ts; generating an RSA key
 * per test makes the suite slow on a busy machine); test-server.test.ts and the key rotation
 * tests cover real key generation.
 */
export async function setup(change?: (config: ServerConfig) => void, options: { generateKeys?: boolean } = {}): Promise<Harness> {
  const config = demoConfig();
  change?.(config);
  const clock = new Clock();
  const developmentKeys = !options.generateKeys && developmentKeysFor(config);
  const server = await createReferenceServer(config, { now: clock.now, logger: false, developmentKeys });
  const fetch = (request: Request) => server.fetch(request);
  const url = (path: string) => (path.startsWith('http') ? path : `${ISSUER}${path}`);
  return {
    server,
    clock,
    fetch,
    get: (path, headers = {}) => fetch(new Request(url(path), { headers })),
    post: (path, form, headers = {}) =>
      fetch(
        new Request(url(path), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
        }),
      ),
  };
}

export function demoTenant(config: ServerConfig) {
  const tenant = config.tenants[0];
  if (!tenant) throw new Error('demo config has no tenant');
  return tenant;
}

export function demoClient(config: ServerConfig, clientId: string) {
  const client = demoTenant(config).clients?.find((c) => c.client_id === clientId);
  if (!client) throw new Error(`no client ${clientId}`);
  return client;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(params: Record<string, string | undefined>, issuer = ISSUER): URL {
  const url = new URL(`${issuer}/oidc/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

/** Default params for the confidential web client's code flow. */
export function webParams(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'openid profile email offline_access', state: 'st-1', nonce: 'n-1', ...extra };
}

/** Default params for the public SPA client's code flow with PKCE. */
export function spaParams(challenge: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: 'spa',
    redirect_uri: SPA_REDIRECT,
    scope: 'openid profile email offline_access',
    state: 'st-spa',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

/** Logs in through the HTML forms and returns the redirect's parameters (query or fragment). */
export async function login(
  h: Harness,
  params: Record<string, string | undefined>,
  options: CompleteLoginOptions = {},
): Promise<{ location: URL; params: URLSearchParams; query: URLSearchParams; fragment: URLSearchParams }> {
  const result = await completeLogin(authorizeUrl(params), { fetch: h.fetch, ...options });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const location = new URL(result.location);
  const query = location.searchParams;
  const fragment = new URLSearchParams(location.hash.slice(1));
  return { location, params: location.hash ? fragment : query, query, fragment };
}

/** Runs the web client's code flow with a fresh cookie jar and returns the code. */
export async function webCode(h: Harness, extra: Record<string, string | undefined> = {}, cookies = new CookieJar()): Promise<string> {
  const { params } = await login(h, webParams(extra), { cookies });
  const code = params.get('code');
  if (!code) throw new Error(`no code: ${params.toString()}`);
  return code;
}

export async function exchangeWebCode(h: Harness, code: string, extra: Record<string, string> = {}): Promise<Response> {
  return h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', ...extra });
}

/** Verifies a JWT against the server's published JWKS. */
export async function verifyJwt(h: Harness, token: string, options: { audience?: string; typ?: string } = {}): Promise<JWTPayload> {
  const jwks = (await (await h.get('/oidc/jwks')).json()) as { keys: [] };
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
    issuer: ISSUER,
    currentDate: new Date(h.clock.ms),
    ...(options.audience ? { audience: options.audience } : {}),
    ...(options.typ ? { typ: options.typ } : {}),
  });
  return payload;
}

export function leftHalfHash(value: string): string {
  const digest = createHash('sha256').update(value, 'ascii').digest();
  return digest.subarray(0, 16).toString('base64url');
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** One browser: a cookie jar and a fetch through the harness that uses it (paths are under ISSUER). */
export function browserOn(h: Harness, jar = new CookieJar()) {
  const go = async (url: string | URL, init: { method?: string; form?: Record<string, string> } = {}) => {
    const target = typeof url === 'string' && url.startsWith('/') ? new URL(`${ISSUER}${url}`) : new URL(url);
    const headers = new Headers();
    const cookie = jar.header(target);
    if (cookie) headers.set('cookie', cookie);
    if (init.form) headers.set('content-type', 'application/x-www-form-urlencoded');
    const res = await h.fetch(
      new Request(target, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}) }),
    );
    jar.store(target, res);
    return res;
  };
  return { jar, go };
}

/** The hidden `interaction` and `csrf` fields of a sign-in page. */
export function hidden(page: string): { interaction: string; csrf: string } {
  const interaction = /name="interaction" value="([^"]+)"/.exec(page)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!interaction || !csrf) throw new Error('no hidden fields on the page');
  return { interaction, csrf };
}

/** The ControlError a control call rejects with (fails the test when it resolves or throws anything else). */
export async function controlRejection(promise: Promise<unknown>): Promise<ControlError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ControlError)) throw new Error(`expected a ControlError, got ${String(error)}`);
  return error;
}

export { CookieJar, completeLogin };

/** The ConfigError `validateConfig` throws for `config`; fails the test when the config is accepted. */
export function refusal(config: unknown): ConfigError {
  try {
    validateConfig(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('config was accepted');
}
