/**
 * Runtime control of a running server: users, clients, conformance faults, transport faults,
 * the clock, signing keys, DPoP server nonces and the request journal. The same interface is served in-process
 * (`server.control`), over IPC (`startServerProcess().control`) and over the HTTP control API;
 * every method returns a promise so a test can use any of the three the same way. Test use only.
 */
import type { EndedSessions } from '../backchannel/backchannel';
import type { Fault } from '../config/fault-names';
import type { ClientConfig, TenantConfig, UserConfig } from '../config/schema';
import type { RotatingNonces } from '../crypto/rotating-nonces';
import type { TenantEntry } from '../request/context';
import { type ActiveFault, ClientFaultTable, readFaultNames } from './client-faults';
import type { ControlledClock } from './clock';
import { ControlError } from './errors';
import { finite, onlyKeys, record, wholeNumber } from './input';
import { Journal, type JournalEntry, type RequestMatch, readMatch } from './journal';
import { type ClientSummary, Registry, type UserSummary, pickTenant } from './registry';
import { type ActiveTransportFault, type TransportFault, TransportFaultTable, readTransportFault } from './transport-faults';

/** Which tenant a call is about; may be left out on a server with one tenant. */
export interface TenantOption {
  tenant?: string;
}

/** How long a fault lasts: `times` requests, or until cleared when left out. */
export interface FaultOptions extends TenantOption {
  times?: number;
}

/** The server clock. */
export interface ClockState {
  /** The server's time, ISO 8601. */
  time: string;
  /** How far it is from the real (or configured) clock, in seconds. */
  offsetSeconds: number;
}

/** Runtime control of a server (see the README's "Runtime control"). Test use only. */
export interface ServerControl {
  users: {
    /** The tenant's users, without passwords. */
    list(options?: TenantOption): Promise<UserSummary[]>;
    /** Adds a user, checked like a config file entry; 409 when the username is taken. */
    add(user: UserConfig, options?: TenantOption): Promise<void>;
    /** Replaces the given keys of a user (`null` removes an optional key); 404 for an unknown user. */
    update(username: string, changes: Partial<UserConfig>, options?: TenantOption): Promise<void>;
    /** Removes a user; their sessions end. */
    remove(username: string, options?: TenantOption): Promise<void>;
  };
  clients: {
    /** The tenant's clients, without secrets. */
    list(options?: TenantOption): Promise<ClientSummary[]>;
    /** Registers a client, checked like a config file entry; 409 when the client_id is taken. */
    add(client: ClientConfig, options?: TenantOption): Promise<void>;
    /** Replaces the given keys of a client (`null` removes one, e.g. `client_secret: null` makes it public). */
    update(clientId: string, changes: { [K in keyof ClientConfig]?: ClientConfig[K] | null }, options?: TenantOption): Promise<void>;
    /** Removes a client; its tokens stop working. */
    remove(clientId: string, options?: TenantOption): Promise<void>;
  };
  faults: {
    /** Makes `clientId` misbehave (conformance faults) for its next `times` requests each fault comes into play in, or until cleared. */
    set(clientId: string, fault: Fault | readonly Fault[], options?: FaultOptions): Promise<void>;
    /** Clears runtime faults: of one client (optionally one fault), of a tenant, or all. Configured faults stay. */
    clear(clientId?: string, options?: TenantOption & { fault?: Fault }): Promise<void>;
    list(options?: TenantOption): Promise<ActiveFault[]>;
  };
  transport: {
    /** Makes an endpoint (e.g. `/oidc/jwks`) fail: a status, latency or a dropped connection, `times` times or until cleared. */
    set(endpoint: string, fault: TransportFault, options?: FaultOptions): Promise<void>;
    /** Clears transport faults: one endpoint's, a tenant's, or all. */
    clear(endpoint?: string, options?: TenantOption): Promise<void>;
    list(options?: TenantOption): Promise<ActiveTransportFault[]>;
  };
  clock: {
    get(): Promise<ClockState>;
    /** Moves the clock by `seconds` (negative: back). */
    advance(seconds: number): Promise<ClockState>;
    /** Sets the clock: a Date, an ISO 8601 string or epoch seconds. It keeps running from there. */
    set(time: Date | string | number): Promise<ClockState>;
    /** Back to the real (or configured) clock. */
    reset(): Promise<ClockState>;
  };
  keys: {
    /** A new signing key; the old one stays in the JWKS until tokens it signed have expired. */
    rotate(options?: TenantOption): Promise<{ kid: string }>;
  };
  dpop: {
    /** A new DPoP server nonce (every tenant with `dpop_nonce`); the one before stays accepted. */
    rotateNonce(): Promise<void>;
    /** A new DPoP server nonce, and every nonce handed out so far refused (`use_dpop_nonce`). */
    expireNonce(): Promise<void>;
  };
  sessions: {
    /**
     * Ends every sign-in of a user (their SSO cookies stop working on every instance of a shared
     * store) and sends each client those sign-ins gave tokens to a back-channel logout token;
     * resolves once every delivery succeeded or gave up. 404 for an unknown user.
     */
    end(username: string, options?: TenantOption): Promise<EndedSessions>;
  };
  requests: {
    /** Journal entries that fit `match`, oldest first. */
    list(match?: RequestMatch): Promise<JournalEntry[]>;
    clear(): Promise<void>;
  };
}

