// The shared rules of Front-Channel Logout 1.0 and Session Management 1.0: what a request to
// the RP's frontchannel_logout_uri must carry (iss of this provider, a sid), the session_state
// of an authorization response, and the check_session_iframe message protocol.
import { describe, expect, it } from 'vitest';
import { checkSessionMessage, isOidcError, readCheckSessionAnswer, readFrontChannelLogoutRequest, readSessionState } from '../src/index';

const ISSUER = 'http://127.0.0.1:4000/demo';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isOidcError(error) ? error.code : 'not an OidcError';
  }
  return undefined;
}

describe('readFrontChannelLogoutRequest', () => {
  it('returns iss and sid of a request from this provider', () => {
    const url = new URL(`http://127.0.0.1:3000/fcl?iss=${encodeURIComponent(ISSUER)}&sid=abc`);
    expect(readFrontChannelLogoutRequest(url, ISSUER)).toEqual({ iss: ISSUER, sid: 'abc' });
    expect(readFrontChannelLogoutRequest(url.searchParams, ISSUER)).toEqual({ iss: ISSUER, sid: 'abc' });
  });

  it('refuses another issuer, a missing or repeated iss, and an issuer that differs by a trailing slash', () => {
    for (const query of ['iss=http%3A%2F%2Fevil.example&sid=abc', 'sid=abc', `iss=${encodeURIComponent(ISSUER)}&iss=${encodeURIComponent(ISSUER)}&sid=abc`, `iss=${encodeURIComponent(`${ISSUER}/`)}&sid=abc`]) {
      expect(codeOf(() => readFrontChannelLogoutRequest(new URLSearchParams(query), ISSUER)), query).toBe('frontchannel_logout_iss_mismatch');
    }
  });

  it('refuses a request without sid (no "current session" logout from a bare GET), with an empty or repeated one', () => {
    const iss = `iss=${encodeURIComponent(ISSUER)}`;
    for (const query of [iss, `${iss}&sid=`, `${iss}&sid=a&sid=b`]) {
      expect(codeOf(() => readFrontChannelLogoutRequest(new URLSearchParams(query), ISSUER)), query).toBe('frontchannel_logout_sid_missing');
    }
  });
});

describe('session management', () => {
  it('reads session_state, or undefined without one', () => {
    expect(readSessionState(new URLSearchParams('code=c&session_state=abc.salt'))).toBe('abc.salt');
    expect(readSessionState(new URLSearchParams('code=c'))).toBeUndefined();
  });

  it('refuses a repeated, empty, spaced, non-printable or oversized session_state', () => {
    for (const query of ['session_state=a&session_state=b', 'session_state=', 'session_state=a%20b', 'session_state=a%0Ab', `session_state=${'a'.repeat(513)}`]) {
      expect(codeOf(() => readSessionState(new URLSearchParams(query))), query).toBe('session_state_invalid');
    }
  });

  it('builds the message "client_id session_state", refusing a client id with a space', () => {
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
