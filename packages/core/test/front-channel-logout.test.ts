// The shared rule of Front-Channel Logout 1.0: what a request to the RP's frontchannel_logout_uri
// must carry (iss of this provider, a sid) before anything is ended.
import { describe, expect, it } from 'vitest';
import { isOidcError, readFrontChannelLogoutRequest } from '../src/index';

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
