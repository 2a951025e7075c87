import type { JWK } from 'jose';
import { HttpResponse, delay, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OidcError, type OidcErrorCode } from '../src/errors';
import { type IdTokenValidationOptions, validateIdToken } from '../src/client/id-token';
import { clearJwksCache } from '../src/jose/jwks';
import {
  CLIENT_ID,
  JWKS_URI,
  NOW,
  type TestKey,
  createTestKey,
  serveJwks,
  signIdToken,
  testProvider,
  validClaims,
} from './support/id-tokens';

const server = setupServer();
let current: TestKey;
let next: TestKey;

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  current = await createTestKey('RS256');
  next = await createTestKey('RS256');
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
});
afterEach(() => {
  server.resetHandlers();
  clearJwksCache();
  vi.useRealTimers();
});
afterAll(() => server.close());

function validate(idToken: string, options: Partial<IdTokenValidationOptions> = {}) {
  return validateIdToken(idToken, { provider: testProvider(), clientId: CLIENT_ID, ...options });
}

async function rejection(promise: Promise<unknown>, code: OidcErrorCode): Promise<OidcError> {
  const error: unknown = await promise.then(
    () => expect.fail(`expected a rejection with ${code}`),
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(OidcError);
  expect((error as OidcError).code, (error as OidcError).message).toBe(code);
  return error as OidcError;
}

function advanceSeconds(seconds: number): void {
  vi.setSystemTime(Date.now() + seconds * 1000);
}

const forged = (kid: string) => signIdToken(current, validClaims(), { kid });

describe('JWKS cache and refetch', () => {
  it('picks up a key rotated right after the first fetch, with one refetch', async () => {
    let keys: JWK[] = [current.jwk];
    const jwks = serveJwks(server, () => keys);
    await validate(await signIdToken(current));
    expect(jwks.fetches()).toBe(1);

    keys = [current.jwk, next.jwk];
    await expect(validate(await signIdToken(next))).resolves.toMatchObject({ sub: 'user-42' });
    expect(jwks.fetches()).toBe(2);
    await validate(await signIdToken(next));
    await validate(await signIdToken(current));
    expect(jwks.fetches()).toBe(2);
  });

  it('refetches once for an unknown kid, then not again within the cooldown', async () => {
    const jwks = serveJwks(server, () => [current.jwk]);
    await rejection(validate(await forged('forged-1')), 'id_token_unknown_kid');
    expect(jwks.fetches()).toBe(2);

    await rejection(validate(await forged('forged-2')), 'id_token_unknown_kid');
    advanceSeconds(29);
    await rejection(validate(await forged('forged-3')), 'id_token_unknown_kid');
    expect(jwks.fetches()).toBe(2);

    advanceSeconds(1); // the default cooldown, 30 s, has passed
    await rejection(validate(await forged('forged-4')), 'id_token_unknown_kid');
    expect(jwks.fetches()).toBe(3);
  });

  it('honours a custom cooldown, and picks up a rotation once it has passed', async () => {
    let keys: JWK[] = [current.jwk];
    const jwks = serveJwks(server, () => keys);
    const options = { jwksRefetchCooldown: 5 };
    await rejection(validate(await forged('forged'), options), 'id_token_unknown_kid');
    expect(jwks.fetches()).toBe(2);

    keys = [next.jwk];
    const rotated = await signIdToken(next);
    await rejection(validate(rotated, options), 'id_token_unknown_kid');
    expect(jwks.fetches()).toBe(2);
    advanceSeconds(5);
    await expect(validate(rotated, options)).resolves.toBeDefined();
    expect(jwks.fetches()).toBe(3);
  });

  it('fetches the JWKS once for 100 concurrent validations with a cold cache', async () => {
    const jwks = serveJwks(server, () => [current.jwk]);
    const token = await signIdToken(current);
    const results = await Promise.all(Array.from({ length: 100 }, () => validate(token)));
    expect(results).toHaveLength(100);
    expect(results.every((claims) => claims.sub === 'user-42')).toBe(true);
    expect(jwks.fetches()).toBe(1);
  });

  it('refetches once for 100 concurrent tokens with forged kids', async () => {
    const jwks = serveJwks(server, () => [current.jwk]);
    await validate(await signIdToken(current));
    const tokens = await Promise.all(Array.from({ length: 100 }, (_, i) => forged(`forged-${i}`)));
    const outcomes = await Promise.allSettled(tokens.map((token) => validate(token)));
    expect(
      outcomes.every((o) => o.status === 'rejected' && (o.reason as OidcError).code === 'id_token_unknown_kid'),
    ).toBe(true);
    expect(jwks.fetches()).toBe(2);
  });

  it('keeps one cache per jwks_uri', async () => {
    const otherUri = 'https://other-op.example.test/jwks';
    const first = serveJwks(server, () => [current.jwk]);
    const second = serveJwks(server, () => [next.jwk], otherUri);
    const other = testProvider({ issuer: 'https://other-op.example.test', jwks_uri: otherUri });
    await validate(await signIdToken(current));
    await validate(await signIdToken(next, validClaims({ iss: other.issuer })), { provider: other });
    await validate(await signIdToken(current));
    expect([first.fetches(), second.fetches()]).toEqual([1, 1]);
  });

  it('fetches again after clearJwksCache', async () => {
    const jwks = serveJwks(server, () => [current.jwk]);
    const token = await signIdToken(current);
    await validate(token);
    clearJwksCache();
    await validate(token);
    expect(jwks.fetches()).toBe(2);
  });

  it('fetches a key set older than ten minutes again, so withdrawn keys stop being accepted', async () => {
    let keys: JWK[] = [current.jwk];
    const jwks = serveJwks(server, () => keys);
    const token = await signIdToken(current, validClaims({ exp: NOW + 3600 }));
    await validate(token);
    advanceSeconds(9 * 60);
    await validate(token);
    expect(jwks.fetches()).toBe(1);

    keys = [next.jwk];
    advanceSeconds(60);
    await rejection(validate(token), 'id_token_unknown_kid');
    expect(jwks.fetches()).toBe(3); // the expired set, then the refetch for the unknown kid
  });

  it('uses the fetch given in the http options', async () => {
    const requested: string[] = [];
    const customFetch: typeof fetch = async (input) => {
      requested.push(String(input));
      return Response.json({ keys: [current.jwk] });
    };
    await expect(validate(await signIdToken(current), { http: { fetch: customFetch } })).resolves.toBeDefined();
    expect(requested).toEqual([JWKS_URI]);
  });
});

describe('JWKS endpoint failures', () => {
  it('reports an HTTP 500 as jwks_fetch_failed, and does not cache the failure', async () => {
    server.use(http.get(JWKS_URI, () => new HttpResponse('oops', { status: 500 }), { once: true }));
    const token = await signIdToken(current);
    const error = await rejection(validate(token), 'jwks_fetch_failed');
    expect(error.message).toContain('HTTP 500');

    const jwks = serveJwks(server, () => [current.jwk]);
    await expect(validate(token)).resolves.toBeDefined();
    expect(jwks.fetches()).toBe(1);
  });

  it('refuses a redirected jwks_uri, even within its origin, without requesting the target', async () => {
    const moved = `${new URL(JWKS_URI).origin}/keys-v2`;
    let followed = 0;
    server.use(
      http.get(JWKS_URI, () => new HttpResponse(null, { status: 301, headers: { location: moved } })),
      http.get(moved, () => {
        followed += 1;
        return HttpResponse.json({ keys: [current.jwk] });
      }),
    );
    const error = await rejection(validate(await signIdToken(current)), 'redirect_refused');
    expect(error.message).toContain('configure the final URL');
    expect(followed).toBe(0);
  });

  it('reads a 3xx without Location as a failed answer, not a redirect', async () => {
    server.use(http.get(JWKS_URI, () => new HttpResponse(null, { status: 304 })));
    await rejection(validate(await signIdToken(current)), 'jwks_fetch_failed');
  });

  it('reports a body that is not JSON as jwks_invalid', async () => {
    server.use(http.get(JWKS_URI, () => HttpResponse.text('<html>maintenance</html>')));
    const error = await rejection(validate(await signIdToken(current)), 'jwks_invalid');
    expect(error.message).toContain('not JSON');
  });

  it.each([
    ['no keys member', {}],
    ['keys that are not an array', { keys: { kid: 'x' } }],
    ['an array instead of a key set', [{ kid: 'x' }]],
  ])('reports JSON with %s as jwks_invalid', async (_, body) => {
    server.use(http.get(JWKS_URI, () => HttpResponse.json(body)));
    await rejection(validate(await signIdToken(current)), 'jwks_invalid');
  });

  it('reports a JWKS endpoint that does not answer within the timeout', async () => {
    server.use(
      http.get(JWKS_URI, async () => {
        await delay('infinite');
        return HttpResponse.json({ keys: [] });
      }),
    );
    const error = await rejection(validate(await signIdToken(current), { http: { timeout: 50 } }), 'jwks_fetch_failed');
    expect((error.cause as OidcError).code).toBe('request_timeout');
    expect(error.message).toContain('50 ms');
  });

  it('reports a network failure as jwks_fetch_failed', async () => {
    server.use(http.get(JWKS_URI, () => HttpResponse.error()));
    const error = await rejection(validate(await signIdToken(current)), 'jwks_fetch_failed');
    expect((error.cause as OidcError).code).toBe('network_error');
  });

  it('shares one failing fetch between concurrent callers', async () => {
    let fetches = 0;
    server.use(
      http.get(JWKS_URI, () => {
        fetches++;
        return new HttpResponse(null, { status: 503 });
      }),
    );
    const token = await signIdToken(current);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => validate(token)));
    expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as OidcError).code === 'jwks_fetch_failed')).toBe(
      true,
    );
    expect(fetches).toBe(1);
  });

  it('keeps the cached keys when a refetch fails', async () => {
    const jwks = serveJwks(server, () => [current.jwk]);
    const token = await signIdToken(current);
    await validate(token);
    server.use(http.get(JWKS_URI, () => new HttpResponse(null, { status: 502 })));
    await rejection(validate(await forged('forged')), 'jwks_fetch_failed');
    await expect(validate(token)).resolves.toBeDefined();
    expect(jwks.fetches()).toBe(1);
  });
});
