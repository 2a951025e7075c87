/**
 * `createBrowserClient`: the stateful layer over `@oidc-rp/core` for single-page apps. It
 * assembles small parts (storage, navigation, clock; callback handling and refresh, each in
 * its own module) and keeps one session. Popup login, the implicit flow, revocation at logout,
 * discovery and cross-tab coordination are opt-in parts given in the options, one value each.
 */

import { DEV } from './dev';
import {
  OidcError,
  buildEndSessionUrl,
  isOidcError,
  none,
  type AuthorizationTransaction,
} from '@oidc-rp/core';
import { invalidOptions } from '@oidc-rp/core/internal';
import { createCallbackHandler } from './callback';
import type { TabLink } from './cross-tab';
import type { BrowserDpop } from './dpop';
import { createEmitter } from './events';
import type { BrowserResources } from './resources';
import { resolveOptions, type BrowserClientOptions, type ResolvedOptions } from './options';
import { createRefresher } from './refresh';
import { createSnapshotStore, type AuthSnapshot } from './snapshot-store';
import { createTokenStore, isFresh, sessionFrom, type Session, type TokenStore } from './token-store';
import { createTransactionStore, type TransactionStore } from './transaction-store';
import type { BrowserClient, GetAccessTokenOptions, LoginOptions, LoginResult, LogoutOptions } from './types';

/**
 * Creates the client. Touches no browser API until a method needs one, so it can be created
 * while rendering on a server. Throws `client_secret_in_browser` when given a client secret,
 * `invalid_options` for other bad options.
 *
 * @example
 * ```ts
 * import { createBrowserClient, serviceProvider } from '@oidc-rp/browser';
 *
 * export const client = createBrowserClient({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   clientId: 'spa',
 *   redirectUri: 'http://127.0.0.1:5173/callback',
 *   postLogoutRedirectUri: 'http://127.0.0.1:5173/',
 * });
 *
 * await client.init();
 * const token = await client.getAccessToken();
 * ```
 */
