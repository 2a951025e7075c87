/**
 * Where the server keeps its state. The interface is async and its single-use operations
 * (`takeCode`, `takeRefreshToken`, `takeInteraction`, `countFailedLogin`, `countAttempt`,
 * `rememberProof`) are atomic, so a
 * shared implementation (e.g. Redis) can replace the in-memory one without changing callers.
 * Keys of secret values are their hashes (see `storageKey`).
 */
import type { ResponseType } from '../config/model';

/** Where the authorization response is delivered. */
export type ResponseMode = 'query' | 'fragment' | 'form_post';

/** A validated authorize request, kept while the user signs in and consents. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  responseType: ResponseType;
  responseMode: ResponseMode;
  /** JARM: responses go inside a signed `response` JWT. */
  jarm?: boolean;
  scopes: string[];
  state: string;
  nonce?: string;
  codeChallenge?: string;
  prompt: string[];
  maxAge?: number;
  loginHint?: string;
  /** RFC 8707 resources the access tokens may be for (each registered for the client). */
  resources?: string[];
  /** RFC 9449 10 `dpop_jkt`: the code may only be exchanged with a proof by this key. */
  dpopJkt?: string;
}

/** A pushed authorization request (RFC 9126), validated at push time, waiting for its one use at authorize. */
export interface PushedRequest {
  tenant: string;
  request: AuthorizationRequest;
  /** Epoch seconds. */
  expiresAt: number;
}

/** Who signed in, and when (epoch seconds). */
export interface Authentication {
  username: string;
  sub: string;
  /** Public session id, the `sid` claim (not the cookie value). */
  sid: string;
  authTime: number;
}

/** A login in progress: the authorize request bound to one browser. */
export interface Interaction {
  tenant: string;
  request: AuthorizationRequest;
  /** storageKey of the browser cookie the interaction was started with. */
  browser: string;
  csrf: string;
  failedLogins: number;
  /** Set once the user is signed in and only consent is missing. */
  user?: Authentication;
}

/** A signed-in browser. */
export interface Session extends Authentication {
  tenant: string;
  expiresAt: number;
}

/** What an authorization code stands for. */
export interface CodeRecord {
  tenant: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  nonce?: string;
  codeChallenge?: string;
  /** RFC 8707 resources of the authorize request. */
  resources?: string[];
  /** The authorize request's `dpop_jkt`: only a proof by this key may exchange the code. */
  dpopJkt?: string;
  user: Authentication;
  /** Everything issued from this code shares the grant id, so a replay revokes it all. */
  grantId: string;
  expiresAt: number;
}

/** What an access token stands for; `user` is absent for client credentials. */
export interface AccessTokenRecord {
  tenant: string;
  clientId: string;
  scopes: string[];
  user?: Authentication;
  grantId: string;
  expiresAt: number;
  /** Thumbprint of the DPoP key the token is bound to; absent for a bearer token. */
  jkt?: string;
  /** The RFC 8707 resources the token was issued for (its audience), when the grant named any. */
  resources?: string[];
  /** Written by earlier versions: the one resource of the token. */
  resource?: string;
}

/** One refresh token of a family (all tokens rotated from one grant share `grantId`). */
export interface RefreshTokenRecord {
  tenant: string;
  clientId: string;
  scopes: string[];
  /** RFC 8707 resources of the grant: each refresh may name one of them. */
  resources?: string[];
  /** Written by earlier versions: the one resource of the grant. */
  resource?: string;
  user: Authentication;
  grantId: string;
  expiresAt: number;
  /** Thumbprint of the DPoP key a public client's refresh token is bound to (RFC 9449 5). */
  jkt?: string;
}

/**
 * Thrown by a store whose backing service (e.g. Redis) cannot be reached or did not answer in
 * time. The server answers 503 in the endpoint's shape and issues nothing; the next request
 * tries again. The message never contains a key or a value.
 *
 * @example
 * throw new StoreUnavailableError('Redis did not answer within 2000 ms', { cause });
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Result of an atomic single-use read: the record, and whether it had been used before. */
export interface Taken<T> {
  record: T;
  alreadyUsed: boolean;
}

/**
 * The server's state. TTLs are in seconds; entries may disappear after them.
 *
 * @example
 * const store: Store = new MemoryStore(() => Date.now());
 */
