// The logout redirect lands on the start page like any visit; a flag set just before it lets
// that page say "you are signed out". It holds no token, only that a logout happened.
const KEY = 'oidc-rp-example:signed-out';

// Read once per page load: logout() signs the tab out (so the signed-out view renders) before
// it leaves for the provider, and that render must not use up the flag meant for the page the
// provider sends the browser back to.
let pending = sessionStorage.getItem(KEY) === '1';
sessionStorage.removeItem(KEY);

/** Call right before `logout()`. */
export function markSigningOut(): void {
  sessionStorage.setItem(KEY, '1');
}

/** True once after a page load that follows a logout; clears the flag. */
export function consumeSignedOutFlag(): boolean {
  const set = pending;
  pending = false;
  return set;
}
