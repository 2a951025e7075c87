/**
 * `createReferenceServer`: a validated config turned into a web-standard fetch handler that
 * can also listen on a loopback port.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { createApp, type RequestInfo } from './app';
import { validateConfig, type ServerConfig } from './config';
import type { Logger, ServerContext } from './context';
import { demoConfig } from './demo';
import { KeySet } from './keys';
import { MemoryStore, type Store } from './store';

/** Options of {@link createReferenceServer}. */
export interface ReferenceServerOptions {
  /** Clock in epoch milliseconds (default `Date.now`); tests pass a controllable one. */
  now?: () => number;
  /** Called for every request, e.g. to count calls in tests. */
  onRequest?: (info: RequestInfo) => void;
  /** Where to log; `false` for silence. Default: errors to stderr, nothing else. */
  logger?: Logger | false;
  /** State storage (default: a fresh in-memory store on the same clock). */
  store?: Store;
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
  /** Closes every listener opened by {@link ReferenceServer.listen}. */
  close(): Promise<void>;
  /** Replaces a tenant's signing key; the old one stays in the JWKS until its tokens expired. */
  rotateSigningKey(tenantId: string): Promise<{ kid: string }>;
}

const DEFAULT_LOGGER: Logger = { info: () => undefined, error: (message) => console.error(message) };
const SILENT: Logger = { info: () => undefined, error: () => undefined };
/** How long close() waits for requests in flight before cutting connections. */
const DRAIN_MS = 5000;

/**
 * Creates the reference authorization server. Throws `ConfigError` for an invalid config.
 *
 * @example
 * const server = await createReferenceServer(demoConfig());
 * const res = await server.fetch(new Request('http://localhost/demo/.well-known/openid-configuration'));
 * const { origin, close } = await server.listen({ port: 0 });
 */
export async function createReferenceServer(config: ServerConfig = demoConfig(), options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const tenants = validateConfig(config);
  const now = options.now ?? Date.now;
  const logger = options.logger === false ? SILENT : (options.logger ?? DEFAULT_LOGGER);
  // Key generation runs in the background; requests to a tenant wait for its keys.
  const entries = tenants.map((tenant) => {
    const keys = KeySet.create(tenant.signing_alg, now);
    keys.catch((error: unknown) => logger.error(`tenant ${tenant.id}: key generation failed: ${String(error)}`));
    return [tenant.id, { tenant, keys }] as const;
  });
  const context: ServerContext = { tenants: new Map(entries), store: options.store ?? new MemoryStore(now), now, logger };
  const app = createApp(context, options.onRequest);
  const listeners = new Set<Listening>();

  const fetch = async (request: Request): Promise<Response> => app.fetch(request);

  async function listen({ port = 0, host = '127.0.0.1' }: { port?: number; host?: string } = {}): Promise<Listening> {
    const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false }) as Server;
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

  return {
    fetch,
    listen,
    close: async () => {
      await Promise.all([...listeners].map((l) => l.close()));
    },
    rotateSigningKey: async (tenantId) => {
      const entry = context.tenants.get(tenantId);
      if (!entry) throw new Error(`there is no tenant "${tenantId}"`);
      const { id_token, access_token } = entry.tenant.lifetimes;
      const key = await (await entry.keys).rotate(Math.max(id_token, access_token));
      return { kid: key.kid };
    },
  };
}
