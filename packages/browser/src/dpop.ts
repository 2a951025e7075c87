/**
 * DPoP (RFC 9449) as an opt-in part: the client's tokens are bound to an ES256 key pair whose
 * private key cannot be exported, kept in IndexedDB as the `CryptoKeyPair` object itself
 * (structured clone; a key exported to bytes could be copied away, and a JWK of a
 * non-extractable key cannot be made at all). One key per client id and provider, made at the
 * first login, shared by every tab of the origin, deleted at logout. A refresh token bound to it is worthless elsewhere, which
 * is what makes a session kept in IndexedDB across reloads a reasonable choice. A stored pair
 * whose private key can be exported was not made here (script planted it to learn the key): it
 * is removed, never used.
 */

import { DEV } from './dev';
import {
  OidcError,
  createDpopProof,
  generateDpopKeyPair,
  protectedResourceRequest,
  type DpopHandle,
  type DpopProofParams,
  type HttpOptions,
} from '@oidc-rp/core';
import { dpopForGeneratedKey, invalidOptions } from '@oidc-rp/core/internal';
import { keyValueStore } from './indexed-db-storage';
import type { ResolvedOptions } from './options';
import type { Part } from './parts';
import type { StorageAdapter } from './storage';

/**
 * DPoP, as the client's `dpop` option takes it (made by {@link dpop}). Opaque.
 *
 * @example
 * ```ts
 * const part: DpopPart = dpop();
 * ```
 */
export type DpopPart = Part<'dpop'>;

/**
 * The client's DPoP key, as `client.dpop` offers it to functions over the client and to the app
 * (present only with the `dpop` part). Each method loads the key from IndexedDB; when it cannot
 * be loaded (deleted, unreadable) the session ends and the call rejects with
 * `dpop_key_unavailable`: a new login makes a new key.
 *
 * @example
 * ```ts
 * const token = await client.getAccessToken();
 * const proof = await client.dpop!.proof({ htm: 'GET', htu: 'https://api.example.com/orders', accessToken: token });
 * ```
 */
export interface BrowserDpop {
  /** The key as a core `DpopHandle`, for `@oidc-rp/core`'s functions (`getUserInfo(client)` sends with it). */
  handle(): Promise<DpopHandle>;
  /**
   * A DPoP proof for one of the app's own requests (core's `createDpopProof` with this key): give
   * it the access token to get `ath`, and send it as `DPoP` next to `Authorization: DPoP <token>`.
   */
  proof(params: DpopProofParams): Promise<string>;
  /**
   * Sends a request with `Authorization: DPoP <accessToken>` and a proof (with `ath`), never
   * `Bearer`, retrying once when the resource asks for a nonce (`use_dpop_nonce`); core's
   * `protectedResourceRequest` with this key. `authorizedFetch(client)` sends with it, so an app
   * that uses `authorizedFetch` without this part bundles none of it. Redirects are not followed;
   * `Authorization` and `DPoP` headers of the request are replaced. Transport failures reject
   * with `network_error` or `request_timeout`.
   */
  request(accessToken: string, input: RequestInfo | URL, init?: RequestInit, http?: HttpOptions): Promise<Response>;
}

/** What the client uses of the part. Internal: names ending in `_` are shortened by the build. */
export interface Dpop {
  /**
   * Binds the part to one client: replaces the flow's `request_` and `complete_` in `options`
   * with versions that add the key (`dpop_jkt`, a proof), and guards the token storage: reading
   * the stored session loads its key (into `core_`, which every token call spreads, so a refresh
   * carries a proof), a session whose key cannot be loaded is removed and ended with `adopt`,
   * and removing the session deletes the key. Returns what `client.dpop` offers.
   */
  bind_(options: ResolvedOptions, adopt: (session: undefined, error: OidcError) => void): BrowserDpop;
}

/**
 * Binds the client's tokens to a DPoP key (RFC 9449): a non-extractable ES256 key pair (the
 * algorithm every DPoP server takes) kept in IndexedDB, one per client id and provider, shared
 * by the tabs of the origin (with `crossTab`, made under its lock, so two tabs never make two
 * keys). Logins send
 * `dpop_jkt`, the code exchange and every refresh carry a proof, and a `Bearer` answer is refused
 * (`dpop_token_type_mismatch`); `authorizedFetch(client)` and `getUserInfo(client)` send
 * `Authorization: DPoP` with a proof. A session whose key cannot be loaded ends
 * (`dpop_key_unavailable`); the key is deleted with the session (logout).
 *
 * @example
 * ```ts
 * import { createBrowserClient, crossTab, dpop } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, dpop: dpop(), crossTab: crossTab({ storage: 'indexedDB' }) });
 * ```
 */
export function dpop(): DpopPart {
  const part: Dpop = { bind_: bindKey };
  return part as unknown as DpopPart;
}

