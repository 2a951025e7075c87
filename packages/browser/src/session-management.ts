/**
 * OpenID Connect Session Management 1.0 in the browser, as functions over the client: an app
 * that does not import it does not bundle it. It keeps the `session_state` of the login's
 * authorization response (this tab's sessionStorage by default), frames the provider's
 * `check_session_iframe`, posts `client_id + " " + session_state` to it at an interval, and
 * listens for the answer from that frame only (origin and source checked). On `changed` it
 * ends the local session, or re-checks with a `prompt=none` login, as the spec suggests.
 * The protocol's three rules (the state, the message, the answer) are here, not in core: only
 * the browser plays the RP's side of it. Part of the `@oidc-rp/browser/session` entry.
 */

import { OidcError } from '@oidc-rp/core';
import type { StorageAdapter } from './storage';
import type { BrowserClient, LoginResult } from './types';

/** The answers of a `check_session_iframe` (§3.3). */
export type CheckSessionAnswer = 'changed' | 'unchanged' | 'error';

// Printable ASCII without space: the spec forbids the space, which separates the message's parts.
const SESSION_STATE = /^[\x21-\x7e]{1,512}$/;

/**
 * The `session_state` of an authorization response (query or fragment parameters), or
 * undefined when the provider sent none; throws `session_state_invalid` when it is repeated,
 * empty, longer than 512 characters, or holds a space or a non-printable character.
 *
 * @example
 * ```ts
 * const state = readSessionState(new URL(location.href).searchParams);
 * ```
 */
export function readSessionState(params: URLSearchParams): string | undefined {
  const values = params.getAll('session_state');
  if (values.length === 0) return undefined;
  const [value] = values;
  if (values.length !== 1 || !SESSION_STATE.test(value as string)) {
    throw new OidcError('session_state_invalid', 'The session_state of the authorization response is malformed (repeated, empty, too long, or with a space): it cannot be checked.');
  }
  return value;
}

/**
 * The message an RP frame posts to the `check_session_iframe`: `client_id + " " + session_state`.
 *
 * @example
 * ```ts
 * opFrame.contentWindow?.postMessage(checkSessionMessage('spa', 'abc.salt'), 'http://127.0.0.1:4000');
 * ```
 */
export function checkSessionMessage(clientId: string, sessionState: string): string {
  if (!clientId || clientId.includes(' ')) throw new OidcError('invalid_options', 'The client id of a session check must be non-empty and without spaces.');
  return `${clientId} ${sessionState}`;
}

/**
 * The answer in a message from the `check_session_iframe`, or undefined when the data is not one.
 * The caller checks the message's origin and source first: this reads the data only.
 *
 * @example
 * ```ts
 * readCheckSessionAnswer('changed'); // 'changed'
 * ```
 */
export function readCheckSessionAnswer(data: unknown): CheckSessionAnswer | undefined {
  return data === 'changed' || data === 'unchanged' || data === 'error' ? data : undefined;
}

// This tab's sessionStorage, without the main entry's storage module (no chunk shared with it).
const tabStorage = (): Pick<StorageAdapter, 'get' | 'set' | 'remove'> => ({
  get: async (key) => sessionStorage.getItem(key),
  set: async (key, value) => sessionStorage.setItem(key, value),
  remove: async (key) => sessionStorage.removeItem(key),
});

/** The client's methods session management uses. */
type Client = Pick<BrowserClient, 'getProvider' | 'handleRedirectCallback' | 'logout' | 'login'>;

/**
 * Options of {@link sessionManagement}.
 *
 * @example
 * ```ts
 * const options: SessionManagementOptions = { clientId: 'spa', interval: 5000, onChanged: 'end' };
 * ```
 */
export interface SessionManagementOptions {
  /** Your client id (the first word of each message). */
  clientId: string;
  /** Milliseconds between checks. Default 5000. */
  interval?: number;
  /**
   * On `changed`: `'end'` (default) ends the local session (`logout({ redirect: false })`);
   * `'recheck'` logs in again with `prompt=none` (the provider answers at once: a new
   * session_state, or `login_required`); a function is called instead.
   */
  onChanged?: 'end' | 'recheck' | (() => void | Promise<void>);
  /** Where the session_state is kept. Default this tab's sessionStorage. */
  storage?: StorageAdapter;
  /** Milliseconds `check()` waits for an answer before it resolves `'error'`. Default 5000. */
  timeout?: number;
}

/**
 * What `sessionManagement(client, options)` returns.
 *
 * @example
 * ```ts
 * const answer: CheckSessionAnswer = await sessions.check();
 * ```
 */
