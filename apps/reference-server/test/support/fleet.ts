// Two reference-server instances on one Redis, behind a small HTTP load balancer that keeps
// the Host header (so both instances see the same issuer, as behind a real one). A request
// with `x-instance: a` or `b` goes to that instance; the others alternate between them.
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReferenceServer, demoConfig, type Listening, type ReferenceServer, type ServerConfig } from '../../src/index';
import { outlastClientKeepAlive } from '../../../../test-support/keep-alive';

export interface Instance {
  server: ReferenceServer;
  listening: Listening;
  /** Requests this instance received, by path. */
  requests: string[];
  /** Lines it logged (errors and info). */
  logs: string[];
}

export interface Fleet {
  a: Instance;
  b: Instance;
  /** The load balancer's origin; the tenant's issuer is `${origin}/demo`. */
  origin: string;
  issuer: string;
  close(): Promise<void>;
}

/** The demo config on the Redis store at `url`. */
export function redisConfig(url: string, prefix: string, change?: (config: ServerConfig) => void): ServerConfig {
  const config = demoConfig();
  config.store = { type: 'redis', url, prefix };
  change?.(config);
  return config;
}

async function startInstance(config: ServerConfig): Promise<Instance> {
  const requests: string[] = [];
  const logs: string[] = [];
  const server = await createReferenceServer(config, {
    onRequest: (info) => requests.push(info.path),
    logger: { info: (m) => logs.push(m), error: (m) => logs.push(m) },
  });
  const listening = await server.listen({ port: 0 });
  return { server, listening, requests, logs };
}

export async function startFleet(config: ServerConfig): Promise<Fleet> {
  const a = await startInstance(config);
  const b = await startInstance(config);
  let turn = 0;
  const balancer: Server = createServer((req, res) => {
    const { 'x-instance': chosen, ...headers } = req.headers;
    const route = chosen === 'a' || chosen === 'b' ? chosen : turn++ % 2 === 0 ? 'a' : 'b';
    const target = new URL((route === 'a' ? a : b).listening.origin);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // A dropped upstream answers 502, or cuts the answer already begun; a dropped client ends the upstream request.
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  });
  outlastClientKeepAlive(balancer);
  balancer.listen(0, '127.0.0.1');
  await once(balancer, 'listening');
  const origin = `http://127.0.0.1:${(balancer.address() as AddressInfo).port}`;
  return {
    a,
    b,
    origin,
    issuer: `${origin}/demo`,
    async close() {
      balancer.closeAllConnections();
      await new Promise((resolve) => balancer.close(resolve));
      await Promise.all([a.server.close(), b.server.close()]);
    },
  };
}

/** Polls `check` until it returns true, at most `timeoutMs`; the wait is on a condition, bounded. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
