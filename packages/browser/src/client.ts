/**
 * `createBrowserClient`: the stateful layer over `@oidc-rp/core` for single-page apps. It
 * assembles small parts (storage, lock, channel, navigation, clock) and keeps one session.
 */

import {
  OidcError,
  buildAuthorizationRequest,
  buildEndSessionUrl,
  completeAuthorization,
  createState,
  discover,
  fetchUserInfo,
  isOidcError,
  revokeToken,
  type AuthorizationTransaction,
  type ProviderMetadata,
  type UserInfo,
} from '@oidc-rp/core';
import { createAuthState, type AuthSnapshot } from './auth-state';
import type { BrowserClient, CallbackResult, LoginOptions, LogoutOptions } from './browser-client';
import { createAuthorizedFetch } from './authorized-fetch';
import { cleanCallbackUrl, isCallbackUrl, responseParams } from './callback-url';
import type { ChannelMessage } from './channel';
import { createEmitter } from './events';
import { resolveOptions, type BrowserClientOptions } from './options';
import { relayToOpener, waitForPopupCallback } from './popup';
import { createRefresher } from './refresh';
import { createTokenStore, isFresh, type Session, type TokenStore } from './token-store';
import { createTransactionStore, type TransactionStore } from './transaction-store';

// setTimeout fires at once for longer delays.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Creates the client. Touches no browser API until a method needs one, so it can be created
 * while rendering on a server. Throws `client_secret_in_browser` when given a client secret,
 * `invalid_options` for other bad options.
 *
 * @example
 * ```ts
 * import { createBrowserClient } from '@oidc-rp/browser';
 *
 * export const client = createBrowserClient({
 *   issuer: 'http://127.0.0.1:4000/demo',
 *   clientId: 'spa',
 *   redirectUri: 'http://127.0.0.1:5173/callback',
 *   postLogoutRedirectUri: 'http://127.0.0.1:5173/',
 * });
 *
 * await client.init();
 * const response = await client.fetch('http://127.0.0.1:4000/demo/oidc/userinfo');
 * ```
 */
