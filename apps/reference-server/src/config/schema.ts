/**
 * The config file: its shapes, their defaults and their validation into the model (model.ts).
 * A config with an error is refused as a whole with a message naming the field, so nobody runs
 * a half-understood setup.
 */
import { FAULTS, type Fault } from './fault-names';
import {
  canonicalResponseType,
  type Client,
  type GrantType,
  type Lifetimes,
  RESPONSE_TYPES,
  type ResponseType,
  type SigningAlg,
  type Tenant,
  type User,
} from './model';

/** A registered client as written in the config file. */
export interface ClientConfig {
  client_id: string;
  /** Absent: a public client (PKCE, no secret). */
  client_secret?: string;
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  /** Default `["authorization_code"]`. */
  grant_types?: GrantType[];
  /** Default `["code"]` with the authorization_code grant, else none. */
  response_types?: ResponseType[];
  /** Scopes the client may request. Default `["openid"]`. */
  scopes?: string[];
  /** Never show the consent page for this client. Default false. */
  skip_consent?: boolean;
  /** Conformance testing only: make the server misbehave for this client (see the README's fault table). */
  fault?: Fault | Fault[];
}

/** An end user who can sign in at the login page. */
export interface UserConfig {
  username: string;
  password: string;
  /** OIDC claims; `sub` defaults to the username. */
  claims?: Record<string, unknown>;
}

/** One tenant: its own issuer `{origin}/{id}`, keys, users and clients. */
export interface TenantConfig {
  id: string;
  /** Allows http redirect URIs on any host. Default false. */
  development?: boolean;
  /** Default `"RS256"`. */
  signing_alg?: SigningAlg;
  /** `"opaque"` (default) or RFC 9068 `"jwt"`. */
  access_token_format?: 'opaque' | 'jwt';
  lifetimes?: Partial<Lifetimes>;
  users?: UserConfig[];
  clients?: ClientConfig[];
}

/** Where state lives: process memory (default) or a Redis shared by several instances. */
export type StoreConfig =
  | { type: 'memory' }
  | {
      type: 'redis';
      url: string;
      prefix?: string;
      /**
       * Encrypts (AES-256-GCM) the signing keys kept in Redis; at least 32 characters. Required
       * unless every tenant is a development tenant. The CLI also reads `OIDC_RP_KEY_ENCRYPTION_SECRET`.
       */
      key_encryption_secret?: string;
    };

/** The whole configuration file. */
export interface ServerConfig {
  tenants: TenantConfig[];
  /** Default `{ "type": "memory" }`. */
  store?: StoreConfig;
  /** The origin users reach the server at (`https://login.example.com`); wins over the Host header. */
  public_origin?: string;
  /** Hosts (`name` or `name:port`) the server answers for besides loopback, when there is no public_origin. */
  trusted_hosts?: string[];
  /** A proxy in front sets X-Forwarded-Proto/-Host/-For; default false. */
  trust_proxy?: boolean;
}

/**
 * Defaults: code 60 s, access token 1 h, ID token 1 h, refresh token 30 days.
 *
 * @example
 * const tenant = { id: 'acme', lifetimes: { ...DEFAULT_LIFETIMES, access_token: 300 } };
 */
export const DEFAULT_LIFETIMES: Readonly<Lifetimes> = {
  authorization_code: 60,
  access_token: 3600,
  id_token: 3600,
  refresh_token: 2_592_000,
};

const GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials', 'implicit'];
const BLOCKED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ws:', 'wss:', 'ftp:']);

/**
 * A config that cannot be used; `field` is the path of the offending value.
 *
 * @example
 * try { validateConfig(json) } catch (e) { if (e instanceof ConfigError) console.error(e.message) }
 */