// What generateDpopKeyPair makes and this part stores: an ECDSA P-256 pair whose private key cannot be exported.
function isOwnKeyPair(value: unknown): value is CryptoKeyPair {
  const { privateKey, publicKey } = (value ?? {}) as Partial<CryptoKeyPair>;
  return (
    privateKey?.type === 'private' &&
    privateKey.extractable === false &&
    (privateKey.algorithm as EcKeyAlgorithm).namedCurve === 'P-256' &&
    privateKey.algorithm.name === 'ECDSA' &&
    publicKey?.type === 'public'
  );
}

function bindKey(options: ResolvedOptions, adopt: Parameters<Dpop['bind_']>[1]): BrowserDpop {
  const { now, issuer, clientId, core_: core, request_: request, complete_: complete, runtime_: runtime } = options;
  if (options.fragment_) {
    throw invalidOptions(DEV && 'dpop and implicitFlow do not go together: the implicit flow has no token request to bind. Use the code flow.');
  }
  // The key's entry in IndexedDB, and the lock under which a tab makes it.
  const name = `oidc-rp.dpop:${clientId}:${issuer}`;
  const store = keyValueStore<CryptoKeyPair>();
  let making: Promise<DpopHandle> | undefined;

  // The stored key's handle (the same object while the stored key stays the same: it holds the
  // nonces), undefined when none is stored; rejects when the entry cannot be read or used. Kept
  // in `core_` for the token calls. Only this part writes there, so the key is one
  // generateDpopKeyPair made (ES256).
  async function load(): Promise<DpopHandle | undefined> {
    let stored = await store.get(name);
    // A pair this part did not make (its private key can be exported: script that planted it
    // knows it) would bind the tokens to a key usable outside the browser: never used, removed.
    if (stored && !isOwnKeyPair(stored)) {
      await store.remove(name);
      stored = null;
    }
    const loaded = stored ? await dpopForGeneratedKey({ keyPair: stored, now }) : undefined;
    core.dpop = loaded && core.dpop?.jkt === loaded.jkt ? core.dpop : loaded;
    return core.dpop;
  }

  // The key the session's tokens are bound to. Without it they are of no use: the stored session
  // (and what is left of the key) is removed, the session ends, and the call says why.
  async function handle(): Promise<DpopHandle> {
    let cause: unknown;
    const found = await load().catch((error: unknown) => {
      cause = error;
    });
    if (found) return found;
    const error = new OidcError(
      'dpop_key_unavailable',
      DEV && 'The DPoP key of this session is gone or unreadable (site data cleared, or a logout in another tab): log in again.',
      { cause },
    );
    await guarded.remove(sessionKey);
    adopt(undefined, error);
    throw error;
  }

  // For a new login: the stored key, or a new one (one tab at a time with crossTab's lock).
  function ready(): Promise<DpopHandle> {
    const make = async () => {
      const found = await load().catch(() => undefined);
      if (found) return found;
      const keyPair = await generateDpopKeyPair();
      await store.set(name, keyPair).catch((cause: unknown) => {
        throw new OidcError('dpop_key_unavailable', DEV && 'The DPoP key could not be kept in IndexedDB: allow site data for this origin.', { cause });
      });
      core.dpop = await dpopForGeneratedKey({ keyPair, now });
      return core.dpop;
    };
    const lock = runtime().lock_;
    making ??= (lock ? lock.run(name, make) : make()).finally(() => {
      making = undefined;
    });
    return making;
  }

  // The flow, with the key.
  options.request_ = async (params) => request({ ...params, extra: { ...params.extra, dpop_jkt: (await ready()).jkt } });
  options.complete_ = async (params) => complete({ ...params, dpop: await handle() });

  // The stored session and its key go together (the client's token store key, see client.ts).
  const sessionKey = `oidc-rp.session:${clientId}:${issuer}`;
  let storage: StorageAdapter;
  const guarded: StorageAdapter = {
    // Reading the session loads its key (into `core_`: a refresh, which reads it first, carries a proof).
    async get(key) {
      const value = await storage.get(key);
      if (value !== null) await handle();
      return value;
    },
    set: (key, value) => storage.set(key, value),
    async remove(key) {
      await storage.remove(key);
      core.dpop = undefined;
      // The tokens are gone: a key left behind by a failing IndexedDB binds nothing.
      await store.remove(name).catch(() => undefined);
    },
    keys: () => storage.keys(),
  };
  options.runtime_ = () => {
    const platform = runtime();
    if (platform.tokens_ !== guarded) {
      storage = platform.tokens_;
      platform.tokens_ = guarded;
    }
    return platform;
  };

  return {
    handle,
    proof: async (params) => createDpopProof(await handle(), params),
    async request(accessToken, input, init, http = options.http) {
      const request = new Request(input, init);
      const { url, method, credentials, cache, signal } = request;
      const headers = new Headers(request.headers);
      headers.delete('authorization');
      headers.delete('dpop');
      // The body read once (GET and HEAD have none), so that the nonce retry can send it again.
      const body = request.body ? await request.arrayBuffer() : undefined;
      return protectedResourceRequest(await handle(), accessToken, url, { method, headers, body, credentials, cache, signal }, http);
    },
  };
}
