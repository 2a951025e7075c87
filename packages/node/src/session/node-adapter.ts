/**
 * The thin adapter between Node's `http` objects (Express, Fastify's `raw`, plain
 * `node:http`) and the web-standard `Request` / `Response` the session layer speaks.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { OidcError } from '@oidc-rp/core';
import { tryParseUrl } from '@oidc-rp/core/internal';

/**
 * Options of {@link toWebRequest}.
 *
 * @example
 * ```ts
 * const request = toWebRequest(req, { baseUrl: 'https://app.example.com' });
 * ```
 */
export interface ToWebRequestOptions {
  /**
   * The app's public origin (set it in production, and behind a proxy or with https). Default
   * `http://<Host header>` when the Host header is a plain host name (and port), else
   * `http://localhost`. The request's path is always a path on this origin.
   */
  baseUrl?: string;
}

// A login callback (form_post) or a logout form is small; the body is streamed to the reader
// and fails past this, so nothing larger is ever buffered. The layer's own readers stop sooner.
const MAX_BODY_BYTES = 64 * 1024;

/**
 * A web `Request` for a Node request. The body of a POST is streamed as it is read (failing with
 * `request_body_too_large` past 64 KiB; the session layer itself stops at 16 KiB for a logout
 * form); when a body parser already read it (Express `urlencoded()`), the parsed form is used
 * instead. The URL is the path and query of the request on `baseUrl`: a path such as
 * `//evil.example/x` stays a path, never a host.
 *
 * @example
 * ```ts
 * // Express
 * app.use(async (req, res, next) => {
 *   try {
 *     const response = await auth.handle(await toWebRequest(req));
 *     if (response) return await sendWebResponse(res, response);
 *     next();
 *   } catch (error) {
 *     next(error);
 *   }
 * });
 * ```
 */
export async function toWebRequest(req: IncomingMessage & { originalUrl?: string; body?: unknown }, options: ToWebRequestOptions = {}): Promise<Request> {
  const url = new URL(`${originOf(options.baseUrl, req.headers.host)}${pathOf(req.originalUrl ?? req.url ?? '/')}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers });

  headers.delete('content-length');
  if (req.readableEnded && typeof req.body === 'object' && req.body !== null) {
    return new Request(url, { method, headers, body: new URLSearchParams(req.body as Record<string, string>).toString() });
  }
  return new Request(url, { method, headers, body: boundedBody(req, MAX_BODY_BYTES), duplex: 'half' } as RequestInit);
}

/** The origin requests are placed on: `baseUrl`'s, else the Host header when it is only a host (and port). */
function originOf(baseUrl: string | undefined, host: string | undefined): string {
  if (baseUrl !== undefined) return new URL(baseUrl).origin;
  const parsed = host ? tryParseUrl(`http://${host}`) : undefined;
  // A Host carrying anything else (a path, credentials, a second host) is not used.
  return parsed && host && parsed.host === host.toLowerCase() ? parsed.origin : 'http://localhost';
}

/** The request target as a path with its query: origin-form as it is, absolute-form's path, anything else `/`. */
function pathOf(target: string): string {
  if (target.startsWith('/')) return target; // appended to the origin, so `//host/x` is the path //host/x
  const absolute = tryParseUrl(target);
  return absolute ? `${absolute.pathname}${absolute.search}` : '/';
}

/**
 * The request body as a web stream, read only as it is consumed: nothing is read until someone
 * reads (so a body parser further down an Express chain still gets it), a reader that stops
 * (the layer past its cap) leaves the rest unread, and past `maxBytes` the stream fails. The
 * request is paused, not destroyed, so the answer (413) still reaches the client.
 */
function boundedBody(req: IncomingMessage, maxBytes: number): ReadableStream<Uint8Array> {
  let size = 0;
  let listening = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stop = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.pause();
  };
  function onData(chunk: Buffer) {
    size += chunk.length;
    if (size > maxBytes) {
      stop();
      controller.error(new OidcError('request_body_too_large', `The request body is over ${maxBytes / 1024} KiB, more than an auth route accepts; reading stopped there.`));
      return;
    }
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
    req.pause(); // the next read resumes it
  }
  function onEnd() {
    stop();
    controller.close();
  }
  function onError(error: Error) {
    stop();
    controller.error(error);
  }
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        if (!listening && req.readableEnded) return controller.close(); // read by someone else already: nothing left
        if (!listening) {
          listening = true;
          req.on('data', onData);
          req.on('end', onEnd);
          req.on('error', onError);
        }
        req.resume();
      },
      cancel: stop,
    },
    { highWaterMark: 0 },
  );
}

/**
 * Writes a web `Response` (status, every header including each `Set-Cookie`, body) to a Node response.
 *
 * @example
 * ```ts
 * const response = await auth.logout(await toWebRequest(req));
 * await sendWebResponse(res, response);
 * ```
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  // A body left unread (refused past a cap) is not drained: the connection closes after the answer.
  if (res.req && !res.req.complete) res.shouldKeepAlive = false;
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}
