import { useSyncExternalStore } from 'react';

// Two pages and a callback need no router: the path lives in the History API, and
// `navigate` announces changes with the same event the back button fires.

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  return () => window.removeEventListener('popstate', listener);
}

/** The current path; re-renders on `navigate` and on back/forward. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

/** Goes to `to` (a same-origin path); `replace` leaves no history entry (used after the login callback). */
export function navigate(to: string, { replace = false } = {}): void {
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** Only same-origin paths are followed after a login, never a URL that came from elsewhere. */
export function safeReturnPath(appState: unknown): string {
  const returnTo = (appState as { returnTo?: unknown } | undefined)?.returnTo;
  return typeof returnTo === 'string' && returnTo.startsWith('/') && !returnTo.startsWith('//') ? returnTo : '/';
}
