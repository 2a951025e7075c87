/**
 * `createReferenceServer`: a validated config turned into a web-standard fetch handler that
 * can also listen on a loopback port.
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { createApp, ENDPOINT_PATHS, type RequestInfo } from './app';
import { Backchannel, type EndedSessions } from './backchannel/backchannel';
import { ControlledClock } from './control/clock';
import { createControl, type ServerControl } from './control/control';
import { type Journal, type JournalEntry, REDACTED, type RequestMatch, readMatch } from './control/journal';
import { ConnectionDropped } from './control/transport-faults';
import { demoConfig } from './config/demo';
import { deriveKey } from './crypto/derive-key';
import { RotatingNonces } from './crypto/rotating-nonces';
import { checkExposure, demoLoginHostProblem, exposure } from './config/exposure';
import type { Logger } from './config/logger';
import type { Tenant } from './config/model';
import { ConfigError, keyEncryptionSecret, publicOrigin, randomSecret, readOriginConfig, readStoreConfig, validateConfig, type ServerConfig } from './config/schema';
import { developmentKeysHostProblem, developmentSigningKey } from './keys/development-keys';
import { KeySealer } from './keys/key-sealing';
import { KeySet } from './keys/keys';
import { SharedKeys } from './keys/shared-keys';
import { installLightResponse } from './http/light-response';
import { nodeListener } from './http/node-listener';
import { endedSessionMark, SESSION_SECONDS } from './oauth/session';
import type { TenantEntry } from './request/context';
import { RecordIntegrity } from './store/record-integrity';
import { RedisConnection } from './store/redis';
import { MemoryStore, type Store } from './store/store';

/** Options of {@link createReferenceServer}. */
export interface ReferenceServerOptions {
  /** Clock in epoch milliseconds (default `Date.now`); tests pass a controllable one. */
  now?: () => number;
  /** Called for every request, e.g. to count calls in tests. */
  onRequest?: (info: RequestInfo) => void;
  /** Where to log; `false` for silence. Default: errors and security warnings to stderr, nothing else. */
  logger?: Logger | false;
  /**
   * State storage (default: a fresh in-memory store on the same clock). Not together with a
   * `"store": { "type": "redis" }` config, which makes the server use Redis.
   */
  store?: Store;
  /**
   * The HTTP control API under `/_control/` (test use only): off by default. `true` answers
   * loopback only; `{ secret }` answers requests bearing `Authorization: Bearer <secret>` from anywhere.
   */
  controlApi?: boolean | { secret?: string };
  /** How many requests the journal keeps (default 1000; 0 turns it off). */
  journalSize?: number;
  /**
   * Sign with the fixed development keys shipped in this package instead of generating keys:
   * the first token is signed at once. NEVER FOR PRODUCTION — the private keys are public.
   * Refused (`ConfigError`) unless every tenant is `"development": true`, with a Redis store,
   * and for a listener on a non-loopback host. Default false. Key rotation still generates keys.
   */
  developmentKeys?: boolean;
  /** Overrides the config's `public_origin` (the CLI's `--public-origin`). */
  publicOrigin?: string;
  /** Overrides the config's `trust_proxy` (the CLI's `--trust-proxy`). */
  trustProxy?: boolean;
  /** Overrides the config's `store.key_encryption_secret` (the CLI's `OIDC_RP_KEY_ENCRYPTION_SECRET`). */
  keyEncryptionSecret?: string;
}

/** A running listener. */
export interface Listening {
  /** `http://127.0.0.1:PORT`; a tenant's issuer is `${origin}/${tenantId}`. */
  origin: string;
  port: number;
  /** Stops accepting connections and resolves once open ones have finished (or were cut). */
  close(): Promise<void>;
}

