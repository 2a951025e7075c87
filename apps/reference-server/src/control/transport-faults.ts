/**
 * Transport faults: an endpoint of a tenant answers with an error status (5xx, or 429 with
 * `Retry-After`), answers late, or drops the connection, for its next N requests or until
 * cleared. They hit the endpoint before its handler runs, whatever the client.
 */
import type { IncomingMessage } from 'node:http';
import { jsonResponse } from '../http/errors';
import { errorPage } from '../http/html';
import { ControlError } from './errors';
import { onlyKeys, record, wholeNumber } from './input';

/** What happens to a request of the endpoint. */
export interface TransportFault {
  /** Answer with this status instead: 429 or 500-599, in the endpoint's error shape. */
  status?: number;
  /** `Retry-After` seconds on the status answer. */
  retryAfter?: number;
  /** Wait this long first (then answer normally, or as `status` / `drop` say). */
  latencyMs?: number;
  /** Close the connection without an answer (in-process: `fetch` rejects). */
  drop?: boolean;
}

/** A transport fault as listed. */
export interface ActiveTransportFault extends TransportFault {
  tenant: string;
  endpoint: string;
  /** Requests left; `null` until cleared. */
  remaining: number | null;
}

const FAULT_KEYS = ['status', 'retryAfter', 'latencyMs', 'drop'] as const;
const MAX_LATENCY_MS = 60_000;

/**
 * `value` as a transport fault, checked: a status, a drop or a latency (a latency may precede either).
 *
 * @example
 * readTransportFault({ status: 429, retryAfter: 2 });
 */
