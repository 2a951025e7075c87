import { OidcError, TokenEndpointError } from '@oidc-rp/core';
import { describe, expect, it, vi } from 'vitest';
import { backoffDelay, isRetryableError, withRetry } from '../src/retry';

const policy = { retries: 3, baseDelay: 100, maxDelay: 1_000 };

describe('retry policy', () => {
  it('retries transport failures and 5xx, never 4xx or caller mistakes', () => {
    expect(isRetryableError(new OidcError('network_error', 'x'))).toBe(true);
    expect(isRetryableError(new OidcError('request_timeout', 'x'))).toBe(true);
    expect(isRetryableError(new TokenEndpointError({ status: 503, error: 'temporarily_unavailable' }))).toBe(true);
    expect(isRetryableError(new TokenEndpointError({ status: 500, error: 'server_error' }))).toBe(true);
    expect(isRetryableError(new TokenEndpointError({ status: 400, error: 'invalid_scope' }))).toBe(false);
    expect(isRetryableError(new TokenEndpointError({ status: 401, error: 'invalid_client' }))).toBe(false);
    expect(isRetryableError(new TokenEndpointError({ status: 429, error: 'slow_down' }))).toBe(false);
    expect(isRetryableError(new OidcError('token_response_invalid', 'x'))).toBe(false);
    expect(isRetryableError(new Error('boom'))).toBe(false);
  });

  it('draws full-jitter delays from the CSPRNG within the doubling cap', () => {
    const random = vi.spyOn(Math, 'random');
    const spy = vi.spyOn(crypto, 'getRandomValues');
    for (let attempt = 0; attempt < 6; attempt++) {
      const cap = Math.min(policy.maxDelay, policy.baseDelay * 2 ** attempt);
      for (let i = 0; i < 200; i++) {
        const delay = backoffDelay(attempt, policy);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(cap);
      }
    }
    expect(spy).toHaveBeenCalled();
    expect(random).not.toHaveBeenCalled();
  });

  it('spans the whole range: the extremes of the random source map to 0 and the cap', () => {
    vi.spyOn(crypto, 'getRandomValues').mockImplementationOnce((array) => {
      (array as Uint32Array)[0] = 0;
      return array;
    });
    expect(backoffDelay(2, policy)).toBe(0);
    vi.spyOn(crypto, 'getRandomValues').mockImplementationOnce((array) => {
      (array as Uint32Array)[0] = 2 ** 32 - 1;
      return array;
    });
    expect(backoffDelay(2, policy)).toBe(400);
  });

  it('stops after the configured number of retries and throws the last error', async () => {
    let calls = 0;
    const failure = new OidcError('network_error', 'down');
    await expect(
      withRetry(
        async () => {
          calls++;
          throw failure;
        },
        { retries: 2, baseDelay: 0, maxDelay: 0 },
      ),
    ).rejects.toBe(failure);
    expect(calls).toBe(3);
  });

  it('does not retry a 4xx', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new TokenEndpointError({ status: 400, error: 'invalid_request' });
        },
        { retries: 5, baseDelay: 0, maxDelay: 0 },
      ),
    ).rejects.toMatchObject({ status: 400 });
    expect(calls).toBe(1);
  });
});
