// Starts the reference server on 127.0.0.1 (port 0) with the demo tenant, and records the
// requests it serves so tests can count what the SDK sent.
import { type ServerConfig, type ServerControl, createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { type NodeClient, type NodeClientOptions, type StartLoginOptions, serviceProvider } from '../../src/index';
import { developmentKeysFor } from '../../../../test-support/development-keys';

export interface RunningServer {
  origin: string;
  /** Issuer (and base URL) of the demo tenant. */
  issuer: string;
  requests: Array<{ method: string; path: string }>;
  /** Requests served so far whose path ends with `suffix`, e.g. '/oidc/token'. */
  count(method: string, suffix: string): number;
  /** Runtime control of the server: transport faults, conformance faults, clock, users, clients. */
  control: ServerControl;
  close(): Promise<void>;
}

export async function startReferenceServer(config: ServerConfig = demoConfig()): Promise<RunningServer> {
  const requests: Array<{ method: string; path: string }> = [];
  const server = await createReferenceServer(config, {
    onRequest: ({ method, path }) => requests.push({ method, path }),
    logger: false,
    developmentKeys: developmentKeysFor(config),
  });
  const { origin, close } = await server.listen({ port: 0, host: '127.0.0.1' });
  return {
    origin,
    issuer: `${origin}/demo`,
    requests,
    count: (method, suffix) => requests.filter((r) => r.method === method && r.path.endsWith(suffix)).length,
    control: server.control,
    close,
  };
}

/** A fetch that records the form bodies the SDK posts (to check what reached the token endpoint). */
export function recordingFetch() {
  const posts: Array<{ url: string; body: URLSearchParams; authorization: string | null }> = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const body = init?.body;
    if (init?.method === 'POST' && (typeof body === 'string' || body instanceof URLSearchParams)) {
      posts.push({ url: String(input), body: new URLSearchParams(body), authorization: new Headers(init.headers).get('authorization') });
    }
    return fetch(input, init);
  };
  return { fetch: fetchFn, posts };
}

/** Starts a login with `client`, signs in as alice through the real HTML forms and returns the provider's response. */
export async function loginThroughForms(client: NodeClient, options?: StartLoginOptions, consent: 'allow' | 'deny' = 'allow') {
  const { url, transaction } = await client.startLogin(options);
  const result = await completeLogin(url, { username: 'alice', password: 'wonderland', consent });
  return { url, transaction, result };
}

/** Options of the demo tenant's client-credentials client `service` on `server`. */
export function serviceClientOptions(server: RunningServer): NodeClientOptions {
  return { provider: serviceProvider(server.issuer), clientId: 'service', clientSecret: 'service-secret', grants: ['client_credentials'] };
}
