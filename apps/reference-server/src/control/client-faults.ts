/**
 * Conformance faults switched on at runtime: a client misbehaves for its next N requests in
 * which a fault comes into play (an ID token signed, a redirect sent, a token response
 * written, ...), or until cleared. Requests see a view of their tenant with these faults
 * added; a tenant without runtime faults is served as configured, off the faults/ path.
 */
import { FAULT_NAMES, type Fault } from '../config/fault-names';
import type { Client, Tenant } from '../config/model';
import { ControlError } from './errors';

/** How many more requests a fault applies to; `undefined` until cleared. */
interface Slot {
  remaining: number | undefined;
}

/** A runtime fault as listed. */
export interface ActiveFault {
  tenant: string;
  client_id: string;
  fault: Fault;
  /** Requests left; `null` until cleared. */
  remaining: number | null;
}

/**
 * `value` as fault names: one name or a list of them, each known.
 *
 * @example
 * readFaultNames(['id_token_wrong_aud']);
 */
export function readFaultNames(value: unknown): Fault[] {
  const names = Array.isArray(value) ? value : [value];
  if (names.length === 0) throw new ControlError('invalid_input', 'fault', 'must name at least one fault');
  for (const name of names) {
    if (typeof name !== 'string' || !(FAULT_NAMES as readonly string[]).includes(name)) {
      throw new ControlError('unknown_fault', 'fault', `${JSON.stringify(name)} is not a fault; see FAULTS for the names`);
    }
  }
  return [...new Set(names as Fault[])];
}

/**
 * A client's faults for one request: the configured ones, plus runtime ones, each counted
 * once per request the first time a handler asks for it.
 */
class CountedFaults extends Set<Fault> {
  constructor(
    private readonly configured: ReadonlySet<Fault>,
    private readonly runtime: Map<Fault, Slot>,
    private readonly used: Set<Slot>,
  ) {
    super([...configured, ...runtime.keys()]);
  }

  override has(fault: Fault): boolean {
    if (this.configured.has(fault)) return true;
    const slot = this.runtime.get(fault);
    if (!slot) return false;
    if (this.used.has(slot)) return true;
    // Used up by a concurrent request since this one started.
    if (slot.remaining === 0) return false;
    if (slot.remaining !== undefined) {
      slot.remaining -= 1;
      if (slot.remaining === 0) this.runtime.delete(fault);
    }
    this.used.add(slot);
    return true;
  }
}

/**
 * Runtime faults of every tenant, by client.
 *
 * @example
 * table.set('demo', 'web', ['id_token_bad_signature'], 1);
 * const tenant = table.view(entry.tenant); // for one request
 */
export class ClientFaultTable {
  private readonly tenants = new Map<string, Map<string, Map<Fault, Slot>>>();

  /**
   * Switches `faults` on for `clientId` for `times` requests each (undefined: until cleared),
   * replacing any count they had.
   *
   * @example
   * table.set('demo', 'web', ['redirect_missing_state'], undefined);
   */
  set(tenantId: string, clientId: string, faults: readonly Fault[], times: number | undefined): void {
    const clients = this.tenants.get(tenantId) ?? new Map<string, Map<Fault, Slot>>();
    this.tenants.set(tenantId, clients);
    const slots = clients.get(clientId) ?? new Map<Fault, Slot>();
    clients.set(clientId, slots);
    // A new slot, not an updated one: a request under way keeps counting the old one.
    for (const fault of faults) slots.set(fault, { remaining: times });
  }

  /**
   * Switches runtime faults off: all of them, a tenant's, a client's or one fault of a client.
   *
   * @example
   * table.clear('demo', 'web', 'id_token_wrong_aud');
   */
  clear(tenantId?: string, clientId?: string, fault?: Fault): void {
    if (tenantId === undefined) {
      this.tenants.clear();
    } else if (clientId === undefined) {
      this.tenants.delete(tenantId);
    } else if (fault === undefined) {
      this.tenants.get(tenantId)?.delete(clientId);
    } else {
      this.tenants.get(tenantId)?.get(clientId)?.delete(fault);
    }
  }

  /**
   * The runtime faults still active, optionally of one tenant.
   *
   * @example
   * table.list('demo'); // [{ tenant: 'demo', client_id: 'web', fault: 'id_token_expired', remaining: 2 }]
   */
  list(tenantId?: string): ActiveFault[] {
    const out: ActiveFault[] = [];
    for (const [tenant, clients] of this.tenants) {
      if (tenantId !== undefined && tenant !== tenantId) continue;
      for (const [client_id, slots] of clients) {
        for (const [fault, slot] of slots) out.push({ tenant, client_id, fault, remaining: slot.remaining ?? null });
      }
    }
    return out;
  }

  /**
   * The tenant as one request sees it: unchanged when it has no runtime faults (the healthy
   * path), else with the faults added to its clients, counted as this request uses them.
   *
   * @example
   * const tenant = table.view(entry.tenant);
   */
  view(tenant: Tenant): Tenant {
    const clients = this.tenants.get(tenant.id);
    if (!clients || ![...clients.values()].some((slots) => slots.size > 0)) return tenant;
    const used = new Set<Slot>();
    const viewed = new Map<string, Client>();
    for (const [id, client] of tenant.clients) {
      const slots = clients.get(id);
      viewed.set(id, slots && slots.size > 0 ? { ...client, faults: new CountedFaults(client.faults, slots, used) } : client);
    }
    return { ...tenant, clients: viewed, hasFaults: true };
  }
}
