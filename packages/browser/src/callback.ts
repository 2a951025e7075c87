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

/** What the callback handler needs from the client. */
export interface CallbackContext {
  options: Pick<ResolvedOptions, 'redirectUrl' | 'fragment' | 'popupLogin' | 'now'>;
  transactions: () => TransactionStore;
  navigate: () => Navigation;
  /** Validates the response, redeems the code and starts the session. */
  completeLogin: (input: URL, transaction: AuthorizationTransaction) => Promise<LoginResult>;
  /** Reports a failed callback (an existing session stays). */
  failed: (error: unknown) => OidcError;
  /** Reports a callback URL this tab already handled (quietly: no error state, no error event). */
  replayed: () => void;
}

/** The client's callback handling. */
export interface CallbackHandler {
  /** `handleRedirectCallback(url?)` of the client. */
  handle(url?: string): Promise<LoginResult>;
  /** Starts handling the current URL when it is a callback and nothing was started yet (for `init()`). */
  handleCurrent(): void;
  /** Whether `url` (default: the current URL) is a callback. */
  isCallback(url?: string): boolean;
  /** Every handling started so far, to wait for before restoring a session. */
  inFlight(): Iterable<Promise<LoginResult>>;
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

  const read = (href: string) => readCallbackUrl(href, options.redirectUrl, options.fragment);

  function start(href: string, callback: CallbackUrl | undefined, current: string): Promise<LoginResult> {
    let pending = handled.get(href);
    if (!pending) {
      pending = processCallback(callback);
      handled.set(href, pending);
      if (callback && href === current) context.navigate().replaceUrl(cleanCallbackUrl(callback, options.fragment));
    }
    if (href === current) last = pending;
    return pending;
  }

  async function processCallback(callback: CallbackUrl | undefined): Promise<LoginResult> {
    const transactions = context.transactions();
    const now = options.now();
    let transaction: AuthorizationTransaction | 'used' | undefined;
    try {
      if (!callback) throw new OidcError('state_missing', DEV && 'This URL is not a login callback; start a new login.');
      transaction = await transactions.redeem(callback.state, now);
    } catch (error) {
      throw context.failed(error);
    }
    if (transaction === 'used') {
      context.replayed();
      throw new OidcError('callback_replayed', DEV && 'This login response was already used (Back button or reload); nothing to do.');
    }
    if (!transaction) {
      options.popupLogin?.relay(callback.url.href); // inside a login popup, the opener holds the transaction
      throw context.failed(new OidcError('transaction_not_found', DEV && 'No login of this tab matches the state; start a new login.'));
    }
    try {
      return await context.completeLogin(callback.url, transaction);
    } catch (error) {
      throw context.failed(error);
    }
  }

  function current(): string | undefined {
    try {
      return context.navigate().currentUrl();
    } catch {
      return undefined; // no location (server)
    }
  }

  return {
    handle(url) {
      const here = context.navigate().currentUrl();
      const href = url ?? here;
      const callback = read(href);
      // The address bar was already cleaned by the first call (React StrictMode calls twice).
      if (url === undefined && !callback && last) return last;
      return start(href, callback, here);
    },
    handleCurrent() {
      const here = current();
      const callback = here === undefined || last ? undefined : read(here);
      if (here !== undefined && callback) void start(here, callback, here).catch(() => undefined);
    },
    isCallback(url) {
      const href = url ?? current();
      return href !== undefined && read(href) !== undefined;
    },
    inFlight: () => handled.values(),
  };
}