/** The server: an in-process handler, plus listening on a port. */
export interface ReferenceServer {
  /** Answers one request without any network (the issuer's origin is the request URL's). */
  fetch(request: Request): Promise<Response>;
  /** Serves on a port (0 picks a free one), on 127.0.0.1 unless `host` says otherwise. */
  listen(options?: { port?: number; host?: string }): Promise<Listening>;
  /** Closes every listener opened by {@link ReferenceServer.listen}, then the Redis connection if any. */
  close(): Promise<void>;
  /** Replaces a tenant's signing key; the old one stays in the JWKS until its tokens expired. */
  rotateSigningKey(tenantId: string): Promise<{ kid: string }>;
  /** Runtime control: users, clients, faults, transport faults, clock, keys, journal. Test use only. */
  control: ServerControl;
  /**
   * The request journal: entries that fit `match`, oldest first (secrets, codes and tokens redacted).
   *
   * @example
   * server.requests({ path: '/oauth/token', grant_type: 'refresh_token' }).length; // refreshes so far
   */
  requests(match?: RequestMatch): JournalEntry[];
}

const DEFAULT_LOGGER: Logger = { info: () => undefined, warn: (message) => console.error(message), error: (message) => console.error(message) };
const SILENT: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
/** The tenants each server runs, for the testing entry's personas (not part of the public API). */
const runningTenants = new WeakMap<ReferenceServer, ReadonlyMap<string, TenantEntry>>();

/**
 * The tenants `server` runs, as validated; undefined for an object that is no server of this module.
 * For the testing entry only.
 *
 * @example
 * const tenant = tenantsOf(server)?.get('demo')?.tenant;
 */
export function tenantsOf(server: ReferenceServer): ReadonlyMap<string, TenantEntry> | undefined {
  return runningTenants.get(server);
}

/** How long close() waits for requests in flight before cutting connections. */
const DRAIN_MS = 5000;

function keysFailed(tenant: Tenant, logger: Logger): (error: unknown) => void {
  return (error) => logger.error(`tenant ${tenant.id}: signing keys unavailable: ${String(error)}`);
}

/**
 * A tenant on a store of this process, with keys of its own. The key is made when the tenant
 * first signs or publishes, not at start: a config's other tenants cost nothing until used (an
 * RSA key takes 50–300 ms of CPU), and a start is not slowed by them. Concurrent first requests
 * share the one generation.
 */
function localTenant(tenant: Tenant, store: Store, now: () => number, logger: Logger, developmentKeys: boolean): TenantEntry {
  let made: Promise<KeySet> | undefined;
  const keys = (): Promise<KeySet> => {
    if (!made) {
      made = developmentKeys ? developmentSigningKey(tenant.signing_alg).then((key) => KeySet.fromKeys(key, [], now)) : KeySet.create(tenant.signing_alg, now);
      made.catch(keysFailed(tenant, logger));
    }
    return made;
  };
  return { tenant, store, keys, rotateKey: async (keep) => (await keys()).rotate(keep) };
}

/**
 * A tenant on Redis: its own key namespace, and signing keys shared by every instance. Read (or
 * made and written) when the tenant first signs or publishes; SharedKeys loads once for
 * concurrent callers.
 */
function sharedTenant(tenant: Tenant, redis: RedisConnection, now: () => number, logger: Logger, sealer: KeySealer | undefined): TenantEntry {
  const shared = new SharedKeys(redis, tenant.id, tenant.signing_alg, now, logger, sealer);
  return { tenant, store: redis.store(tenant.id), keys: () => shared.get(), rotateKey: (keep) => shared.rotate(keep) };
}

/** Development keys are public: only development tenants on this process may use them. */
function checkDevelopmentKeys(tenants: readonly Tenant[], store: 'memory' | 'redis'): void {
  if (store === 'redis') throw new ConfigError('store', 'development signing keys cannot be shared through Redis; leave out developmentKeys');
  tenants.forEach((tenant, i) => {
    if (!tenant.development) {
      throw new ConfigError(
        `tenants[${i}].development`,
        `tenant "${tenant.id}" is not a development tenant, and the development signing keys are public (never for production): set "development": true for test tenants, or leave out developmentKeys`,
      );
    }
  });
}

/**
 * The key encryption secret of a Redis store: it seals the signing keys and authenticates the
 * grant records kept there. Without one only development tenants may run on Redis: their keys
 * and records are stored in plaintext.
 */
