/**
 * The request journal: what each request asked for and how it was answered, kept in a ring
 * buffer so a long test run holds the latest entries only. Parameter values are recorded only
 * for names that never carry a secret; every other value is replaced by `[redacted]`, so codes,
 * tokens, verifiers, secrets, passwords, state and nonce never enter it.
 */
import type { MiddlewareHandler } from 'hono';
import { decodeComponent, formBodyRead, queryParams } from '../http/params';
import { ControlError } from './errors';
import { onlyKeys, record } from './input';
import { ConnectionDropped, type InjectedKind } from './transport-faults';
import { pathnameOf } from '../http/url-path';

/** One answered request. */
export interface JournalEntry {
  /** Position in the journal since the server started (or since the journal was cleared). */
  seq: number;
  /** The server clock when the request arrived, ISO 8601. */
  time: string;
  method: string;
  /** The URL path, e.g. `/demo/oauth/token`. */
  path: string;
  /** The tenant, when the path names one of this server. */
  tenant?: string;
  /** The path inside the tenant, e.g. `/oauth/token`. */
  endpoint?: string;
  /** From the query, the form body or HTTP Basic credentials. */
  client_id?: string;
  grant_type?: string;
  response_type?: string;
  /** How the request authenticated: HTTP Basic or a bearer token (never the credentials themselves). */
  authorization?: 'basic' | 'bearer';
  /** Query and form parameters; values of names that may carry a secret read `[redacted]`. */
  params: Record<string, string>;
  /** The response status; 0 when the connection was dropped on purpose. */
  status: number;
  /** The transport fault injected into this request, if any. */
  transport_fault?: InjectedKind;
  /**
   * Set on a request the server made (a back-channel logout token POSTed to a client's
   * `backchannel_logout_uri`, which is then `path`): the attempt, and why there was no answer.
   */
  outbound?: { attempt: number; error?: 'timeout' | 'network' };
}

/** Which journal entries to return: every given field must be equal. */
export interface RequestMatch {
  method?: string;
  /** The full path (`/demo/oauth/token`) or the path inside the tenant (`/oauth/token`). */
  path?: string;
  tenant?: string;
  client_id?: string;
  grant_type?: string;
  response_type?: string;
  status?: number;
}

/** Parameters whose values are recorded; any other value is `[redacted]`. */
const SHOWN = new Set([
  'client_id',
  'grant_type',
  'response_type',
  'response_mode',
  'scope',
  'redirect_uri',
  'post_logout_redirect_uri',
  'prompt',
  'max_age',
  'code_challenge_method',
  'token_type_hint',
  'login_hint',
  'ui_locales',
  'display',
  'acr_values',
  'resource',
  'decision',
  'username',
]);
/**
 * What the journal records instead of a value that may be secret.
 *
 * @example
 * entry.params.code === REDACTED; // the code was sent; its value is not kept
 */
export const REDACTED = '[redacted]';
const MATCH_KEYS = ['method', 'path', 'tenant', 'client_id', 'grant_type', 'response_type', 'status'] as const;
const MAX_ENTRIES = 100_000;

/**
 * Parameters as the journal records them: shown names with their values (long ones cut), the rest redacted.
 *
 * @example
 * journalParams(new Map([['code', 'abc'], ['grant_type', 'authorization_code']])); // { code: '[redacted]', grant_type: 'authorization_code' }
 */
export function journalParams(values: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of values) out[clip(key, MAX_NAME)] = SHOWN.has(key) ? clip(value, MAX_VALUE) : REDACTED;
  return out;
}

