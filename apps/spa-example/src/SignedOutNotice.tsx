import { useState } from 'react';
import { consumeSignedOutFlag } from './signed-out';

/**
 * Why this tab shows "Signed out": after a logout, say so; otherwise explain that sessions live
 * in the tab (the SDK keeps tokens in memory), so a new tab signs in again — without a password,
 * because the sign-in server still knows the browser.
 */
export function SignedOutNotice() {
  const [afterLogout] = useState(consumeSignedOutFlag);
  if (afterLogout) {
    return (
      <div className="notice notice-ok" role="status" data-testid="signed-out-notice">
        You are signed out, here and at the sign-in server. Signing in again asks for your password.
      </div>
    );
  }
  return (
    <p className="muted" data-testid="per-tab-hint">
      Signed in in another tab? This example keeps tokens in the tab's memory, so each tab signs in on its own — if
      the sign-in server still knows you, it takes one click and no password.
    </p>
  );
}
