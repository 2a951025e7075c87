/**
 * Bounded retries with exponential backoff and full jitter, for requests that are safe to
 * repeat (client credentials). Only transient failures are retried: network errors,
 * timeouts and HTTP 5xx. A 4xx means the request itself is wrong and would fail again.
 */

import { TokenEndpointError, isOidcError } from '@oidc-rp/core';
import type { RetryOptions } from './options';

/**
 * True for failures worth another attempt: transport errors and 5xx answers.
 *
 * @example
 * ```ts
 * try {
 *   await client.getClientCredentialsToken({ scope: 'api.read' });
 * } catch (error) {
 *   if (isRetryableError(error)) scheduleLater(); // the provider is down, not the request wrong
 * }
 * ```
 */
export function isRetryableError(error: unknown): boolean {
  if (!isOidcError(error)) return false;
  if (error.code === 'network_error' || error.code === 'request_timeout') return true;
  return error instanceof TokenEndpointError ? error.status >= 500 : false;
}

/**
 * The wait before retry number `attempt` (0-based): a uniformly random duration between 0
 * and `min(maxDelay, baseDelay * 2^attempt)` ("full jitter"), so that many instances
 * failing together do not retry in lockstep. Random from the CSPRNG.
 *
 * @example
 * ```ts
 * backoffDelay(0, { retries: 2, baseDelay: 100, maxDelay: 2000 }); // 0..100 ms
 * backoffDelay(3, { retries: 5, baseDelay: 100, maxDelay: 2000 }); // 0..800 ms
 * ```
 */
export function backoffDelay(attempt: number, policy: Required<RetryOptions>): number {
  const cap = Math.min(policy.maxDelay, policy.baseDelay * 2 ** attempt);
  const [random] = crypto.getRandomValues(new Uint32Array(1));
  return Math.floor(((random as number) / 2 ** 32) * (cap + 1));
}

/**
 * Runs `operation`, retrying it up to `policy.retries` times while it fails with a
 * retryable error. The last error is thrown unchanged.
 *
 * @example
 * ```ts
 * const tokens = await withRetry(() => clientCredentials({ provider, client }), {
 *   retries: 2,
 *   baseDelay: 100,
 *   maxDelay: 2000,
 * });
 * ```
 */
export async function withRetry<T>(operation: () => Promise<T>, policy: Required<RetryOptions>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= policy.retries || !isRetryableError(error)) throw error;
      await sleep(backoffDelay(attempt, policy));
    }
  }
}

/** Resolves after `ms` milliseconds (fake timers apply). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
