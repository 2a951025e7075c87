// @vitest-environment node
// The RP side of Session Management 1.0's protocol (@oidc-rp/browser/session): the session_state
// of an authorization response, the message posted to the check_session_iframe, its answers.
import { describe, expect, it } from 'vitest';
import { isOidcError } from '../src/index';
import { checkSessionMessage, readCheckSessionAnswer, readSessionState } from '../src/session';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isOidcError(error) ? error.code : 'not an OidcError';
  }
  return undefined;
}

describe('session management protocol', () => {
  it('reads session_state, or undefined without one', () => {
    expect(readSessionState(new URLSearchParams('code=c&session_state=abc.salt'))).toBe('abc.salt');
    expect(readSessionState(new URLSearchParams('code=c'))).toBeUndefined();
  });

  it('refuses a repeated, empty, spaced, non-printable or oversized session_state', () => {
    for (const query of ['session_state=a&session_state=b', 'session_state=', 'session_state=a%20b', 'session_state=a%0Ab', `session_state=${'a'.repeat(513)}`]) {
      expect(codeOf(() => readSessionState(new URLSearchParams(query))), query).toBe('session_state_invalid');
    }
  });

  it('builds "client_id session_state", refusing a client id that is empty or has a space', () => {
    expect(checkSessionMessage('spa', 'abc.salt')).toBe('spa abc.salt');
    expect(codeOf(() => checkSessionMessage('a b', 'abc.salt'))).toBe('invalid_options');
    expect(codeOf(() => checkSessionMessage('', 'abc.salt'))).toBe('invalid_options');
  });

  it('reads the three answers and nothing else', () => {
    expect(readCheckSessionAnswer('changed')).toBe('changed');
    expect(readCheckSessionAnswer('unchanged')).toBe('unchanged');
    expect(readCheckSessionAnswer('error')).toBe('error');
    for (const data of ['Changed', 'changed ', { answer: 'changed' }, null, 1]) expect(readCheckSessionAnswer(data)).toBeUndefined();
  });
});
