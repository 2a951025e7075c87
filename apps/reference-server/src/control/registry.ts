/**
 * Users and clients changed at runtime. Each change is applied to the tenant's config entry
 * and the whole tenant is validated again with the config file's own rules, so a runtime user
 * or client is held to exactly what a config file would be; the validated tenant then replaces
 * the running one (requests under way finish with the one they started with). Per instance:
 * with the Redis store, change every instance.
 */
import { ConfigError, validateConfig, type ClientConfig, type TenantConfig } from '../config/schema';
import type { TenantEntry } from '../request/context';
import { ControlError } from './errors';
import { name, record } from './input';

/** A user as listed: never the password. */
export interface UserSummary {
  username: string;
  claims: Record<string, unknown>;
}

/** A client as listed: never the secret. */
export type ClientSummary = Omit<ClientConfig, 'client_secret'> & { confidential: boolean };

type Kind = 'users' | 'clients';
const KEY: Readonly<Record<Kind, 'username' | 'client_id'>> = { users: 'username', clients: 'client_id' };
const SINGULAR: Readonly<Record<Kind, 'user' | 'client'>> = { users: 'user', clients: 'client' };

/**
 * The tenant a call is about: the named one, or the only one of a single-tenant server.
 *
 * @example
 * const entry = pickTenant(tenants, options.tenant);
 */
export function pickTenant(tenants: ReadonlyMap<string, TenantEntry>, tenant: unknown): TenantEntry {
  if (tenant === undefined) {
    if (tenants.size === 1) return [...tenants.values()][0] as TenantEntry;
    throw new ControlError('invalid_input', 'tenant', `this server has several tenants (${[...tenants.keys()].join(', ')}): name one`);
  }
  const entry = typeof tenant === 'string' ? tenants.get(tenant) : undefined;
  if (!entry) throw new ControlError('unknown_tenant', 'tenant', `there is no tenant ${JSON.stringify(tenant)} on this server`);
  return entry;
}

/** A config error of the candidate tenant, with its field said relative to the changed entry. */
function relativeError(error: ConfigError, kind: Kind, index: number): ControlError {
  const field = error.field
    .replace(/^tenants(?:\[0\]|\.0)\.?/, '')
    .replace(new RegExp(`^${kind}(?:\\[${index}\\]|\\.${index})`), SINGULAR[kind]);
  const prefix = `invalid config at ${error.field}: `;
  const problem = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return new ControlError('invalid_input', field || SINGULAR[kind], problem);
}

/**
 * The users and clients of every tenant, as config entries.
 *
 * @example
 * const registry = new Registry(tenants, config.tenants, (tenant, clientId) => faults.clear(tenant, clientId));
 * registry.add('users', entry, { username: 'bob', password: 'builder' });
 */
export class Registry {
  private readonly configs = new Map<string, TenantConfig>();

  constructor(
    configs: readonly TenantConfig[],
    private readonly onClientRemoved: (tenantId: string, clientId: string) => void,
  ) {
    for (const config of configs) this.configs.set(config.id, structuredClone(config));
  }

  private entries(kind: Kind, entry: TenantEntry): Record<string, unknown>[] {
    const config = this.configs.get(entry.tenant.id);
    return ((config?.[kind] ?? []) as unknown[]).map((item) => item as Record<string, unknown>);
  }

  private indexOf(kind: Kind, entry: TenantEntry, id: unknown): number {
    const key = KEY[kind];
    const wanted = name(id, key);
    const index = this.entries(kind, entry).findIndex((item) => item[key] === wanted);
    if (index < 0) {
      throw new ControlError(kind === 'users' ? 'unknown_user' : 'unknown_client', key, `there is no ${SINGULAR[kind]} ${JSON.stringify(wanted)} in tenant ${entry.tenant.id}`);
    }
    return index;
  }

  /** Validates the tenant with `items` as its users or clients, then makes it the running one. */
  private commit(kind: Kind, entry: TenantEntry, items: Record<string, unknown>[], index: number): void {
    const config = this.configs.get(entry.tenant.id) as TenantConfig;
    const candidate = { ...config, [kind]: items } as TenantConfig;
    let tenant: TenantEntry['tenant'] | undefined;
    try {
      [tenant] = validateConfig({ tenants: [candidate] });
    } catch (error) {
      if (error instanceof ConfigError) throw relativeError(error, kind, index);
      throw error;
    }
    if (!tenant) throw new Error('validation returned no tenant');
    this.configs.set(config.id, candidate);
    entry.tenant = tenant;
  }

  /**
   * The users or clients of the tenant, without passwords and secrets.
   *
   * @example
   * registry.list('users', entry); // [{ username: 'alice', claims: { ... } }]
   */
  list(kind: Kind, entry: TenantEntry): UserSummary[] | ClientSummary[] {
    const items = this.entries(kind, entry);
    if (kind === 'users') return items.map((u) => ({ username: u.username as string, claims: structuredClone((u.claims ?? {}) as Record<string, unknown>) }));
    return items.map(({ client_secret, ...rest }) => ({ ...(structuredClone(rest) as Omit<ClientConfig, 'client_secret'>), confidential: client_secret !== undefined || rest.jwks !== undefined || rest.jwks_uri !== undefined }));
  }

  /**
   * Adds a user or client; 409 when its username or client_id is taken.
   *
   * @example
   * registry.add('clients', entry, { client_id: 'cli', client_secret: 's', grant_types: ['client_credentials'] });
   */
  add(kind: Kind, entry: TenantEntry, value: unknown): void {
    const item = structuredClone(record(value, SINGULAR[kind]));
    const key = KEY[kind];
    const id = name(item[key], `${SINGULAR[kind]}.${key}`);
    const items = this.entries(kind, entry);
    if (items.some((existing) => existing[key] === id)) {
      throw new ControlError('already_exists', `${SINGULAR[kind]}.${key}`, `${JSON.stringify(id)} already exists in tenant ${entry.tenant.id}`);
    }
    this.commit(kind, entry, [...items, item], items.length);
  }

  /**
   * Changes a user or client: each key given replaces the current one, `null` removes it.
   * The username or client_id itself cannot change.
   *
   * @example
   * registry.update('users', entry, 'alice', { password: 'new password' });
   */
  update(kind: Kind, entry: TenantEntry, id: unknown, changes: unknown): void {
    const index = this.indexOf(kind, entry, id);
    const patch = structuredClone(record(changes, 'changes'));
    const key = KEY[kind];
    if (patch[key] !== undefined && patch[key] !== id) throw new ControlError('invalid_input', `changes.${key}`, 'cannot be changed; remove and add instead');
    const items = this.entries(kind, entry);
    const updated: Record<string, unknown> = { ...items[index], ...patch };
    for (const [k, v] of Object.entries(updated)) if (v === null) delete updated[k];
    this.commit(kind, entry, items.map((item, i) => (i === index ? updated : item)), index);
  }

  /**
   * Removes a user (their sessions end) or a client (its tokens stop working, its runtime faults go).
   *
   * @example
   * registry.remove('clients', entry, 'web');
   */
  remove(kind: Kind, entry: TenantEntry, id: unknown): void {
    const index = this.indexOf(kind, entry, id);
    this.commit(kind, entry, this.entries(kind, entry).filter((_, i) => i !== index), index);
    if (kind === 'clients') this.onClientRemoved(entry.tenant.id, id as string);
  }
}