/**
 * Every control method as `area.name`: what IPC may call.
 *
 * @example
 * CONTROL_METHODS.includes('users.add'); // true
 */
export const CONTROL_METHODS = [
  'users.list', 'users.add', 'users.update', 'users.remove',
  'clients.list', 'clients.add', 'clients.update', 'clients.remove',
  'faults.set', 'faults.clear', 'faults.list',
  'transport.set', 'transport.clear', 'transport.list',
  'clock.get', 'clock.advance', 'clock.set', 'clock.reset',
  'keys.rotate',
  'dpop.rotateNonce', 'dpop.expireNonce',
  'sessions.end',
  'requests.list', 'requests.clear',
] as const;

/** The name of one control method. */
export type ControlMethod = (typeof CONTROL_METHODS)[number];

/** What the control needs of the server it controls. */
export interface ControlledServer {
  tenants: ReadonlyMap<string, TenantEntry>;
  tenantConfigs: readonly TenantConfig[];
  clock: ControlledClock;
  /** Paths of a tenant's endpoints, for transport faults. */
  endpoints: readonly string[];
  journalSize: number;
  rotateKey(tenantId: string): Promise<{ kid: string }>;
  /** The server's DPoP nonces, moved on by `dpop.rotateNonce` / `dpop.expireNonce`. */
  dpopNonces: RotatingNonces;
  /** Ends a user's sign-ins and sends their back-channel logout tokens (`sessions.end`). */
  endSessions(entry: TenantEntry, username: string): Promise<EndedSessions>;
}

/** The parts of the control the request path consults. */
export interface ControlState {
  clientFaults: ClientFaultTable;
  transportFaults: TransportFaultTable;
  journal: Journal;
  clock: ControlledClock;
}

function options(value: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (value === undefined) return {};
  const o = record(value, 'options');
  onlyKeys(o, '', allowed);
  return o;
}

function times(o: Record<string, unknown>): number | undefined {
  return wholeNumber(o.times, 'times', 1, 1_000_000);
}

function readTime(value: unknown): number {
  const ms =
    value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value * 1000 : Number.NaN;
  if (!Number.isFinite(ms)) throw new ControlError('invalid_input', 'time', 'must be a Date, an ISO 8601 string or epoch seconds');
  return ms;
}

/**
 * Creates the control of a server, and the state its request path consults.
 *
 * @example
 * const { control, state } = createControl({ tenants, tenantConfigs: config.tenants, clock, endpoints, journalSize: 1000, rotateKey });
 * await control.users.add({ username: 'bob', password: 'builder' });
 */