export interface Store {
  saveInteraction(id: string, interaction: Interaction, ttlSeconds: number): Promise<void>;
  findInteraction(id: string): Promise<Interaction | undefined>;
  /** Atomically adds one failed login and returns the new count (0 if the interaction is gone). */
  countFailedLogin(id: string): Promise<number>;
  /** Atomically reads and deletes: an interaction completes once. */
  takeInteraction(id: string): Promise<Interaction | undefined>;

  saveSession(key: string, session: Session, ttlSeconds: number): Promise<void>;
  findSession(key: string): Promise<Session | undefined>;
  deleteSession(key: string): Promise<void>;

  saveConsent(key: string, scopes: string[]): Promise<void>;
  findConsent(key: string): Promise<string[] | undefined>;

  saveCode(key: string, record: CodeRecord, ttlSeconds: number): Promise<void>;
  /** Reads the code without marking it used, so a request that fails its checks leaves it unspent. */
  peekCode(key: string): Promise<Taken<CodeRecord> | undefined>;
  /** Atomically marks the code used; `alreadyUsed` tells a replay from the first redemption. */
  takeCode(key: string): Promise<Taken<CodeRecord> | undefined>;

  saveAccessToken(key: string, record: AccessTokenRecord, ttlSeconds: number): Promise<void>;
  findAccessToken(key: string): Promise<AccessTokenRecord | undefined>;
  deleteAccessToken(key: string): Promise<void>;

  saveRefreshToken(key: string, record: RefreshTokenRecord, ttlSeconds: number): Promise<void>;
  findRefreshToken(key: string): Promise<RefreshTokenRecord | undefined>;
  /** Reads the refresh token without marking it used, so a request that fails its checks leaves it unspent. */
  peekRefreshToken(key: string): Promise<Taken<RefreshTokenRecord> | undefined>;
  /** Atomically marks the refresh token used; `alreadyUsed` reveals reuse of a rotated token. */
  takeRefreshToken(key: string): Promise<Taken<RefreshTokenRecord> | undefined>;

  /** Revokes every token of a grant (a code's tokens, a refresh family). */
  revokeGrant(grantId: string, ttlSeconds: number): Promise<void>;
  isGrantRevoked(grantId: string): Promise<boolean>;

  /**
   * Atomically adds one to a counter and returns the new count. A new counter lives
   * `ttlSeconds` from its first hit (a fixed window); later hits do not extend it.
   */
  countHit(key: string, ttlSeconds: number): Promise<number>;
  /** The counter's value; 0 when it is absent or expired. */
  hitCount(key: string): Promise<number>;
  /** Removes a counter. */
  clearHits(key: string): Promise<void>;
  /**
   * Atomically, over several counters: when every one is below its limit, adds one to each and
   * answers `allowed` with the new counts; when any has reached its limit, changes nothing and
   * answers the counts as they are. A counter lives `ttlSeconds` from its first hit, and again
   * from the hit that brings it to its limit (so a lockout lasts a whole window).
   */
  countAttempt(counters: readonly { key: string; limit: number }[], ttlSeconds: number): Promise<{ allowed: boolean; counts: number[] }>;
  /** Takes one back from a counter (never below 0), keeping its expiry. */
  refundHit(key: string): Promise<void>;

  /**
   * Atomically records a DPoP proof (its key's thumbprint and `jti`, hashed) for `ttlSeconds`:
   * true when it was not recorded yet, false for a replay.
   */
  rememberProof(key: string, ttlSeconds: number): Promise<boolean>;

  savePushedRequest(key: string, record: PushedRequest, ttlSeconds: number): Promise<void>;
  /** Atomically reads and deletes: a `request_uri` is used once. */
  takePushedRequest(key: string): Promise<PushedRequest | undefined>;
}

interface Entry<S> {
  value: S;
  used: boolean;
  expiresAt: number;
}

/** How a map copies values in and out, so a caller's later change never reaches the store (nor the store's the caller). */
interface Copying<T, S> {
  store(value: T): S;
  load(stored: S): T;
}

/** Any structured-cloneable value, kept as an object (for maps whose entries are changed in place). */
const cloned = <T>(): Copying<T, T> => ({ store: structuredClone, load: structuredClone });
/** Primitives need no copy. */
const same = <T extends number | boolean>(): Copying<T, T> => ({ store: (value) => value, load: (value) => value });
/**
 * Records as JSON text, as the Redis store keeps them: one flat string per entry is cheaper to
 * make than a structured clone and far cheaper for the garbage collector to keep (an issued
 * access token lives for its lifetime; a busy token endpoint holds hundreds of thousands).
 */
