/**
 * Request objects (RFC 9101) for `createNodeClient`: the `requestObject` option, and the store
 * that hosts request objects sent by reference (`request_uri`), which the provider fetches from
 * the app. Each stored object is served once, at an unguessable path, until it expires.
 */

import { OidcError } from '@oidc-rp/core';
import type { AuthorizationRequest, ProviderMetadata } from '@oidc-rp/core';
import { type RequestObjectSigner, withRequestObject } from '@oidc-rp/core/signed';
import { assertSecureUrl, invalidOptions } from '@oidc-rp/core/internal';

/**
 * The `requestObject` option of `createNodeClient`: every login's parameters go in a request
 * object made by `signer`. Sent by value (`request`), inside the pushed request when the client
 * uses PAR, or by reference (`request_uri`) when `store` is given.
 *
 * @example
 * ```ts
 * const requestObject: NodeRequestObjectOptions = { signer: requestObjectSigner({ key: privateJwk }) };
 * ```
 */
export interface NodeRequestObjectOptions {
  /** From core's `requestObjectSigner({ key })` (or `{ alg: 'none' }` where the provider lists it). */
  signer: RequestObjectSigner;
  /** Host the objects here and send their `request_uri` instead (not with PAR). Default: by value. */
  store?: RequestObjectStore;
}

/** Options of {@link createRequestObjectStore}. */
export interface RequestObjectStoreOptions {
  /**
   * The public URL the store is served under, e.g. `https://app.example.com/request-objects`:
   * each object gets `{baseUrl}/{random id}`. https, or http on loopback.
   */
  baseUrl: string;
  /** Seconds an object waits to be fetched. Default 300. */
  ttl?: number;
  /** Most objects waiting at once; past it the oldest are dropped. Default 1000. */
  maxEntries?: number;
  /** The clock, in milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** Request objects waiting for the provider to fetch them. Made by {@link createRequestObjectStore}. */
export interface RequestObjectStore {
  /** Keeps `requestObject` and answers the URL it is served at (its `request_uri`). */
  put(requestObject: string): string;
  /**
   * Answers a GET for a stored object (`application/oauth-authz-req+jwt`, `Cache-Control:
   * no-store`), once: the entry is gone after it. Undefined for a request outside `baseUrl`, so
   * the app's other routes take it; 404 for an unknown, spent or expired object.
   */
  handle(request: Request): Response | undefined;
}

/**
 * A store of request objects sent by reference. Mount `handle` on the app's HTTP server at
 * `baseUrl` (it answers `undefined` for other paths), and pass the store as
 * `requestObject.store`. Entries live in this process's memory: behind a load balancer, route
 * `baseUrl` to the instance that made the login, or share entries with a store of your own
 * implementing {@link RequestObjectStore}.
 *
 * @example
 * ```ts
 * const store = createRequestObjectStore({ baseUrl: 'https://app.example.com/request-objects' });
 * // in the request handler: const answer = store.handle(request); if (answer) return answer;
 * ```
 */
export function createRequestObjectStore(options: RequestObjectStoreOptions): RequestObjectStore {
  const { baseUrl } = options ?? ({} as RequestObjectStoreOptions);
  if (typeof baseUrl !== 'string') throw invalidOptions('createRequestObjectStore needs baseUrl: the public URL its handler is mounted at.');
  assertSecureUrl(baseUrl, 'baseUrl');
  const base = new URL(baseUrl);
  if (base.search || base.hash) throw invalidOptions('baseUrl must have no query or fragment.');
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  const ttl = options.ttl ?? 300;
  const maxEntries = options.maxEntries ?? 1000;
  if (!(Number.isInteger(ttl) && ttl > 0 && ttl <= 3600)) throw invalidOptions('ttl must be whole seconds from 1 to 3600.');
  if (!(Number.isInteger(maxEntries) && maxEntries > 0)) throw invalidOptions('maxEntries must be a positive whole number.');
  const now = options.now ?? Date.now;
  const entries = new Map<string, { jwt: string; expiresAt: number }>();

  return {
    put(requestObject) {
      if (typeof requestObject !== 'string' || requestObject === '') throw invalidOptions('put() needs the request object (a JWT).');
      for (const [id, entry] of entries) {
        if (entry.expiresAt > now() && entries.size < maxEntries) break;
        entries.delete(id); // expired, or the oldest over the bound
      }
      const id = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
      entries.set(id, { jwt: requestObject, expiresAt: now() + ttl * 1000 });
      return `${base.origin}${prefix}${id}`;
    },
    handle(request) {
      const url = new URL(request.url);
      if (!url.pathname.startsWith(prefix)) return undefined;
      const id = url.pathname.slice(prefix.length);
      const entry = request.method === 'GET' ? entries.get(id) : undefined;
      if (entry) entries.delete(id);
      if (!entry || entry.expiresAt <= now()) return new Response('Not found', { status: 404, headers: { 'Cache-Control': 'no-store' } });
      return new Response(entry.jwt, { status: 200, headers: { 'Content-Type': 'application/oauth-authz-req+jwt', 'Cache-Control': 'no-store' } });
    },
  };
}

/** The `requestObject` option, checked when the client is made. Internal. */
export function checkRequestObjectOptions(value: NodeRequestObjectOptions | undefined): NodeRequestObjectOptions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || typeof value.signer !== 'object' || value.signer === null || !('alg' in value.signer)) {
    throw invalidOptions('requestObject needs { signer: requestObjectSigner({ key }) } (and optionally store).');
  }
  if (value.store !== undefined && (typeof value.store.put !== 'function' || typeof value.store.handle !== 'function')) {
    throw invalidOptions('requestObject.store must come from createRequestObjectStore() or implement put() and handle().');
  }
  return value;
}

/**
 * The login request moved into a request object the way the options say: for PAR (`pushed`),
 * by reference with a store, else by value. Internal.
 */
export function toRequestObject(
  options: NodeRequestObjectOptions,
  provider: ProviderMetadata,
  request: AuthorizationRequest,
  pushed: boolean,
): Promise<AuthorizationRequest> {
  const { signer, store } = options;
  if (pushed && store) {
    throw new OidcError('invalid_options', 'A pushed login carries its request object in the PAR body: leave requestObject.store out, or set par: false.');
  }
  return withRequestObject({ provider, request, signer, delivery: pushed ? 'par' : store ? (jwt) => store.put(jwt) : 'value' });
}