export interface SessionManagement {
  /** Use on the callback page instead of `client.handleRedirectCallback`: the same, and keeps the response's `session_state`. */
  handleRedirectCallback(url?: string): Promise<LoginResult>;
  /** Frames the provider's `check_session_iframe` and checks at the interval while a session_state is kept. */
  start(): Promise<void>;
  /** Stops checking and removes the frame. */
  stop(): void;
  /** One check now: the provider's answer (`'error'` without a kept session_state, or after the timeout). */
  check(): Promise<CheckSessionAnswer>;
}

const KEY = 'oidc-rp.session-state';

/**
 * Session Management 1.0 for `client`. Works only where the provider's frame sees its own
 * cookies: same-site, or browsers that allow third-party cookies (see the README's limits).
 *
 * @example
 * ```ts
 * import { sessionManagement } from '@oidc-rp/browser';
 *
 * const sessions = sessionManagement(client, { clientId: 'spa' });
 * if (client.isRedirectCallback()) await sessions.handleRedirectCallback();
 * await client.init();
 * await sessions.start();
 * ```
 */
export function sessionManagement(client: Client, options: SessionManagementOptions): SessionManagement {
  const { clientId, interval = 5000, onChanged = 'end', timeout = 5000 } = options;
  checkSessionMessage(clientId, 'x'); // refuses a bad client id now (invalid_options)
  const storage = () => options.storage ?? tabStorage();
  let frame: HTMLIFrameElement | undefined;
  let opOrigin = '';
  let timer: ReturnType<typeof setInterval> | undefined;
  let waiting: Array<(answer: CheckSessionAnswer) => void> = [];

  const changed = async (): Promise<void> => {
    api.stop();
    await storage().remove(KEY);
    if (typeof onChanged === 'function') await onChanged();
    else if (onChanged === 'recheck') await client.login({ prompt: 'none' });
    else await client.logout({ redirect: false });
  };

  // Only the provider's frame is listened to: another window or origin posting "changed" is ignored.
  const onMessage = (event: MessageEvent): void => {
    if (!frame || event.origin !== opOrigin || event.source !== frame.contentWindow) return;
    const answer = readCheckSessionAnswer(event.data);
    if (answer === undefined) return;
    const settled = waiting;
    waiting = [];
    for (const resolve of settled) resolve(answer);
    if (answer === 'changed') void changed();
    else if (answer === 'error') api.stop(); // a malformed or unregistered request stays so
  };

  const api: SessionManagement = {
    async handleRedirectCallback(url = location.href) {
      const parsed = new URL(url);
      const query = parsed.searchParams.has('session_state') ? parsed.searchParams : new URLSearchParams(parsed.hash.slice(1));
      let sessionState: string | undefined;
      try {
        sessionState = readSessionState(query);
      } catch {
        sessionState = undefined; // malformed: the login goes on, the session is not checked
      }
      const result = await client.handleRedirectCallback(url);
      // Kept only once the response proved to be this tab's login.
      if (sessionState === undefined) await storage().remove(KEY);
      else await storage().set(KEY, sessionState);
      return result;
    },

    async start() {
      if (frame) return;
      const src = (await client.getProvider()).check_session_iframe;
      if (typeof src !== 'string') throw new OidcError('invalid_options', 'The provider has no check_session_iframe: session management is not available.');
      opOrigin = new URL(src).origin;
      const opFrame = document.createElement('iframe');
      opFrame.title = 'Session check';
      opFrame.style.cssText = 'display:none';
      const loaded = new Promise((resolve) => opFrame.addEventListener('load', resolve, { once: true }));
      opFrame.src = src;
      frame = opFrame;
      addEventListener('message', onMessage);
      document.body.append(opFrame);
      await loaded;
      timer = setInterval(() => void api.check(), interval);
      void api.check();
    },

    stop() {
      clearInterval(timer);
      timer = undefined;
      removeEventListener('message', onMessage);
      frame?.remove();
      frame = undefined;
      const settled = waiting;
      waiting = [];
      for (const resolve of settled) resolve('error');
    },

    async check() {
      const sessionState = await storage().get(KEY);
      const target = frame?.contentWindow;
      if (sessionState === null || !target) return 'error';
      return new Promise<CheckSessionAnswer>((resolve) => {
        const timeoutId = setTimeout(() => {
          waiting = waiting.filter((w) => w !== settle);
          resolve('error');
        }, timeout);
        const settle = (answer: CheckSessionAnswer) => {
          clearTimeout(timeoutId);
          resolve(answer);
        };
        waiting.push(settle);
        target.postMessage(checkSessionMessage(clientId, sessionState), opOrigin);
      });
    },
  };
  return api;
}
