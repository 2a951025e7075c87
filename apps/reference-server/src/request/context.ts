/** The state handlers share: the server-wide parts, and those of the request's tenant. */
import type { Backchannel } from '../backchannel/backchannel';
import type { Logger } from '../config/logger';
import type { RotatingNonces } from '../crypto/rotating-nonces';
import type { OriginPolicy } from '../http/origin';
import type { Tenant } from '../config/model';
import type { KeySet, SigningKey } from '../keys/keys';
import type { Store } from '../store/store';

/** One tenant as the server runs it. */
export interface TenantEntry {
  tenant: Tenant;
  /** The signing keys, made (or read from the shared store) on the first call; concurrent first calls share one. */
  keys(): Promise<KeySet>;
  /** Makes a new key current; the old one stays published for `keepSeconds`. */
  rotateKey(keepSeconds: number): Promise<SigningKey>;
  /** The tenant's store (its own key namespace when the store is shared). */
  store: Store;
}

/** Server-wide state. */
export interface ServerContext {
  tenants: ReadonlyMap<string, TenantEntry>;
  /** In a RequestContext: the store of the request's tenant. */
  store: Store;
  /** Clock in epoch milliseconds. */
  now: () => number;
  logger: Logger;
  /** Which origin the server answers as (public origin, trusted hosts, proxy headers). */
  origin: OriginPolicy;
  /** DPoP server nonces, for tenants with `dpop_nonce`. */
  dpopNonces: RotatingNonces;
  /** Back-channel logout: the sign-ins served and the logout tokens sent when they end. */
  backchannel?: Backchannel;
}

/** Everything a handler needs for one request to one tenant. */
export interface RequestContext {
  server: ServerContext;
  tenant: Tenant;
  /**
   * The tenant's signing keys, for the endpoints that sign or publish. Not awaited up front:
   * discovery and opaque-token grants answer while the first key is still being generated.
   */
  keys(): Promise<KeySet>;
  request: Request;
  /**
   * Headers every response to this request carries: on the endpoints browsers call
   * cross-origin, `Vary: Origin` and, for an allowed origin, the CORS headers (see cors.ts);
   * none on the others. Passed where each response is built, so it is never copied after.
   */
  corsHeaders: Readonly<Record<string, string>>;
  url: URL;
  /** `{origin}/{tenantId}`: the configured public origin, else the request's (loopback or trusted) origin. */
  issuer: string;
  /** Whether users reach the server over https: cookies are then `Secure` and `__Host-`. */
  secure: boolean;
  /** The client's IP address (the proxy's `X-Forwarded-For` when trusted); undefined in-process. */
  clientAddress: string | undefined;
}

/**
 * A {@link RequestContext} whose `url` is parsed when an endpoint first reads it (a few do), not
 * on every request. A class, not an object literal with a getter: V8 builds such a literal on a
 * slow path, microseconds each, which a token request would pay every time.
 *
 * @example
 * const ctx = new LazyUrlContext({ server, tenant, keys, request, corsHeaders, issuer, secure, clientAddress });
 */
export class LazyUrlContext implements RequestContext {
  server: ServerContext;
  tenant: Tenant;
  keys: () => Promise<KeySet>;
  request: Request;
  corsHeaders: Readonly<Record<string, string>>;
  issuer: string;
  secure: boolean;
  clientAddress: string | undefined;
  #url: URL | undefined;

  constructor(parts: Omit<RequestContext, 'url'>) {
    this.server = parts.server;
    this.tenant = parts.tenant;
    this.keys = parts.keys;
    this.request = parts.request;
    this.corsHeaders = parts.corsHeaders;
    this.issuer = parts.issuer;
    this.secure = parts.secure;
    this.clientAddress = parts.clientAddress;
  }

  get url(): URL {
    this.#url ??= new URL(this.request.url);
    return this.#url;
  }
}

/**
 * The clock in epoch seconds, as JWT claims use it.
 *
 * @example
 * const iat = nowSeconds(ctx.server);
 */
export function nowSeconds(server: ServerContext): number {
  return Math.floor(server.now() / 1000);
}