export function createBrowserClient(options: BrowserClientOptions): BrowserClient {
  const o = resolveOptions(options);
  const fragment = o.responseType !== 'code';
  const state = createAuthState();
  const events = createEmitter();
  const callbacks = new Map<string, Promise<CallbackResult>>();
  let session: Session | undefined;
  let metadata: Promise<ProviderMetadata> | undefined;
  let tokenStore: TokenStore | undefined;
  let transactionStore: TransactionStore | undefined;
  let initialized: Promise<AuthSnapshot> | undefined;
  let lastCallback: Promise<CallbackResult> | undefined;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  let listening = false;

  const platform = () => {
    const parts = o.platform();
    if (!listening) {
      listening = true;
      parts.channel.listen((message) => void onMessage(message).catch(() => undefined));
    }
    return parts;
  };
  const tokens = () => (tokenStore ??= createTokenStore(platform().tokens, `oidc-rp.session:${o.clientId}:${o.issuer}`));
  const transactions = () => (transactionStore ??= createTransactionStore(platform().transactions));
  const provider = () =>
    (metadata ??= (o.provider ? Promise.resolve(o.provider) : discover(o.issuer, o.http)).catch((error: unknown) => {
      metadata = undefined; // let the next call try again
      throw error;
    }));

  function adopt(next: Session | undefined, error?: OidcError): void {
    if (next && session && next.id === session.id && next.accessToken === session.accessToken) next = session;
    session = next;
    clearTimeout(expiryTimer);
    const expiresAt = next?.expiresAt;
    if (expiresAt !== undefined) {
      const delay = Math.max(0, expiresAt - o.now()) * 1000;
      if (delay <= MAX_TIMER_MS) expiryTimer = setTimeout(() => events.emit('tokenExpired', { expiresAt }), delay);
    }
    state.set(next ? { status: 'authenticated', user: next.claims, expiresAt, idToken: next.idToken } : { status: 'unauthenticated', error });
  }

  const refresh = createRefresher({
    options: o,
    tokens,
    provider,
    adopt,
    announce(sessionId, refreshed) {
      platform().channel.post({ type: 'session', sessionId });
      if (refreshed) events.emit('tokenRefreshed', { expiresAt: refreshed.expiresAt });
    },
    failed: (error) => events.emit('error', toOidcError(error)),
  });

  async function onMessage(message: ChannelMessage): Promise<void> {
    if (typeof message !== 'object' || message === null) return;
    const stored = await tokens().read();
    if (message.type === 'session') {
      if (!stored) {
        if (session && session.id === message.sessionId) adopt(undefined); // it ended in another tab
      } else if (stored.accessToken !== session?.accessToken) {
        const sameSession = stored.id === session?.id;
        adopt(stored);
        if (sameSession) events.emit('tokenRefreshed', { expiresAt: stored.expiresAt });
        else events.emit('login', { user: stored.claims });
      }
    } else if (message.type === 'logout' && session) {
      const ended = session;
      if (stored?.id === ended.id) await tokens().clear();
      adopt(undefined);
      events.emit('logout', {});
      // A session of this tab's own (tokens not shared) is not revoked yet by the other tab.
      if (ended.id !== message.sessionId) await revoke(await provider(), ended);
    }
  }

  async function finishLogin(url: string, transaction: AuthorizationTransaction): Promise<CallbackResult> {
    const provider_ = await provider();
    if (transaction.clientId !== o.clientId || transaction.issuer !== provider_.issuer) {
      throw new OidcError('transaction_invalid', 'The login is for another client or provider; start a new login.');
    }
    const set = await completeAuthorization({
      provider: provider_,
      client: { clientId: o.clientId },
      input: url,
      transaction,
      http: o.http,
      clockTolerance: o.clockTolerance,
    });
    const next: Session = {
      id: createState(),
      accessToken: set.accessToken,
      expiresAt: set.expiresAt,
      receivedAt: o.now(),
      refreshToken: set.refreshToken,
      idToken: set.idToken,
      claims: set.claims,
      scope: set.scope,
    };
    await tokens().write(next);
    adopt(next);
    platform().channel.post({ type: 'session', sessionId: next.id });
    events.emit('login', { user: next.claims });
    return { appState: transaction.appState, user: next.claims };
  }

  async function processCallback(url: string): Promise<CallbackResult> {
    try {
      const stateParam = isCallbackUrl(url, o.redirectUri, fragment) ? responseParams(new URL(url), fragment).get('state') : null;
      if (!stateParam) {
        throw new OidcError('state_missing', 'This URL is not a login callback; start a new login.');
      }
      const now = o.now();
      const transaction = await transactions()
        .take(stateParam, now)
        .finally(() => transactions().clean(now));
      if (!transaction) {
        relayToOpener(url); // inside a login popup, the opener holds the transaction
        throw new OidcError('transaction_not_found', 'No login of this tab matches the state; start a new login.');
      }
      return await finishLogin(url, transaction);
    } catch (error) {
      const failure = toOidcError(error);
      // A bad callback never ends an existing session: it only reports the error.
      state.set(session ? { ...state.get(), error: failure } : { status: 'error', error: failure });
      events.emit('error', failure);
      throw failure;
    }
  }

  function handleRedirectCallback(url?: string): Promise<CallbackResult> {
    const { navigate } = platform();
    const current = navigate.currentUrl();
    const target = url ?? current;
    const isCallback = isCallbackUrl(target, o.redirectUri, fragment);
    // The address bar was already cleaned by the first call (React StrictMode calls twice).
    if (url === undefined && !isCallback && lastCallback) return lastCallback;
    let pending = callbacks.get(target);
    if (!pending) {
      pending = processCallback(target);
      callbacks.set(target, pending);
      if (isCallback && target === current) navigate.replaceUrl(cleanCallbackUrl(target, fragment));
    }
    if (target === current) lastCallback = pending;
    return pending;
  }

  function init(): Promise<AuthSnapshot> {
    initialized ??= (async () => {
      try {
        if (!lastCallback && isRedirectCallback()) void handleRedirectCallback().catch(() => undefined);
        // Every login in flight settles first, so a restore cannot race a callback.
        await Promise.allSettled(callbacks.values());
        if (!session) {
          const stored = await tokens().read();
          const usable = stored && (stored.refreshToken !== undefined || isFresh(stored, 0, o.now()));
          if (stored && !usable) await tokens().clear();
          if (usable) adopt(stored);
          else if (state.get().status === 'loading') adopt(undefined);
        }
      } catch (error) {
        state.set({ status: 'error', error: toOidcError(error) });
      }
      return state.get();
    })();
    return initialized;
  }

  function isRedirectCallback(url?: string): boolean {
    try {
      return isCallbackUrl(url ?? platform().navigate.currentUrl(), o.redirectUri, fragment);
    } catch {
      return false; // no location (server)
    }
  }

  async function login(loginOptions: LoginOptions = {}): Promise<void> {
    const { navigate } = platform();
    // Before any await: browsers allow popups only within the click's task.
    const popup = loginOptions.popup ? navigate.openPopup() : undefined;
    try {
      if (popup === null) {
        throw new OidcError('popup_blocked', 'The popup was blocked; call login() from a click handler.');
      }
      const [provider_] = await Promise.all([provider(), transactions().clean(o.now())]);
      const { url, transaction } = await buildAuthorizationRequest({
        provider: provider_,
        clientId: o.clientId,
        redirectUri: o.redirectUri,
        scope: o.scope,
        responseType: o.responseType,
        appState: loginOptions.appState,
        prompt: loginOptions.prompt,
        loginHint: loginOptions.loginHint,
        extra: loginOptions.extra,
      });
      if (!popup) {
        await transactions().save(transaction);
        navigate.redirect(url.href);
        return;
      }
      // The popup's transaction stays in memory, so the app loaded in the popup relays the callback here.
      popup.location.href = url.href;
      await finishLogin(await waitForPopupCallback(popup), transaction);
    } catch (error) {
      popup?.close();
      const failure = toOidcError(error);
      events.emit('error', failure);
      throw failure;
    }
  }

  async function getAccessToken({ minValidity = o.refreshLeeway }: { minValidity?: number } = {}): Promise<string> {
    await init();
    const current = session;
    if (!current) throw new OidcError('login_required', 'Nobody is logged in; call login().');
    if (isFresh(current, minValidity, o.now())) return current.accessToken;
    return (await refresh(current.accessToken, minValidity)).accessToken;
  }

  async function getUserInfo(): Promise<UserInfo> {
    const accessToken = await getAccessToken();
    const expectedSubject = session?.claims?.sub;
    if (!expectedSubject) throw new OidcError('invalid_options', 'getUserInfo() needs a login with the openid scope.');
    return fetchUserInfo({ provider: await provider(), accessToken, expectedSubject, http: o.http });
  }

  async function revoke(provider_: ProviderMetadata, ended: Session): Promise<void> {
    try {
      await revokeToken({
        provider: provider_,
        client: { clientId: o.clientId },
        token: ended.refreshToken ?? ended.accessToken,
        tokenTypeHint: ended.refreshToken ? 'refresh_token' : 'access_token',
        http: o.http,
      });
    } catch (error) {
      events.emit('error', toOidcError(error)); // the local session is gone anyway
    }
  }

  async function logout({ returnTo, redirect = true }: LogoutOptions = {}): Promise<void> {
    const { navigate, channel } = platform();
    const ended = session ?? (await tokens().read());
    // Local state first: whatever happens at the provider, this app is logged out.
    await tokens().clear();
    adopt(undefined);
    if (ended) {
      channel.post({ type: 'logout', sessionId: ended.id });
      events.emit('logout', {});
    }
    const provider_ = await provider();
    if (ended) await revoke(provider_, ended);
    const url = buildEndSessionUrl({
      provider: provider_,
      clientId: o.clientId,
      idTokenHint: ended?.idToken,
      postLogoutRedirectUri: returnTo ?? o.postLogoutRedirectUri,
    });
    if (url && redirect) navigate.redirect(url.href);
  }

  return {
    init,
    login,
    handleRedirectCallback,
    isRedirectCallback,
    getAccessToken,
    getUser: () => session?.claims,
    getUserInfo,
    fetch: createAuthorizedFetch({
      accessToken: () => getAccessToken(),
      renew: async (rejected) => (await refresh(rejected, 0)).accessToken,
      fetch: () => o.http?.fetch ?? globalThis.fetch,
    }),
    logout,
    subscribe: state.subscribe,
    getSnapshot: state.get,
    on: events.on,
  };
}

function toOidcError(error: unknown): OidcError {
  return isOidcError(error)
    ? error
    : new OidcError('authorization_response_invalid', 'The login failed; start a new login.', { cause: error });
}
