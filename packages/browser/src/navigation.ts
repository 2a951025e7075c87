/** The client's only contact with the page's location and windows, injectable for tests and shells. */

/**
 * How the client reads and changes the page's location.
 *
 * @example
 * ```ts
 * const navigate: Navigation = { ...browserNavigation(), redirect: (url) => router.push(url) };
 * ```
 */
export interface Navigation {
  /** The page's current URL. */
  currentUrl(): string;
  /** Leaves the app for `url` (the login page, the provider's logout). */
  redirect(url: string): void;
  /** Rewrites the address bar without navigating (removes `code` and `state` after a login). */
  replaceUrl(url: string): void;
  /**
   * Opens an empty popup window; null when the browser blocked it. Called synchronously in
   * `login({ popup: true })`. Default (with the `popupLogin` part): `window.open`.
   */
  openPopup?(): Window | null;
}

/**
 * The browser's `location`, `history` and `window.open`, looked up on each call (so creating
 * it on a server is harmless).
 *
 * @example
 * ```ts
 * const client = createBrowserClient({ ...options, navigate: browserNavigation() }); // the default
 * ```
 */
export function browserNavigation(): Navigation {
  return {
    currentUrl: () => location.href,
    redirect: (url) => location.assign(url),
    replaceUrl: (url) => history.replaceState(history.state, '', url),
  };
}