export class ConfigError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`invalid config at ${field}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/**
 * Why a redirect URI is not acceptable, or undefined when it is: https, a custom scheme, or http
 * on localhost / 127.0.0.1 (any host in a development tenant); no fragment.
 *
 * @example
 * redirectUriProblem('http://app.example/cb', false); // 'http is only allowed ...'
 */
export function redirectUriProblem(uri: string, development: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (BLOCKED_SCHEMES.has(url.protocol)) return `the ${url.protocol} scheme cannot be a redirect target`;
  if (url.protocol === 'http:') {
    const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
    if (!loopback && !development) {
      return 'http is only allowed for localhost or 127.0.0.1 unless the tenant sets "development": true; use https';
    }
  }
  return undefined;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function object(v: unknown, field: string, keys: readonly string[]): Json {
  if (!isObject(v)) throw new ConfigError(field, 'must be an object');
  for (const key of Object.keys(v)) {
    if (!keys.includes(key)) throw new ConfigError(`${field}.${key}`, `unknown key; allowed keys are ${keys.join(', ')}`);
  }
  return v;
}

function text(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.length === 0) throw new ConfigError(field, 'must be a non-empty string');
  if ([...v].some((ch) => ch < ' ' || ch === '\u007f')) throw new ConfigError(field, 'must not contain control characters');
  return v;
}

function optional<T>(v: unknown, fallback: T, read: (v: unknown) => T): T {
  return v === undefined ? fallback : read(v);
}

function flag(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw new ConfigError(field, 'must be true or false');
  return v;
}

function list<T>(v: unknown, field: string, read: (item: unknown, field: string) => T): T[] {
  if (!Array.isArray(v)) throw new ConfigError(field, 'must be an array');
  return v.map((item, i) => read(item, `${field}[${i}]`));
}

function oneOf<T extends string>(v: unknown, field: string, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new ConfigError(field, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
  }
  return v as T;
}

function unique(values: readonly string[], field: string, what: string): void {
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (seen.has(v)) throw new ConfigError(`${field}[${i}]`, `duplicate ${what} ${JSON.stringify(v)}`);
    seen.add(v);
  });
}

function readLifetimes(v: unknown, field: string): Lifetimes {
  const o = object(v, field, Object.keys(DEFAULT_LIFETIMES));
  const out = { ...DEFAULT_LIFETIMES };
  for (const key of Object.keys(DEFAULT_LIFETIMES) as (keyof Lifetimes)[]) {
    const value = o[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 315_360_000) {
      throw new ConfigError(`${field}.${key}`, 'must be a whole number of seconds between 1 and 315360000');
    }
    out[key] = value;
  }
  return out;
}

function readUser(v: unknown, field: string): User {
  const o = object(v, field, ['username', 'password', 'claims']);
  const username = text(o.username, `${field}.username`);
  const password = text(o.password, `${field}.password`);
  const claims = optional(o.claims, {}, (c) => {
    if (!isObject(c)) throw new ConfigError(`${field}.claims`, 'must be an object');
    return c;
  });
  const sub = optional(claims.sub, username, (s) => text(s, `${field}.claims.sub`));
  return { username, password, claims: { ...claims, sub } };
}

function readUris(v: unknown, field: string, development: boolean): string[] {
  const uris = list(v, field, (item, f) => {
    const uri = text(item, f);
    const problem = redirectUriProblem(uri, development);
    if (problem) throw new ConfigError(f, problem);
    return uri;
  });
  unique(uris, field, 'URI');
  return uris;
}

const CLIENT_KEYS = ['client_id', 'client_secret', 'redirect_uris', 'post_logout_redirect_uris', 'grant_types', 'response_types', 'scopes', 'skip_consent', 'fault'];

/** `"fault"`: one name or a list of names, each a known fault, no repeats. */
function readFaults(v: unknown, field: string): Set<Fault> {
  const names = Array.isArray(v) ? list(v, field, (item, f) => oneOf(item, f, FAULTS)) : [oneOf(v, field, FAULTS)];
  unique(names, field, 'fault');
  return new Set(names);
}

function readClient(v: unknown, field: string, development: boolean): Client {
  const o = object(v, field, CLIENT_KEYS);
  const grantTypes = optional(o.grant_types, ['authorization_code'] as GrantType[], (g) =>
    list(g, `${field}.grant_types`, (item, f) => oneOf(item, f, GRANT_TYPES)),
  );
  const defaultTypes: ResponseType[] = grantTypes.includes('authorization_code') ? ['code'] : [];
  const responseTypes = optional(o.response_types, defaultTypes, (r) =>
    list(r, `${field}.response_types`, (item, f) => {
      const canonical = typeof item === 'string' ? canonicalResponseType(item) : undefined;
      return canonical ?? oneOf(item, f, RESPONSE_TYPES);
    }),
  );
  const client: Client = {
    client_id: text(o.client_id, `${field}.client_id`),
    client_secret: optional(o.client_secret, undefined, (s) => text(s, `${field}.client_secret`)),
    redirect_uris: optional(o.redirect_uris, [], (r) => readUris(r, `${field}.redirect_uris`, development)),
    post_logout_redirect_uris: optional(o.post_logout_redirect_uris, [], (r) =>
      readUris(r, `${field}.post_logout_redirect_uris`, development),
    ),
    grant_types: grantTypes,
    response_types: responseTypes,
    scopes: optional(o.scopes, ['openid'], (s) => list(s, `${field}.scopes`, (item, f) => {
      const scope = text(item, f);
      if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) throw new ConfigError(f, 'is not a valid scope token (RFC 6749 3.3)');
      return scope;
    })),
    skip_consent: optional(o.skip_consent, false, (s) => flag(s, `${field}.skip_consent`)),
    faults: optional(o.fault, new Set<Fault>(), (f) => readFaults(f, `${field}.fault`)),
  };
  unique(client.grant_types, `${field}.grant_types`, 'grant type');
  unique(client.response_types, `${field}.response_types`, 'response type');
  unique(client.scopes, `${field}.scopes`, 'scope');
  checkClientConsistency(client, field);
  return client;
}

function checkClientConsistency(client: Client, field: string): void {
  const has = (g: GrantType) => client.grant_types.includes(g);
  client.response_types.forEach((type, i) => {
    if (type.includes('code') && !has('authorization_code')) {
      throw new ConfigError(`${field}.response_types[${i}]`, `"${type}" needs "authorization_code" in grant_types`);
    }
    if ((type === 'token' || type === 'id_token token') && !has('implicit')) {
      throw new ConfigError(`${field}.response_types[${i}]`, `"${type}" needs "implicit" in grant_types`);
    }
  });
  if (has('client_credentials') && client.client_secret === undefined) {
    throw new ConfigError(`${field}.grant_types`, '"client_credentials" needs a client_secret (public clients cannot use it)');
  }
  const interactive = has('authorization_code') || has('implicit');
  if (interactive && client.redirect_uris.length === 0) {
    throw new ConfigError(`${field}.redirect_uris`, 'needs at least one URI for the authorization_code or implicit grant');
  }
}

const TENANT_KEYS = ['id', 'development', 'signing_alg', 'access_token_format', 'lifetimes', 'users', 'clients'];

function readTenant(v: unknown, field: string): Tenant {
  const o = object(v, field, TENANT_KEYS);
  const id = text(o.id, `${field}.id`);
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(id)) {
    throw new ConfigError(`${field}.id`, 'must be 1-63 characters of letters, digits, "-" and "_", starting with a letter or digit');
  }
  const development = optional(o.development, false, (d) => flag(d, `${field}.development`));
  const users = optional(o.users, [], (u) => list(u, `${field}.users`, readUser));
  const clients = optional(o.clients, [], (c) => list(c, `${field}.clients`, (item, f) => readClient(item, f, development)));
  unique(users.map((u) => u.username), `${field}.users`, 'username');
  unique(users.map((u) => u.claims.sub), `${field}.users`, 'claims.sub');
  unique(clients.map((c) => c.client_id), `${field}.clients`, 'client_id');
  const corsOrigins = new Set<string>();
  for (const client of clients) {
    for (const uri of client.redirect_uris) {
      const url = new URL(uri);
      if (url.protocol === 'https:' || url.protocol === 'http:') corsOrigins.add(url.origin);
    }
  }
  return {
    id,
    development,
    signing_alg: optional(o.signing_alg, 'RS256', (a) => oneOf(a, `${field}.signing_alg`, ['RS256', 'ES256'] as const)),
    access_token_format: optional(o.access_token_format, 'opaque', (a) =>
      oneOf(a, `${field}.access_token_format`, ['opaque', 'jwt'] as const),
    ),
    lifetimes: optional(o.lifetimes, DEFAULT_LIFETIMES, (l) => readLifetimes(l, `${field}.lifetimes`)),
    users: new Map(users.map((u) => [u.username, u])),
    clients: new Map(clients.map((c) => [c.client_id, c])),
    corsOrigins,
    hasFaults: clients.some((c) => c.faults.size > 0),
  };
}

/** Key prefix of the Redis store when the config names none. */
export const DEFAULT_REDIS_PREFIX = 'oidc-rp:server:';

/**
 * The `store` key with its defaults: memory, or Redis at a `redis://` / `rediss://` URL with a key prefix.
 *
 * @example
 * readStoreConfig({ type: 'redis', url: 'redis://127.0.0.1:6379' }); // { type: 'redis', url, prefix: 'oidc-rp:server:' }
 */
