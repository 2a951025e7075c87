// The logout redirect lands on the start page like any visit; a flag set just before it lets
// that page say "you are signed out". It holds no token, only that a logout happened.
const KEY = 'oidc-rp-example:signed-out';

/** Call right before `logout()`. */
export function markSigningOut(): void {
  sessionStorage.setItem(KEY, '1');
}

/** True once after a logout; clears the flag. */
export function consumeSignedOutFlag(): boolean {
  const set = sessionStorage.getItem(KEY) === '1';
  sessionStorage.removeItem(KEY);
  return set;
}