export function readTransportFault(value: unknown): TransportFault {
  const fault = record(value, 'fault');
  onlyKeys(fault, 'fault', FAULT_KEYS);
  const status = wholeNumber(fault.status, 'fault.status', 100, 599);
  if (status !== undefined && status !== 429 && status < 500) throw new ControlError('invalid_input', 'fault.status', 'must be 429 or from 500 to 599');
  const retryAfter = wholeNumber(fault.retryAfter, 'fault.retryAfter', 0, 86_400);
  if (retryAfter !== undefined && status === undefined) throw new ControlError('invalid_input', 'fault.retryAfter', 'needs a status');
  const latencyMs = wholeNumber(fault.latencyMs, 'fault.latencyMs', 0, MAX_LATENCY_MS);
  if (fault.drop !== undefined && fault.drop !== true) throw new ControlError('invalid_input', 'fault.drop', 'must be true when given');
  const drop = fault.drop === true;
  if (drop && status !== undefined) throw new ControlError('invalid_input', 'fault.drop', 'cannot be combined with a status');
  if (!drop && status === undefined && latencyMs === undefined) {
    throw new ControlError('invalid_input', 'fault', 'needs a status, latencyMs or drop: true');
  }
  return {
    ...(status !== undefined ? { status } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(latencyMs !== undefined ? { latencyMs } : {}),
    ...(drop ? { drop } : {}),
  };
}

/**
 * Transport faults by tenant and endpoint, one per endpoint.
 *
 * @example
 * table.set('demo', '/oidc/jwks', { status: 503 }, undefined); // a JWKS outage until cleared
 * table.take('demo', '/oidc/jwks'); // { status: 503 }
 */
export class TransportFaultTable {
  private readonly faults = new Map<string, { fault: TransportFault; remaining: number | undefined }>();
  /** What each request got, for the journal. */
  private readonly injected = new WeakMap<Request, InjectedKind>();

  constructor(private readonly endpoints: readonly string[]) {}

  /**
   * `value` as the path of an endpoint of a tenant, e.g. `/oidc/jwks`.
   *
   * @example
   * table.endpoint('/oauth/token');
   */
  endpoint(value: unknown): string {
    if (typeof value !== 'string' || !this.endpoints.includes(value)) {
      throw new ControlError('unknown_endpoint', 'endpoint', `must be one of ${this.endpoints.join(', ')}`);
    }
    return value;
  }

  /** Whether no fault is set: the check every request makes. */
  get empty(): boolean {
    return this.faults.size === 0;
  }

  /**
   * Sets the endpoint's fault for `times` requests (undefined: until cleared), replacing any.
   *
   * @example
   * table.set('demo', '/oauth/token', { status: 503 }, 2);
   */
  set(tenantId: string, endpoint: string, fault: TransportFault, times: number | undefined): void {
    this.faults.set(JSON.stringify([tenantId, endpoint]), { fault, remaining: times });
  }

  /**
   * Clears all faults, a tenant's, or one endpoint's.
   *
   * @example
   * table.clear('demo', '/oidc/jwks');
   */
  clear(tenantId?: string, endpoint?: string): void {
    for (const key of [...this.faults.keys()]) {
      const [tenant, path] = JSON.parse(key) as [string, string];
      if ((tenantId === undefined || tenant === tenantId) && (endpoint === undefined || path === endpoint)) this.faults.delete(key);
    }
  }

  /**
   * The faults set, optionally of one tenant.
   *
   * @example
   * table.list(); // [{ tenant: 'demo', endpoint: '/oidc/jwks', status: 503, remaining: null }]
   */
  list(tenantId?: string): ActiveTransportFault[] {
    return [...this.faults].flatMap(([key, { fault, remaining }]) => {
      const [tenant, endpoint] = JSON.parse(key) as [string, string];
      return tenantId === undefined || tenant === tenantId ? [{ tenant, endpoint, ...fault, remaining: remaining ?? null }] : [];
    });
  }

  /**
   * The fault for `request` to the endpoint, counted and remembered; undefined when there is none.
   *
   * @example
   * const fault = table.empty ? undefined : table.take(tenant.id, '/oidc/jwks', request);
   */
  take(tenantId: string, endpoint: string, request: Request): TransportFault | undefined {
    const key = JSON.stringify([tenantId, endpoint]);
    const slot = this.faults.get(key);
    if (!slot) return undefined;
    if (slot.remaining !== undefined && --slot.remaining === 0) this.faults.delete(key);
    const { fault } = slot;
    this.injected.set(request, fault.drop ? 'drop' : fault.status !== undefined ? 'status' : 'latency');
    return fault;
  }

  /**
   * The kind of fault `request` got, if any.
   *
   * @example
   * table.injectedInto(request); // 'drop'
   */
  injectedInto(request: Request): InjectedKind | undefined {
    return this.injected.get(request);
  }
}

/** The kind of transport fault a request got. */
export type InjectedKind = 'status' | 'latency' | 'drop';

/**
 * The node request behind a Hono request's env, when it came through a listener (none in-process).
 *
 * @example
 * incomingOf(c.env)?.socket.remoteAddress;
 */
export function incomingOf(env: unknown): IncomingMessage | undefined {
  return (env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/**
 * Answers as the transport fault says: after its latency, a dropped connection (the socket
 * destroyed; in-process, {@link ConnectionDropped}), an error status in the endpoint's shape
 * (`kind`), or undefined (latency only) to go on normally.
 *
 * @example
 * const answer = await injectTransportFault('json', fault, c.env, ctx.corsHeaders);
 * if (answer) return answer;
 */
export async function injectTransportFault(
  kind: 'json' | 'html',
  fault: TransportFault,
  env: unknown,
  headers: Readonly<Record<string, string>>,
): Promise<Response | undefined> {
  if (fault.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  if (fault.drop) {
    const incoming = incomingOf(env);
    if (!incoming) throw new ConnectionDropped();
    incoming.socket.destroy();
    return new Response(null, { status: 502 });
  }
  if (fault.status === undefined) return undefined;
  const extra: Record<string, string> = fault.retryAfter !== undefined ? { 'Retry-After': String(fault.retryAfter) } : {};
  const error = fault.status === 503 || fault.status === 429 ? 'temporarily_unavailable' : 'server_error';
  const message = `The server is failing on purpose (transport fault: HTTP ${fault.status}).`;
  if (kind === 'html') {
    const page = errorPage(fault.status, message, error);
    for (const [name, value] of Object.entries(extra)) page.headers.set(name, value);
    return page;
  }
  return jsonResponse({ error, error_description: message }, fault.status, { ...headers, ...extra });
}

/**
 * Thrown by the app for a `drop` fault on a request without a socket (in-process `fetch`),
 * which the server's `fetch` turns into the rejection a dropped connection gives.
 *
 * @example
 * if (error instanceof ConnectionDropped) throw new TypeError('fetch failed', { cause: error });
 */
export class ConnectionDropped extends Error {
  constructor() {
    super('the connection was dropped on purpose (transport fault)');
    this.name = 'ConnectionDropped';
  }
}