/** Names and values are cut to keep a full journal small (at most 64 parameters per request). */
const MAX_NAME = 64;
const MAX_VALUE = 256;
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The client id in HTTP Basic credentials (RFC 6749 2.3.1: form-encoded), never the secret. */
function basicClientId(header: string): string | undefined {
  let decoded: string;
  try {
    decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  return colon > 0 ? decodeComponent(decoded.slice(0, colon)) : undefined;
}

/**
 * What the journal records about a request once it is answered: the query, and the form body
 * when the handler read one (the body is never read a second time, so a request refused before
 * its body was read, or with a malformed body, records no body parameters).
 *
 * @example
 * await next();
 * const facts = describeRequest(request);
 */
export function describeRequest(request: Request): Pick<JournalEntry, 'client_id' | 'grant_type' | 'response_type' | 'authorization' | 'params'> {
  const values = new Map(queryParams(request).values);
  for (const [key, value] of formBodyRead(request)?.values ?? []) values.set(key, value);
  const header = request.headers.get('authorization') ?? '';
  const scheme = header.slice(0, 7).toLowerCase();
  const authorization = scheme.startsWith('basic ') ? 'basic' : scheme === 'bearer ' ? 'bearer' : undefined;
  const clientId = values.get('client_id') ?? (authorization === 'basic' ? basicClientId(header) : undefined);
  return {
    ...(clientId !== undefined ? { client_id: clientId } : {}),
    ...(values.has('grant_type') ? { grant_type: values.get('grant_type') } : {}),
    ...(values.has('response_type') ? { response_type: values.get('response_type') } : {}),
    ...(authorization ? { authorization } : {}),
    params: journalParams(values),
  };
}

/**
 * A {@link RequestMatch} from outside (IPC, HTTP query), checked.
 *
 * @example
 * const match = readMatch({ path: '/oauth/token' });
 */
export function readMatch(value: unknown): RequestMatch {
  if (value === undefined) return {};
  const match = record(value, 'match');
  onlyKeys(match, '', MATCH_KEYS);
  for (const key of MATCH_KEYS) {
    const v = match[key];
    if (v === undefined) continue;
    if (key === 'status' ? typeof v !== 'number' : typeof v !== 'string') {
      throw new ControlError('invalid_input', key, key === 'status' ? 'must be a number' : 'must be a string');
    }
  }
  return match as RequestMatch;
}

function matches(entry: JournalEntry, match: RequestMatch): boolean {
  for (const key of MATCH_KEYS) {
    const wanted = match[key];
    if (wanted === undefined) continue;
    if (key === 'path' ? wanted !== entry.path && wanted !== entry.endpoint : wanted !== entry[key]) return false;
  }
  return true;
}

/**
 * The latest `capacity` requests, oldest first.
 *
 * @example
 * const journal = new Journal(1000);
 * journal.list({ path: '/oauth/token', grant_type: 'refresh_token' });
 */
export class Journal {
  private entries: JournalEntry[] = [];
  private next = 0;
  private seq = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0 || capacity > MAX_ENTRIES) {
      throw new RangeError(`the journal size must be a whole number from 0 to ${MAX_ENTRIES}`);
    }
  }

  /**
   * Adds an entry, dropping the oldest once full.
   *
   * @example
   * journal.add({ time, method: 'GET', path: '/demo/oidc/jwks', params: {}, status: 200 });
   */
  add(entry: Omit<JournalEntry, 'seq'>): void {
    if (this.capacity === 0) return;
    const full = { seq: ++this.seq, ...entry };
    if (this.entries.length < this.capacity) this.entries.push(full);
    else this.entries[this.next] = full;
    this.next = (this.next + 1) % this.capacity;
  }

  /**
   * The entries that fit `match`, oldest first (copies: changing them changes nothing).
   *
   * @example
   * journal.list({ method: 'POST', client_id: 'web' });
   */
  list(match: RequestMatch = {}): JournalEntry[] {
    const ordered = this.entries.length < this.capacity ? this.entries : [...this.entries.slice(this.next), ...this.entries.slice(0, this.next)];
    return ordered.filter((entry) => matches(entry, match)).map((entry) => structuredClone(entry));
  }

  /**
   * Forgets every entry.
   *
   * @example
   * journal.clear();
   */
  clear(): void {
    this.entries = [];
    this.next = 0;
    this.seq = 0;
  }
}

/**
 * The middleware that journals every request but those under `skipPrefix` (the control API).
 *
 * @example
 * app.use('*', journalRequests(journal, clock.now, (id) => tenants.has(id), (r) => faults.injectedInto(r), '/_control'));
 */
export function journalRequests(
  journal: Journal,
  now: () => number,
  isTenant: (id: string) => boolean,
  injectedInto: (request: Request) => InjectedKind | undefined,
  skipPrefix: string,
): MiddlewareHandler {
  return async (c, next) => {
    if (journal.capacity === 0) return next();
    const path = pathnameOf(c.req.url);
    if (path === skipPrefix || path.startsWith(`${skipPrefix}/`)) return next();
    const time = new Date(now()).toISOString();
    const request = c.req.raw;
    const [, first = '', ...rest] = path.split('/');
    const where = isTenant(first) ? { tenant: first, endpoint: `/${rest.join('/')}` } : {};
    const add = (status: number) => {
      const fault = injectedInto(request);
      journal.add({ time, method: request.method, path, ...where, ...describeRequest(request), status, ...(fault ? { transport_fault: fault } : {}) });
    };
    try {
      await next();
    } catch (error) {
      if (error instanceof ConnectionDropped) add(0);
      throw error;
    }
    add(injectedInto(request) === 'drop' ? 0 : c.res.status);
  };
}
