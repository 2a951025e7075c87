/**
 * Finishing a login when the provider sends the user back: one handling per callback URL,
 * shared by every caller (React StrictMode calls twice, `init()` and the app may both ask),
 * the address bar cleaned at once, and a replayed URL told apart from a forged one.
 */

import { DEV } from './dev';
import { OidcError, type AuthorizationTransaction } from '@oidc-rp/core';
import { cleanCallbackUrl, readCallbackUrl, type CallbackUrl } from './callback-url';
import type { Navigation } from './navigation';
import type { ResolvedOptions } from './options';
import type { TransactionStore } from './transaction-store';
import type { LoginResult } from './types';

/** What the callback handler needs from the client. Names ending in `_` are shortened by the build. */
export interface CallbackContext {
  options: Pick<ResolvedOptions, 'redirectUrl_' | 'fragment_' | 'popupLogin_' | 'now'>;
  transactions_: () => TransactionStore;
  navigate_: () => Navigation;
  /** Validates the response, redeems the code and starts the session. */
  completeLogin_: (input: URL, transaction: AuthorizationTransaction) => Promise<LoginResult>;
  /** Reports a failed callback (an existing session stays). */
  failed_: (error: unknown) => OidcError;
  /** Reports a callback URL this tab already handled (quietly: no error state, no error event). */
  replayed_: () => void;
}

/** The client's callback handling. */
export interface CallbackHandler {
  /** `handleRedirectCallback(url?)` of the client. */
  handle_(url?: string): Promise<LoginResult>;
  /** Starts handling the current URL when it is a callback and nothing was started yet (for `init()`). */
  handleCurrent_(): void;
  /** Whether `url` (default: the current URL) is a callback. */
  isCallback_(url?: string): boolean;
  /** Every handling started so far, to wait for before restoring a session. */
  inFlight_(): Iterable<Promise<LoginResult>>;
}

/**
 * Creates the handler. "Is this a callback?" is decided here only, on one parse of the URL.
 *
 * @example
 * ```ts
 * const callbacks = createCallbackHandler(context);
 * const { appState } = await callbacks.handle();
 * ```
 */
export function createCallbackHandler(context: CallbackContext): CallbackHandler {
  const { options } = context;
  const handled = new Map<string, Promise<LoginResult>>();
  let last: Promise<LoginResult> | undefined;

  const read = (href: string) => readCallbackUrl(href, options.redirectUrl_, options.fragment_);

  function start(href: string, callback: CallbackUrl | undefined, current: string): Promise<LoginResult> {
    let pending = handled.get(href);
    if (!pending) {
      pending = processCallback(callback);
      handled.set(href, pending);
      if (callback && href === current) context.navigate_().replaceUrl(cleanCallbackUrl(callback, options.fragment_));
    }
    if (href === current) last = pending;
    return pending;
  }

  async function processCallback(callback: CallbackUrl | undefined): Promise<LoginResult> {
    const transactions = context.transactions_();
    const now = options.now();
    let transaction: AuthorizationTransaction | 'used' | undefined;
    try {
      if (!callback) throw new OidcError('state_missing', DEV && 'This URL is not a login callback; start a new login.');
      transaction = await transactions.redeem_(callback.state, now);
    } catch (error) {
      throw context.failed_(error);
    }
    if (transaction === 'used') {
      context.replayed_();
      throw new OidcError('callback_replayed', DEV && 'This login response was already used (Back button or reload); nothing to do.');
    }
    if (!transaction) {
      options.popupLogin_?.relay(callback.url.href); // inside a login popup, the opener holds the transaction
      throw context.failed_(new OidcError('transaction_not_found', DEV && 'No login of this tab matches the state; start a new login.'));
    }
    try {
      return await context.completeLogin_(callback.url, transaction);
    } catch (error) {
      throw context.failed_(error);
    }
  }

  function current(): string | undefined {
    try {
      return context.navigate_().currentUrl();
    } catch {
      return undefined; // no location (server)
    }
  }

  return {
    handle_(url) {
      const here = context.navigate_().currentUrl();
      const href = url ?? here;
      const callback = read(href);
      // The address bar was already cleaned by the first call (React StrictMode calls twice).
      if (url === undefined && !callback && last) return last;
      return start(href, callback, here);
    },
    handleCurrent_() {
      const here = current();
      const callback = here === undefined || last ? undefined : read(here);
      if (here !== undefined && callback) void start(here, callback, here).catch(() => undefined);
    },
    isCallback_(url) {
      const href = url ?? current();
      return href !== undefined && read(href) !== undefined;
    },
    inFlight_: () => handled.values(),
  };
}
