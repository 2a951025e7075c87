/**
 * The one way core talks to the provider: applies {@link HttpOptions} (custom fetch,
 * timeout, caller signal) and turns transport failures into `request_timeout` /
 * `network_error`. The timeout covers the response body too, so a server that sends
 * headers and then stalls cannot hang the caller. Internal module.
 */

import { DEV } from '../dev';
import { invalidOptions } from '../options';
import { OidcError, isOidcError } from '../errors';
import { fromUtf8 } from './encoding';
import type { HttpOptions } from '../types';

const DEFAULT_TIMEOUT_MS = 10_000;
// setTimeout fires at once for delays above 2^31 - 1 ms; treat those as "no timeout".
const MAX_TIMER_MS = 2_147_483_647;

/** Largest JSON body core reads from a provider (discovery, token, userinfo responses). */
export const MAX_JSON_BYTES = 1024 * 1024;

/**
 * Sends one request and runs `read` on the response, both within the timeout.
 * `what` names the endpoint in error messages ("The token endpoint").
 * OidcErrors thrown by `read` pass through unchanged.
 */
export async function sendRequest<T>(
  url: string,
  init: RequestInit,
  http: HttpOptions | undefined,
  what: string,
  read: (response: Response) => Promise<T>,
  send: Send = fetchWithoutRedirects,
): Promise<T> {
  const timeout = http?.timeout ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeout !== 'number' || !(timeout > 0)) {
    throw invalidOptions(DEV && 'timeout must be a positive number of milliseconds.');
  }
  const fetchFn = http?.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') {
    throw invalidOptions(DEV && 'No fetch available: pass the fetch option.');
  }
  const where = DEV && `${what} (${describeUrl(url)})`;
  const callerSignal = http?.signal;
  if (callerSignal?.aborted) throw abortedError(where, callerSignal.reason);

  // One signal for the request, aborted by the timeout or by the caller.
  const controller = new AbortController();
  const { signal } = controller;
  const abort = () => controller.abort(callerSignal?.reason);
  const timer = timeout <= MAX_TIMER_MS ? setTimeout(abort, timeout) : undefined;
  callerSignal?.addEventListener('abort', abort);
  try {
    return await new Promise<T>((resolve, reject) => {
      // A custom fetch may ignore the signal: rejecting on abort makes the timeout hold regardless.
      signal.addEventListener('abort', () => reject(signal.reason));
      send(fetchFn, url, { ...init, signal }, where).then(read).then(resolve, reject);
    });
  } catch (error) {
    if (callerSignal?.aborted) throw abortedError(where, callerSignal.reason);
    if (signal.aborted) {
      throw new OidcError('request_timeout', DEV && `${where} timed out after ${timeout} ms; check the provider or raise timeout.`);
    }
    if (isOidcError(error)) throw error;
    throw new OidcError('network_error', DEV && `${where} failed; check the network and the provider URL.`, { cause: error });
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', abort);
  }
}

/** How {@link sendRequest} makes the request: {@link fetchWithoutRedirects} unless told otherwise. */
export type Send = (fetchFn: typeof fetch, url: string, init: RequestInit, where: string) => Promise<Response>;

/**
 * Requests with `init.redirect` set (credentialed calls: 'manual') go as they are, and a
 * redirect is their answer. Others (the JWKS) refuse a redirect: `redirect_refused`, the
 * target never requested. Only discovery follows redirects ({@link followSameOrigin}).
 */
export async function fetchWithoutRedirects(fetchFn: typeof fetch, url: string, init: RequestInit, where: string): Promise<Response> {
  if (init.redirect) return fetchFn(url, init);
  const response = await fetchFn(url, { ...init, redirect: 'manual' });
  if (!isRedirect(response)) return response;
  void discardBody(response);
  throw new OidcError('redirect_refused', DEV && `${where} redirected; only discovery follows redirects: configure the final URL.`);
}

const MAX_REDIRECTS = 5;

/**
 * Follows redirects within the URL's origin only: another host, port or scheme (an
 * https→http downgrade) is `redirect_refused`, before it is requested. Browsers hide a
 * redirect's target (`opaqueredirect`), so there every redirect is refused. For discovery.
 */
export async function followSameOrigin(fetchFn: typeof fetch, url: string, init: RequestInit, where: string): Promise<Response> {
  const origin = new URL(url).origin;
  for (let hop = 0, current = url; ; hop += 1) {
    const response = await fetchFn(current, { ...init, redirect: 'manual' });
    if (!isRedirect(response)) return response;
    void discardBody(response);
    const location = response.headers.get('location');
    let next: URL | undefined;
    try {
      next = location === null ? undefined : new URL(location, current);
    } catch {
      // an unusable Location: refused below
    }
    if (next?.origin !== origin || hop === MAX_REDIRECTS) {
      const target = DEV && (next?.origin === origin ? 'too often' : `to ${next ? describeUrl(next.href) : 'a hidden or invalid target'}`);
      throw new OidcError('redirect_refused', DEV && `${where} redirected ${target}; only redirects within ${origin} are followed: use the final URL.`);
    }
    current = next.href;
  }
}

// A 3xx without Location is an ordinary (failed) answer.
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status > 299 && response.status < 400 && response.headers.has('location'));
}

/** The outcome of reading a body as JSON: the value, or why there is none (for messages: false in production builds). */
export type JsonBody = { ok: true; value: unknown } | { ok: false; problem_: 'empty' | 'too large' | 'not JSON' };

/** Reads at most `maxBytes` of the body and parses it as UTF-8 JSON. Never throws on bad content. */
export async function readJson(response: Response, maxBytes = MAX_JSON_BYTES): Promise<JsonBody> {
  const bytes = await readBoundedBody(response, maxBytes);
  try {
    if (bytes?.length) return { ok: true, value: JSON.parse(fromUtf8(bytes)) };
  } catch {
    return { ok: false, problem_: DEV && 'not JSON' };
  }
  return { ok: false, problem_: DEV && (bytes ? 'empty' : 'too large') };
}

/** True for a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Releases a body the caller does not need (keeps connections reusable). Not awaited:
 * some fetch implementations (mocks, proxies) never settle a cancel.
 */
export async function discardBody(response: Pick<Response, 'body'>): Promise<void> {
  response.body?.cancel().catch(() => undefined);
}

/**
 * The body of a response (or of a request a server receives) as bytes, or undefined when it is
 * larger than `maxBytes`: a declared `Content-Length` over the limit is refused unread, and
 * reading stops as soon as the limit is passed, so a huge body is never buffered.
 *
 * @example
 * ```ts
 * const bytes = await readBoundedBody(request, 64 * 1024);
 * if (!bytes) return new Response('Too large', { status: 413 });
 * ```
 */
export async function readBoundedBody(message: Pick<Response, 'body' | 'headers'>, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(message.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await discardBody(message);
    return undefined;
  }
  if (!message.body) return new Uint8Array(0);
  const reader = message.body.getReader();
  const chunks: BlobPart[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      reader.cancel().catch(() => undefined); // not awaited, as in discardBody
      return undefined;
    }
    chunks.push(value);
  }
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

function abortedError(where: string, reason: unknown): OidcError {
  return new OidcError('network_error', DEV && `${where}: aborted by the caller's signal.`, { cause: reason });
}

// Origin and path only: a query string is never echoed into a message.
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'an invalid URL';
  }
}

/** The headers of a form POST to a provider endpoint that answers JSON (token, PAR, revocation, introspection). */
export function formHeaders(): Headers {
  return new Headers({ 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' });
}