export function createBrowserClient(options: BrowserClientOptions): BrowserClient {
  const o = resolveOptions(options);
  // The parts that change the flow, each only when given, in this order: resources (its APIs
  // added to each login's request, and its storage guard under dpop's), dpop (its key: the
  // request's dpop_jkt, proofs with the token requests, the stored session guarded), then par,
  // which pushes the request they made (RFC 9126) before the redirect.
  const [resources, dpop] = [options.resources, options.dpop, options.par].map((part) => (part as unknown as Binding | undefined)?.bind_(o, adopt)) as [
    BrowserResources | undefined,
    BrowserDpop | undefined,
  ];
  const state = createSnapshotStore();
  const events = createEmitter();
  let session: Session | undefined;
  // Access-token lifetime learned from a token response that stated one (see sessionFrom).
  let learnedLifetime: number | undefined;
  let tokenStore: TokenStore | undefined;
  let transactionStore: TransactionStore | undefined;
  let initialized: Promise<AuthSnapshot> | undefined;
  // Other tabs hear of this one only with the crossTab part, linked on first use of the runtime.
  let tabs: TabLink | undefined;

  const runtime = () => {
    const parts = o.runtime_();
    tabs ??= o.crossTab_?.link(parts.channel_, {
      tokens,
      session: () => session,
      adopt,
      emit: events.emit,
      revoke,
    });
    return parts;
  };
  const tokens = () => (tokenStore ??= createTokenStore(runtime().tokens_, `oidc-rp.session:${o.clientId}:${o.issuer}`));
  const transactions = () => (transactionStore ??= createTransactionStore(runtime().transactions_));
  const provider = o.provider_;
  const report = (error: unknown) => {
    const failure = toOidcError(error);
    events.emit('error', failure);
    return failure;
  };

  function adopt(next: Session | undefined, error?: OidcError): void {
    if (next && session && next.id === session.id && next.accessToken === session.accessToken) next = session;
    session = next;
    learnedLifetime = next?.lifetime ?? learnedLifetime;
    state.set(next ? { status: 'authenticated', user: next.claims, expiresAt: next.expiresAt, idToken: next.idToken } : { status: 'unauthenticated', error });
  }

  const refresh = createRefresher({
    options: o,
    tokens,
    adopt,
    announce_(sessionId, refreshed) {
      tabs?.session(sessionId);
      if (refreshed) events.emit('tokenRefreshed', { expiresAt: refreshed.expiresAt });
    },
    failed_: report,
  });

  async function completeLogin(input: URL | string, transaction: AuthorizationTransaction): Promise<LoginResult> {
    // Core refuses a transaction of another client or provider (transaction_invalid).
    const set = await o.complete_({ ...o.core_, clientAuth: none(), provider: await provider(), input, transaction });
    const next = sessionFrom(set, undefined, learnedLifetime, o.now());
    await tokens().write(next);
    adopt(next);
    tabs?.session(next.id);
    events.emit('login', { user: next.claims });
    return { appState: transaction.appState, user: next.claims };
  }

  const callbacks = createCallbackHandler({
    options: o,
    transactions_: transactions,
    navigate_: () => runtime().navigate_,
    completeLogin_: completeLogin,
    failed_(error) {
      // A bad callback never ends an existing session: it only reports the error.
      const failure = toOidcError(error);
      state.set(session ? { ...state.get(), error: failure } : { status: 'error', error: failure });
      return report(failure);
    },
    replayed_: () => events.emit('callbackReplayed', {}),
  });

  function init(): Promise<AuthSnapshot> {
    initialized ??= (async () => {
      try {
        callbacks.handleCurrent_();
        // Every login in flight settles first, so a restore cannot race a callback.
        await Promise.allSettled(callbacks.inFlight_());
        if (!session) {
          const stored = await tokens().read();
          const usable = stored && (stored.refreshToken !== undefined || isFresh(stored, 0, o.now()));
          if (stored && !usable) await tokens().clear();
          if (usable) adopt(stored);
          else if (state.get().status === 'loading') {
            adopt(undefined);
            // Development only (the production build drops it): an app opened on another origin
            // than its redirect URI's (Vite prints localhost, the registration says 127.0.0.1)
            // cannot log in there, so the page says so at once, as status 'error', not only a
            // console line after a click.
            if (DEV) {
              const here = new URL(runtime().navigate_.currentUrl()).origin;
              if (here !== o.redirectUrl_.origin) state.set({ status: 'error', error: invalidOptions(wrongOrigin(here, o.redirectUrl_.origin)) });
            }
          }
        }
      } catch (error) {
        state.set({ status: 'error', error: toOidcError(error) });
      }
      return state.get();
    })();
    return initialized;
  }

  async function login(loginOptions: LoginOptions = {}): Promise<void> {
    const { navigate_: navigate } = runtime();
    // Named fields only: nothing else of the options or the caller reaches the provider.
    const request = async () =>
      o.request_({
        provider: (await Promise.all([provider(), transactions().clean_(o.now())]))[0],
        clientId: o.clientId,
        redirectUri: o.redirectUri,
        scope: o.scope,
        now: o.now,
        appState: loginOptions.appState,
        prompt: loginOptions.prompt,
        loginHint: loginOptions.loginHint,
        extra: loginOptions.extra,
      });
    try {
      // The transaction waits in this origin's storage: a callback to another origin cannot find it.
      const here = new URL(navigate.currentUrl()).origin;
      if (here !== o.redirectUrl_.origin) throw invalidOptions(DEV && wrongOrigin(here, o.redirectUrl_.origin));
      if (loginOptions.popup) {
        if (!o.popupLogin_) throw invalidOptions(DEV && 'login({ popup: true }) needs the popupLogin part.');
        // Synchronously, within the click's task: the part opens the popup before any await.
        return await o.popupLogin_.login({ open: navigate.openPopup?.bind(navigate), request, finish: completeLogin });
      }
      const { url, transaction } = await request();
      await transactions().keep_(transaction);
      navigate.redirect(url.href);
    } catch (error) {
      throw report(error);
    }
  }

  async function getAccessToken({ minValidity = o.refreshLeeway, forceRefresh, rejected }: GetAccessTokenOptions = {}): Promise<string> {
    await init();
    const current = session;
    if (!current) throw new OidcError('login_required', DEV && 'Nobody is logged in; call login().');
    if (!forceRefresh && !rejected && isFresh(current, minValidity, o.now())) return current.accessToken;
    return (await refresh(rejected ?? current.accessToken, minValidity)).accessToken;
  }

  // Only with the revocation part; a failure is reported, the local session is gone anyway.
  const revoke = async (ended: Session): Promise<void> => {
    await o.revocation_?.revoke({ ...o.core_, provider: await provider(), session: ended }).catch(report);
  };

  async function logout({ returnTo, redirect = true }: LogoutOptions = {}): Promise<void> {
    const { navigate_: navigate } = runtime();
    // Storage first: a refresh for an API (the resources part) may have rotated the refresh token since.
    const ended = (await tokens().read()) ?? session;
    // Local state first: whatever happens at the provider, this app is logged out.
    await tokens().clear();
    adopt(undefined);
    if (ended) {
      tabs?.logout(ended.id);
      events.emit('logout', {});
      await revoke(ended);
    }
    const url = buildEndSessionUrl({
      provider: await provider(),
      clientId: o.clientId,
      idTokenHint: ended?.idToken,
      postLogoutRedirectUri: returnTo ?? o.postLogoutRedirectUri,
      state: await o.logoutState_?.begin_(), // only with the logoutState part
    });
    if (url && redirect) navigate.redirect(url.href);
  }

  return {
    init,
    login,
    handleRedirectCallback: callbacks.handle_,
    isRedirectCallback: callbacks.isCallback_,
    getAccessToken,
    getUser: () => session?.claims,
    logout,
    subscribe: state.subscribe,
    getSnapshot: state.get,
    on: events.on,
    getProvider: provider,
    http: o.http,
    resources,
    dpop,
  };
}

/** What the flow-changing parts (resources, dpop, par) have in common. */
interface Binding {
  bind_(options: ResolvedOptions, adopt: (session: undefined, error?: OidcError) => void): unknown;
}

function wrongOrigin(here: string, there: string): string {
  return (
    `This page is at ${here} but redirectUri is at ${there}, whose storage would not hold this login: ` +
    `open the app at ${there}, or register a redirect URI at ${here} and use it.`
  );
}

function toOidcError(error: unknown): OidcError {
  return isOidcError(error)
    ? error
    : new OidcError('authorization_response_invalid', DEV && 'The login failed; start a new login.', { cause: error });
}
