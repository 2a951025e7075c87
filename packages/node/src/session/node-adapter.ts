/**
 * The thin adapter between Node's `http` objects (Express, Fastify's `raw`, plain
 * `node:http`) and the web-standard `Request` / `Response` the session layer speaks.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Options of {@link toWebRequest}.
 *
 * @example
 * ```ts
 * const request = toWebRequest(req, { baseUrl: 'https://app.example.com' });
 * ```
 */
export interface ToWebRequestOptions {
  /** The app's public origin; default `http://<Host header>` (set it behind a proxy or with https). */
  baseUrl?: string;
}

// A login callback or logout form is small; anything bigger is refused rather than buffered.
const MAX_BODY_BYTES = 64 * 1024;

/**
 * A web `Request` for a Node request. The body of a POST is read (up to 64 KB); when a body
 * parser already read it (Express `urlencoded()`), the parsed form is used instead.
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
  const base = options.baseUrl ?? `http://${req.headers.host ?? '127.0.0.1'}`;
  const url = new URL(req.originalUrl ?? req.url ?? '/', base);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers });

  let body: string;
  if (req.readableEnded && typeof req.body === 'object' && req.body !== null) {
    body = new URLSearchParams(req.body as Record<string, string>).toString();
  } else {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) throw new RangeError('The request body is larger than an auth route accepts (64 KB).');
      chunks.push(chunk as Buffer);
    }
    body = Buffer.concat(chunks).toString('utf8');
  }
  headers.delete('content-length');
  return new Request(url, { method, headers, body });
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
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}