export function createControl(server: ControlledServer): { control: ServerControl; state: ControlState } {
  const clientFaults = new ClientFaultTable();
  const transportFaults = new TransportFaultTable(server.endpoints);
  const journal = new Journal(server.journalSize);
  const registry = new Registry(server.tenantConfigs, (tenant, clientId) => clientFaults.clear(tenant, clientId));
  const { tenants, clock } = server;
  const tenantOf = (o: Record<string, unknown>) => pickTenant(tenants, o.tenant);
  /** The tenant named in `o`, or every tenant when none is named. */
  const scope = (o: Record<string, unknown>) => (o.tenant === undefined ? undefined : tenantOf(o).tenant.id);
  const clockState = (): ClockState => ({ time: new Date(clock.now()).toISOString(), offsetSeconds: clock.offsetSeconds });

  const control: ServerControl = {
    users: {
      list: async (o) => registry.list('users', tenantOf(options(o, ['tenant']))) as UserSummary[],
      add: async (user, o) => registry.add('users', tenantOf(options(o, ['tenant'])), user),
      update: async (username, changes, o) => registry.update('users', tenantOf(options(o, ['tenant'])), username, changes),
      remove: async (username, o) => registry.remove('users', tenantOf(options(o, ['tenant'])), username),
    },
    clients: {
      list: async (o) => registry.list('clients', tenantOf(options(o, ['tenant']))) as ClientSummary[],
      add: async (client, o) => registry.add('clients', tenantOf(options(o, ['tenant'])), client),
      update: async (clientId, changes, o) => registry.update('clients', tenantOf(options(o, ['tenant'])), clientId, changes),
      remove: async (clientId, o) => registry.remove('clients', tenantOf(options(o, ['tenant'])), clientId),
    },
    faults: {
      async set(clientId, fault, o) {
        const opts = options(o, ['tenant', 'times']);
        const entry = tenantOf(opts);
        if (typeof clientId !== 'string' || !entry.tenant.clients.has(clientId)) {
          throw new ControlError('unknown_client', 'client_id', `there is no client ${JSON.stringify(clientId)} in tenant ${entry.tenant.id}`);
        }
        clientFaults.set(entry.tenant.id, clientId, readFaultNames(fault), times(opts));
      },
      async clear(clientId, o) {
        const opts = options(o, ['tenant', 'fault']);
        const fault = opts.fault === undefined ? undefined : readFaultNames(opts.fault)[0];
        if (clientId === undefined) {
          if (fault !== undefined) throw new ControlError('invalid_input', 'fault', 'needs a client_id');
          return clientFaults.clear(scope(opts));
        }
        const entry = tenantOf(opts);
        if (typeof clientId !== 'string' || !entry.tenant.clients.has(clientId)) {
          throw new ControlError('unknown_client', 'client_id', `there is no client ${JSON.stringify(clientId)} in tenant ${entry.tenant.id}`);
        }
        clientFaults.clear(entry.tenant.id, clientId, fault);
      },
      list: async (o) => clientFaults.list(scope(options(o, ['tenant']))),
    },
    transport: {
      async set(endpoint, fault, o) {
        const opts = options(o, ['tenant', 'times']);
        const path = transportFaults.endpoint(endpoint);
        transportFaults.set(tenantOf(opts).tenant.id, path, readTransportFault(fault), times(opts));
      },
      async clear(endpoint, o) {
        const opts = options(o, ['tenant']);
        const path = endpoint === undefined ? undefined : transportFaults.endpoint(endpoint);
        transportFaults.clear(path === undefined ? scope(opts) : tenantOf(opts).tenant.id, path);
      },
      list: async (o) => transportFaults.list(scope(options(o, ['tenant']))),
    },
    clock: {
      get: async () => clockState(),
      async advance(seconds) {
        clock.advance(finite(seconds, 'seconds'));
        return clockState();
      },
      async set(time) {
        clock.set(readTime(time));
        return clockState();
      },
      async reset() {
        clock.reset();
        return clockState();
      },
    },
    keys: {
      rotate: async (o) => server.rotateKey(tenantOf(options(o, ['tenant'])).tenant.id),
    },
    dpop: {
      rotateNonce: async () => server.dpopNonces.rotate(),
      expireNonce: async () => server.dpopNonces.expire(),
    },
    sessions: {
      async end(username, o) {
        const entry = tenantOf(options(o, ['tenant']));
        if (typeof username !== 'string' || !entry.tenant.users.has(username)) {
          throw new ControlError('unknown_user', 'username', `there is no user ${JSON.stringify(username)} in tenant ${entry.tenant.id}`);
        }
        return server.endSessions(entry, username);
      },
    },
    requests: {
      list: async (match) => journal.list(readMatch(match)),
      clear: async () => journal.clear(),
    },
  };
  return { control, state: { clientFaults, transportFaults, journal, clock } };
}

/**
 * Calls a control method by name with arguments from outside (IPC); unknown names are refused.
 *
 * @example
 * await callControl(control, 'clock.advance', [60]);
 */
export function callControl(control: ServerControl, method: unknown, args: unknown): Promise<unknown> {
  if (typeof method !== 'string' || !(CONTROL_METHODS as readonly string[]).includes(method)) {
    return Promise.reject(new ControlError('invalid_input', 'method', `must be one of ${CONTROL_METHODS.join(', ')}`));
  }
  if (!Array.isArray(args)) return Promise.reject(new ControlError('invalid_input', 'args', 'must be an array'));
  const [area, name] = method.split('.') as [keyof ServerControl, string];
  const fn = (control[area] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name];
  return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
}