function redisSecret(tenants: readonly Tenant[], fromConfig: string | undefined, fromOptions: string | undefined): string | undefined {
  const secret = fromOptions !== undefined ? keyEncryptionSecret(fromOptions, 'keyEncryptionSecret') : fromConfig;
  if (secret !== undefined) return secret;
  const production = tenants.find((t) => !t.development);
  if (production) {
    throw new ConfigError(
      'store.key_encryption_secret',
      `is required with the Redis store (tenant "${production.id}" is not a development tenant): its signing keys are kept in Redis, and are encrypted with it; set it or OIDC_RP_KEY_ENCRYPTION_SECRET to at least 32 random characters`,
    );
  }
  return undefined;
}

/**
 * Creates the reference authorization server. Throws `ConfigError` for an invalid config, and
 * an `Error` naming the host when the config's Redis store cannot be reached within 5 s.
 *
 * @example
 * const server = await createReferenceServer(demoConfig());
 * const res = await server.fetch(new Request('http://localhost/demo/.well-known/openid-configuration'));
 * const { origin, close } = await server.listen({ port: 0 });
 */
export function createReferenceServer(config: ServerConfig = demoConfig(), options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return buildServer(config, options, false);
}

/**
 * {@link createReferenceServer} for a process that runs nothing else (the CLI). Its listeners
 * swap the global `Response` for a light one (http/light-response.ts) whose string bodies go to
 * the socket without loading Node's fetch implementation; that would change it for every other
 * library in a shared process, so the programmatic server leaves the globals alone.
 *
 * @example
 * const server = await createProcessServer(await loadConfigFile(path));
 */
export function createProcessServer(config: ServerConfig, options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return buildServer(config, options, true);
}