const jsonText = <T>(): Copying<T, string> => ({ store: (value) => JSON.stringify(value), load: (text) => JSON.parse(text) as T });

/** How many entries each write checks for expiry, so the map stays near its live size. */
const SWEEP_PER_WRITE = 2;

/** A map whose entries expire on the injected clock; copies values in and out like a real store. */
class ExpiringMap<T, S = T> {
  private readonly entries = new Map<string, Entry<S>>();
  /** Where the incremental sweep resumes; Map iterators stay valid across inserts and deletes. */
  private cursor: Iterator<[string, Entry<S>]> | undefined;

  constructor(
    private readonly now: () => number,
    private readonly copying: Copying<T, S>,
  ) {}

  set(key: string, value: T, ttlSeconds: number): void {
    const now = this.now();
    this.sweep(now);
    this.entries.set(key, { value: this.copying.store(value), used: false, expiresAt: now + ttlSeconds * 1000 });
  }

  /** The stored entry itself (no copy), for changes in place. */
  entry(key: string): Entry<S> | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  get(key: string): T | undefined {
    const entry = this.entry(key);
    return entry && this.copying.load(entry.value);
  }

  peek(key: string): Taken<T> | undefined {
    const entry = this.entry(key);
    return entry && { record: this.copying.load(entry.value), alreadyUsed: entry.used };
  }

  take(key: string): Taken<T> | undefined {
    const entry = this.entry(key);
    if (!entry) return undefined;
    const alreadyUsed = entry.used;
    entry.used = true;
    return { record: this.copying.load(entry.value), alreadyUsed };
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /**
   * Drops expired entries a few at a time, in insertion order, wrapping around: each write
   * costs O(1), and an expired entry is gone once the cursor has passed it (within about half
   * as many writes as there are entries), whatever the lifetimes.
   */
  private sweep(now: number): void {
    for (let i = 0; i < SWEEP_PER_WRITE; i++) {
      this.cursor ??= this.entries.entries();
      const next = this.cursor.next();
      if (next.done) {
        this.cursor = undefined;
        return;
      }
      const [key, entry] = next.value;
      if (entry.expiresAt <= now) this.entries.delete(key);
    }
  }
}

const FOREVER = 100 * 365 * 24 * 3600;

/**
 * The default store: process memory, expiring entries on the server's clock. Its operations
 * run to completion without awaiting, which makes them atomic in one process.
 *
 * @example
 * const server = await createReferenceServer(config, { store: new MemoryStore(Date.now) });
 */
export class MemoryStore implements Store {
  private readonly interactions: ExpiringMap<Interaction>;
  private readonly sessions: ExpiringMap<Session, string>;
  private readonly consents: ExpiringMap<string[], string>;
  private readonly codes: ExpiringMap<CodeRecord, string>;
  private readonly accessTokens: ExpiringMap<AccessTokenRecord, string>;
  private readonly refreshTokens: ExpiringMap<RefreshTokenRecord, string>;
  private readonly revokedGrants: ExpiringMap<true>;
  private readonly hits: ExpiringMap<number>;
  private readonly proofs: ExpiringMap<true>;
  private readonly pushed: ExpiringMap<PushedRequest, string>;

  constructor(now: () => number = Date.now) {
    // Changed in place (countFailedLogin): kept as objects.
    this.interactions = new ExpiringMap(now, cloned());
    this.sessions = new ExpiringMap(now, jsonText());
    this.consents = new ExpiringMap(now, jsonText());
    this.codes = new ExpiringMap(now, jsonText());
    this.accessTokens = new ExpiringMap(now, jsonText());
    this.refreshTokens = new ExpiringMap(now, jsonText());
    this.revokedGrants = new ExpiringMap(now, same());
    this.hits = new ExpiringMap(now, same());
    this.proofs = new ExpiringMap(now, same());
    this.pushed = new ExpiringMap(now, jsonText());
  }

  async saveInteraction(id: string, interaction: Interaction, ttlSeconds: number): Promise<void> {
    this.interactions.set(id, interaction, ttlSeconds);
  }
  async findInteraction(id: string): Promise<Interaction | undefined> {
    return this.interactions.get(id);
  }
  async countFailedLogin(id: string): Promise<number> {
    const entry = this.interactions.entry(id);
    if (!entry) return 0;
    entry.value.failedLogins += 1;
    return entry.value.failedLogins;
  }
  async takeInteraction(id: string): Promise<Interaction | undefined> {
    const value = this.interactions.get(id);
    this.interactions.delete(id);
    return value;
  }

