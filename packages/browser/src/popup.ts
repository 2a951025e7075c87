/**
 * Login in a popup. The opener keeps the login transaction in memory (never in storage), so
 * when the app loads inside the popup at the redirect URI it finds no transaction for the
 * callback and hands the URL to its opener instead of redeeming the code itself.
 */

import { DEV } from './dev';
import { OidcError, type AuthorizationTransaction } from '@oidc-rp/core';
import type { Part } from './parts';

const MESSAGE_TYPE = 'oidc-rp:callback';
const CLOSED_POLL_MS = 500;

/**
 * Waits until the app inside `popup` relays its callback URL (see {@link relayToOpener}).
 * Rejects with `popup_closed` when the user closes the popup first. Closes the popup either way.
 */
export function waitForPopupCallback(popup: Window): Promise<string> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: MessageEvent) => {
      const data = event.data as { type?: unknown; url?: unknown } | null;
      // Only our own origin, only this popup, only our message shape.
      if (event.origin !== location.origin || event.source !== popup) return;
      if (data?.type !== MESSAGE_TYPE || typeof data.url !== 'string') return;
      finish();
      resolve(data.url);
    };
    const timer = setInterval(() => {
      if (!popup.closed) return;
      finish();
      reject(new OidcError('popup_closed', DEV && 'The login popup was closed; log in again.'));
    }, CLOSED_POLL_MS);
    const finish = () => {
      clearInterval(timer);
      removeEventListener('message', onMessage);
      popup.close();
    };
    addEventListener('message', onMessage);
  });
}

/**
 * In a popup opened by this app: passes a callback URL to the opener (same origin only).
 * Returns whether there was an opener to tell.
 */
export function relayToOpener(url: string): boolean {
  try {
    const opener = typeof window === 'undefined' ? null : (window.opener as Window | null);
    if (!opener || opener === window || opener.location.origin !== location.origin) return false;
    opener.postMessage({ type: MESSAGE_TYPE, url }, location.origin);
    return true;
  } catch {
    return false; // a cross-origin opener throws on `location`
  }
}

/** What a popup login needs from the client. Internal. */
export interface PopupLoginContext {
  /** Opens the (blank) popup; null when the browser blocked it. Default: `window.open`. */
  open: (() => Window | null) | undefined;
  /** Builds the authorization request (its transaction stays in memory). */
  request: () => Promise<{ url: URL; transaction: AuthorizationTransaction }>;
  /** Finishes the login with the callback URL the popup relayed. */
  finish: (callbackUrl: string, transaction: AuthorizationTransaction) => Promise<unknown>;
}

const openPopup = () => window.open('', 'oidc-rp-login', 'popup,width=520,height=680');

/**
 * Runs a login in a popup: opens it at once (browsers allow popups only within the click's
 * task, so before any await), points it at the provider, and finishes the login with the
 * callback URL the app inside relays. The popup is closed on failure.
 */
async function loginInPopup({ open = openPopup, request, finish }: PopupLoginContext): Promise<void> {
  const popup = open();
  try {
    if (!popup) throw new OidcError('popup_blocked', DEV && 'The popup was blocked; call login() from a click handler.');
    const { url, transaction } = await request();
    popup.location.href = url.href;
    await finish(await waitForPopupCallback(popup), transaction);
  } catch (error) {
    popup?.close();
    throw error;
  }
}

/**
 * Login in a popup, as the client's `popupLogin` option takes it. Opaque.
 *
 * @example
 * ```ts
 * const part: PopupLoginPart = popupLogin;
 * ```
 */
export type PopupLoginPart = Part<'popupLogin'>;

/** What the client uses of the part. Internal. */
export interface PopupLogin {
  /** Logs in in a popup (see {@link PopupLoginContext}). */
  login(context: PopupLoginContext): Promise<void>;
  /** Inside the popup: hands a callback URL this page cannot finish to the opener. */
  relay(url: string): boolean;
}

/**
 * The opt-in part that lets `login({ popup: true })` work. Without it the client carries no
 * popup code. Give it to the client of every page of the app (the app loaded inside the
 * popup uses it to hand the callback to its opener).
 *
 * @example
 * ```ts
 * import { createBrowserClient, popupLogin } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, popupLogin });
 * button.onclick = () => client.login({ popup: true });
 * ```
 */
export const popupLogin = { login: loginInPopup, relay: relayToOpener } satisfies PopupLogin as unknown as PopupLoginPart;