export function readStoreConfig(
  v: unknown = { type: 'memory' },
): { type: 'memory' } | { type: 'redis'; url: string; prefix: string; keyEncryptionSecret?: string } {
  const o = object(v, 'store', ['type', 'url', 'prefix', 'key_encryption_secret']);
  if (oneOf(o.type, 'store.type', ['memory', 'redis'] as const) === 'memory') {
    const extra = Object.keys(o).find((k) => k !== 'type');
    if (extra) throw new ConfigError(`store.${extra}`, 'only applies to "type": "redis"');
    return { type: 'memory' };
  }
  if (o.url === undefined) throw new ConfigError('store.url', 'is required with "type": "redis", e.g. "redis://127.0.0.1:6379"');
  const url = text(o.url, 'store.url');
  if (!/^rediss?:\/\/[^/?#]/.test(url) || !URL.canParse(url)) {
    throw new ConfigError('store.url', 'must be a redis:// or rediss:// URL with a host, e.g. "redis://127.0.0.1:6379"');
  }
  const prefix = optional(o.prefix, DEFAULT_REDIS_PREFIX, (p) => text(p, 'store.prefix'));
  if (prefix.length > 64 || /\s/.test(prefix)) throw new ConfigError('store.prefix', 'must be at most 64 characters without spaces');
  const secret = optional(o.key_encryption_secret, undefined, (k) => keyEncryptionSecret(k, 'store.key_encryption_secret'));
  return { type: 'redis', url, prefix, ...(secret !== undefined ? { keyEncryptionSecret: secret } : {}) };
}

// --- Deployment security settings: key encryption, public origin, trusted hosts, proxy ---

/**
 * A key encryption secret: a string of at least 32 characters (e.g. `openssl rand -base64 32`).
 *
 * @example
 * keyEncryptionSecret(process.env.OIDC_RP_KEY_ENCRYPTION_SECRET, 'OIDC_RP_KEY_ENCRYPTION_SECRET');
 */
export function keyEncryptionSecret(v: unknown, field: string): string {
  const secret = text(v, field);
  if (secret.length < 32) throw new ConfigError(field, 'must be at least 32 characters, e.g. the output of `openssl rand -base64 32`');
  return secret;
}

/**
 * A public origin: `https://host[:port]` (http only for a loopback host), nothing after it.
 *
 * @example
 * publicOrigin('https://login.example.com', 'public_origin'); // 'https://login.example.com'
 */
export function publicOrigin(v: unknown, field: string): string {
  const value = text(v, field);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(field, 'must be an origin such as "https://login.example.com"');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value.replace(/\/$/, '')) {
    throw new ConfigError(field, 'must be an origin such as "https://login.example.com": scheme and host, no path, query or credentials');
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
  if (url.protocol === 'http:' && !loopback) throw new ConfigError(field, 'must use https (http only for localhost or 127.0.0.1)');
  return url.origin;
}

function trustedHost(v: unknown, field: string): string {
  const host = text(v, field).toLowerCase();
  if (!URL.canParse(`http://${host}`) || new URL(`http://${host}`).host !== host.replace(/:80$/, '')) {
    throw new ConfigError(field, 'must be a host name or address, optionally with a port, e.g. "login.internal:8443"');
  }
  return host;
}

/** The deployment settings with defaults: no public origin, no trusted hosts, no proxy. */
export interface OriginConfig {
  publicOrigin?: string;
  trustedHosts: ReadonlySet<string>;
  trustProxy: boolean;
}

/**
 * `public_origin`, `trusted_hosts` and `trust_proxy` of a config, validated.
 *
 * @example
 * readOriginConfig({ tenants, public_origin: 'https://login.example.com' });
 */
export function readOriginConfig(config: ServerConfig): OriginConfig {
  const origin = optional(config.public_origin, undefined, (o) => publicOrigin(o, 'public_origin'));
  const hosts = optional(config.trusted_hosts, [], (h) => list(h, 'trusted_hosts', trustedHost));
  return {
    ...(origin !== undefined ? { publicOrigin: origin } : {}),
    trustedHosts: new Set(hosts),
    trustProxy: optional(config.trust_proxy, false, (t) => flag(t, 'trust_proxy')),
  };
}

/**
 * Validates a parsed config and fills in defaults. Throws {@link ConfigError} naming the field.
 *
 * @example
 * const tenants = validateConfig(JSON.parse(fileText));
 */
export function validateConfig(input: unknown): Tenant[] {
  const o = object(input, 'config', ['tenants', 'store', 'public_origin', 'trusted_hosts', 'trust_proxy']);
  readStoreConfig(o.store);
  readOriginConfig(o as unknown as ServerConfig);
  const tenants = list(o.tenants, 'tenants', readTenant);
  if (tenants.length === 0) throw new ConfigError('tenants', 'must contain at least one tenant');
  unique(tenants.map((t) => t.id), 'tenants', 'tenant id');
  return tenants;
}