async function buildServer(config: ServerConfig, options: ReferenceServerOptions, ownsProcess: boolean): Promise<ReferenceServer> {
  const tenants = validateConfig(config);
  const storeConfig = readStoreConfig(config.store);
  const clock = new ControlledClock(options.now ?? Date.now);
  const now = clock.now;
  const logger = options.logger === false ? SILENT : (options.logger ?? DEFAULT_LOGGER);
  if (storeConfig.type === 'redis' && options.store) {
    throw new Error('the config asks for the Redis store and options.store passes another: use one of them');
  }
  const developmentKeys = options.developmentKeys === true;
  if (developmentKeys) checkDevelopmentKeys(tenants, storeConfig.type);
  const fromConfig = readOriginConfig(config);
  const origin = {
    ...fromConfig,
    ...(options.publicOrigin !== undefined ? { publicOrigin: publicOrigin(options.publicOrigin, 'publicOrigin') } : {}),
    trustProxy: options.trustProxy ?? fromConfig.trustProxy,
  };
  const given = typeof options.controlApi === 'object' ? options.controlApi.secret : undefined;
  const secret = given === undefined ? undefined : randomSecret(given, 'controlApi.secret', 16);
  const controlOn = options.controlApi !== undefined && options.controlApi !== false;
  checkExposure(exposure(origin), { developmentKeys, tenants, secretlessControl: controlOn && secret === undefined });
  const api = controlOn
    ? { enabled: true, ...(secret !== undefined ? { secret } : {}), ...(origin.publicOrigin !== undefined ? { publicHost: new URL(origin.publicOrigin).host } : {}) }
    : { enabled: false };
  const secretOfRedis = storeConfig.type === 'redis' ? redisSecret(tenants, storeConfig.keyEncryptionSecret, options.keyEncryptionSecret) : undefined;
  const sealer = secretOfRedis === undefined ? undefined : new KeySealer(secretOfRedis);
  const integrity = secretOfRedis === undefined ? undefined : new RecordIntegrity(secretOfRedis);
  const redis = storeConfig.type === 'redis' ? await RedisConnection.open(storeConfig, logger, integrity) : undefined;
  const store = options.store ?? new MemoryStore(now);
  const entries = tenants.map((tenant): [string, TenantEntry] => [
    tenant.id,
    redis ? sharedTenant(tenant, redis, now, logger, sealer) : localTenant(tenant, store, now, logger, developmentKeys),
  ]);
  // Shared by a fleet on one Redis (same secret, same nonces); a lone instance needs no more than a random key.
  // Without Redis the nonce key is random, made at the first nonce (RotatingNonces).
  const nonceKey = secretOfRedis === undefined ? undefined : deriveKey(secretOfRedis, 'dpop nonces');
  let journal: Journal | undefined;
  const backchannel = new Backchannel({
    now,
    logger,
    record: ({ time, tenant, client_id, uri, attempt, status, error }) =>
      journal?.add({ time, method: 'POST', path: uri, tenant, client_id, params: { logout_token: REDACTED }, status, outbound: { attempt, ...(error ? { error } : {}) } }),
  });
  const context = { tenants: new Map(entries), now, logger, origin, dpopNonces: new RotatingNonces(nonceKey, now), backchannel };
  // `sessions.end`: the sign-ins stop working everywhere (a mark in the store), then their clients are told.
  const endSessions = async (entry: TenantEntry, username: string): Promise<EndedSessions> => {
    const ended = backchannel.takeUser(entry.tenant.id, username);
    await Promise.all(ended.map((session) => entry.store.revokeGrant(endedSessionMark(session.sid), SESSION_SECONDS)));
    const key = (await entry.keys()).current;
    const deliveries = await Promise.all(ended.map((session) => backchannel.notify(entry.tenant, key, session)));
    const unnotified = ended.flatMap((session) => backchannel.unnotified(entry.tenant, session));
    return {
      sessions: ended.length,
      deliveries: deliveries.flat(),
      ...(unnotified.length > 0 ? { not_notified: unnotified } : {}),
      ...(ended.length === 0
        ? { hint: `${username} has no live sign-in on this server (none yet, all ended, or served by another instance): nothing to end or deliver` }
        : deliveries.flat().length === 0 && unnotified.length === 0
          ? { hint: 'the ended sign-ins authorized no client yet: nothing to deliver' }
          : {}),
    };
  };
  const rotateKey = async (tenantId: string) => {
    const entry = context.tenants.get(tenantId);
    if (!entry) throw new Error(`there is no tenant "${tenantId}"`);
    const { id_token, access_token } = entry.tenant.lifetimes;
    const key = await entry.rotateKey(Math.max(id_token, access_token));
    return { kid: key.kid };
  };
  const { control, state } = createControl({
    tenants: context.tenants,
    tenantConfigs: config.tenants,
    clock,
    endpoints: ENDPOINT_PATHS,
    journalSize: options.journalSize ?? 1000,
    rotateKey,
    dpopNonces: context.dpopNonces,
    endSessions,
  });
  journal = state.journal;
  const app = createApp(context, options.onRequest, { control, state, api });
  const listeners = new Set<Listening>();

  const fetch = async (request: Request): Promise<Response> => {
    try {
      return await app.fetch(request);
    } catch (error) {
      // What fetch does when the peer closes the connection without an answer.
      if (error instanceof ConnectionDropped) throw new TypeError('fetch failed', { cause: error });
      throw error;
    }
  };

  async function listen({ port = 0, host = '127.0.0.1' }: { port?: number; host?: string } = {}): Promise<Listening> {
    const hostProblem = (developmentKeys ? developmentKeysHostProblem(host) : undefined) ?? demoLoginHostProblem(tenants, host);
    if (hostProblem) throw new ConfigError('host', hostProblem);
    if (ownsProcess) installLightResponse();
    const server = createServer(nodeListener(app.fetch));
    // An idle keep-alive connection outlives the clients' own idle timeouts (Node's agent and
    // undici: 4-5 s; proxies and load balancers: 60 s), so the client closes first and never sends
    // a request on a socket the server is closing at that moment (ECONNRESET). Node's default, 5 s,
    // races Node's own agent.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    let closing: Promise<void> | undefined;
    const listening: Listening = {
      origin: `http://${hostPart}:${address.port}`,
      port: address.port,
      close: () => {
        closing ??= new Promise<void>((resolve) => {
          const timer = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
          timer.unref();
          server.close(() => {
            clearTimeout(timer);
            listeners.delete(listening);
            resolve();
          });
          server.closeIdleConnections();
        });
        return closing;
      },
    };
    listeners.add(listening);
    return listening;
  }

  const referenceServer: ReferenceServer = {
    fetch,
    listen,
    close: async () => {
      await Promise.all([...listeners].map((l) => l.close()));
      await redis?.close();
    },
    rotateSigningKey: rotateKey,
    control,
    requests: (match) => state.journal.list(readMatch(match)),
  };
  runningTenants.set(referenceServer, context.tenants);
  return referenceServer;
}
