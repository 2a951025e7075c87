/**
 * Clients registered at run time through the registration endpoint (RFC 7591), per tenant, in
 * this instance's memory (a restart or another instance of a fleet does not know them). Each
 * request sees its tenant with these clients added to the configured ones, so every endpoint
 * looks a registered client up exactly as a configured one; the configured tenant itself is
 * never changed (the control API may replace it at any time).
 */
import type { Client, Tenant } from '../config/model';
import type { TenantEntry } from '../request/context';

/** One registered client, what it registered with, and its management token's hash. */
export interface Registration {
  client: Client;
  /** The client metadata as the client will read it back (RFC 7592 2.1). */
  metadata: Record<string, unknown>;
  /** storageKey of the registration access token (RFC 7592). */
  accessTokenKey: string;
  /** Epoch seconds. */
  issuedAt: number;
}

interface Registry {
  byId: Map<string, Registration>;
  /** Bumped on every change, so cached views are rebuilt. */
  version: number;
  view?: { base: Tenant; version: number; tenant: Tenant };
}

const registries = new WeakMap<TenantEntry, Registry>();

function registryOf(entry: TenantEntry): Registry {
  let registry = registries.get(entry);
  if (!registry) {
    registry = { byId: new Map(), version: 0 };
    registries.set(entry, registry);
  }
  return registry;
}

/**
 * `tenant` (the entry's tenant as this request sees it) with the clients registered at run time
 * added; the same object when there are none. Built once per change, not per request.
 *
 * @example
 * const tenant = withRegisteredClients(entry, entry.tenant);
 */
export function withRegisteredClients(entry: TenantEntry, tenant: Tenant): Tenant {
  const registry = registries.get(entry);
  if (!registry || registry.byId.size === 0) return tenant;
  const cached = registry.view;
  if (cached && cached.base === tenant && cached.version === registry.version) return cached.tenant;
  const clients = new Map(tenant.clients);
  const corsOrigins = new Set(tenant.corsOrigins);
  for (const [id, { client }] of registry.byId) {
    // A configured client of the same id (added later through the control API) wins.
    if (clients.has(id)) continue;
    clients.set(id, client);
    for (const uri of client.redirect_uris) corsOrigins.add(new URL(uri).origin);
  }
  const view: Tenant = { ...tenant, clients, corsOrigins };
  registry.view = { base: tenant, version: registry.version, tenant: view };
  return view;
}

/**
 * The registered clients of a tenant: look up, add, replace, remove.
 *
 * @example
 * const clients = registeredClients(entry);
 * clients.set(registration);
 */
export function registeredClients(entry: TenantEntry) {
  const registry = registryOf(entry);
  return {
    get size(): number {
      return registry.byId.size;
    },
    get(clientId: string): Registration | undefined {
      return registry.byId.get(clientId);
    },
    set(registration: Registration): void {
      registry.byId.set(registration.client.client_id, registration);
      registry.version++;
    },
    delete(clientId: string): boolean {
      const deleted = registry.byId.delete(clientId);
      if (deleted) registry.version++;
      return deleted;
    },
  };
}