  async saveSession(key: string, session: Session, ttlSeconds: number): Promise<void> {
    this.sessions.set(key, session, ttlSeconds);
  }
  async findSession(key: string): Promise<Session | undefined> {
    return this.sessions.get(key);
  }
  async deleteSession(key: string): Promise<void> {
    this.sessions.delete(key);
  }

  async saveConsent(key: string, scopes: string[]): Promise<void> {
    this.consents.set(key, scopes, FOREVER);
  }
  async findConsent(key: string): Promise<string[] | undefined> {
    return this.consents.get(key);
  }

  async saveCode(key: string, record: CodeRecord, ttlSeconds: number): Promise<void> {
    this.codes.set(key, record, ttlSeconds);
  }
  async peekCode(key: string): Promise<Taken<CodeRecord> | undefined> {
    return this.codes.peek(key);
  }
  async takeCode(key: string): Promise<Taken<CodeRecord> | undefined> {
    return this.codes.take(key);
  }

  async saveAccessToken(key: string, record: AccessTokenRecord, ttlSeconds: number): Promise<void> {
    this.accessTokens.set(key, record, ttlSeconds);
  }
  async findAccessToken(key: string): Promise<AccessTokenRecord | undefined> {
    return this.accessTokens.get(key);
  }
  async deleteAccessToken(key: string): Promise<void> {
    this.accessTokens.delete(key);
  }

  async saveRefreshToken(key: string, record: RefreshTokenRecord, ttlSeconds: number): Promise<void> {
    this.refreshTokens.set(key, record, ttlSeconds);
  }
  async findRefreshToken(key: string): Promise<RefreshTokenRecord | undefined> {
    return this.refreshTokens.get(key);
  }
  async peekRefreshToken(key: string): Promise<Taken<RefreshTokenRecord> | undefined> {
    return this.refreshTokens.peek(key);
  }
  async takeRefreshToken(key: string): Promise<Taken<RefreshTokenRecord> | undefined> {
    return this.refreshTokens.take(key);
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    this.revokedGrants.set(grantId, true, ttlSeconds);
  }
  async isGrantRevoked(grantId: string): Promise<boolean> {
    return this.revokedGrants.get(grantId) === true;
  }

  async countHit(key: string, ttlSeconds: number): Promise<number> {
    const entry = this.hits.entry(key);
    if (!entry) {
      this.hits.set(key, 1, ttlSeconds);
      return 1;
    }
    entry.value += 1;
    return entry.value;
  }
  async hitCount(key: string): Promise<number> {
    return this.hits.get(key) ?? 0;
  }
  async clearHits(key: string): Promise<void> {
    this.hits.delete(key);
  }
  // No await inside: the check and the increments run as one step in this process.
  async countAttempt(counters: readonly { key: string; limit: number }[], ttlSeconds: number): Promise<{ allowed: boolean; counts: number[] }> {
    const entries = counters.map((c) => this.hits.entry(c.key));
    const before = entries.map((e) => e?.value ?? 0);
    if (counters.some((c, i) => (before[i] ?? 0) >= c.limit)) return { allowed: false, counts: before };
    const counts = counters.map((c, i) => {
      const entry = entries[i];
      const count = (entry?.value ?? 0) + 1;
      if (!entry || count === c.limit) this.hits.set(c.key, count, ttlSeconds);
      else entry.value = count;
      return count;
    });
    return { allowed: true, counts };
  }
  async refundHit(key: string): Promise<void> {
    const entry = this.hits.entry(key);
    if (entry && entry.value > 0) entry.value -= 1;
  }
  // No await inside: the check and the write run as one step in this process.
  async rememberProof(key: string, ttlSeconds: number): Promise<boolean> {
    if (this.proofs.entry(key)) return false;
    this.proofs.set(key, true, ttlSeconds);
    return true;
  }

  async savePushedRequest(key: string, record: PushedRequest, ttlSeconds: number): Promise<void> {
    this.pushed.set(key, record, ttlSeconds);
  }
  async takePushedRequest(key: string): Promise<PushedRequest | undefined> {
    const value = this.pushed.get(key);
    this.pushed.delete(key);
    return value;
  }
}
