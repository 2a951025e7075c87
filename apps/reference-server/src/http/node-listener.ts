/**
 * Serves a fetch handler (the Hono app) on `node:http`: each Node request goes in as a lazy
 * `Request` (node-request.ts) with `{ incoming, outgoing }` as the app's env, and the answer is
 * written back with every Set-Cookie kept, no body for HEAD, and a streamed body cancelled when
 * the client goes away.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { keptResponse } from './light-response';
import { abortLazyRequest, lazyRequest } from './node-request';

/** What the app gets as `c.env` from a listener. */
export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

type FetchHandler = (request: Request, env: NodeBindings) => Response | Promise<Response>;

/** A Host header: a name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The request's absolute URL, or undefined when its target or Host cannot make one. */
function requestUrl(incoming: IncomingMessage): string | undefined {
  const target = incoming.url ?? '';
  if (!target.startsWith('/')) return undefined;
  const host = incoming.headers.host ?? '';
  if (!HOST.test(host)) return undefined;
  const scheme = (incoming.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  try {
    // Concatenated, not resolved: a target such as `//evil.example/x` stays a path.
    return new URL(`${scheme}://${host}${target}`).href;
  } catch {
    return undefined;
  }
}

/** Response headers as Node takes them: Set-Cookie as a list, one entry per cookie. */
function nodeHeaders(headers: unknown): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  if (headers === undefined || headers === null) return out;
  const cookies: string[] = [];
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    if (key === 'set-cookie') cookies.push(value);
    else out[key] = value;
  };
  if (typeof (headers as Headers).getSetCookie === 'function' && typeof (headers as Headers).forEach === 'function') {
    (headers as Headers).forEach((value, name) => {
      if (name !== 'set-cookie') add(name, value);
    });
    cookies.push(...(headers as Headers).getSetCookie());
  } else if (Array.isArray(headers)) {
    for (const [name, value] of headers as [string, string][]) add(name, value);
  } else {
    // The common case (a plain object of the app's own headers): no entry or wrapper arrays per header.
    const record = headers as Record<string, string | string[]>;
    for (const name of Object.keys(record)) {
      const value = record[name] as string | string[];
      if (Array.isArray(value)) for (const one of value) add(name, one);
      else add(name, value);
    }
  }
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

function writeBytes(outgoing: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: string | Uint8Array | null, head: boolean): void {
  if (body !== null && headers['content-length'] === undefined) headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  outgoing.writeHead(status, headers);
  outgoing.end(head || body === null ? undefined : body);
}

/** A web body, chunk by chunk, waiting for the socket to drain; cancelled if the client leaves. */
async function writeStream(outgoing: ServerResponse, body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  outgoing.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (outgoing.destroyed) return;
      if (!outgoing.write(value)) await new Promise<void>((resolve) => {
        const go = () => {
          outgoing.off('drain', go);
          outgoing.off('close', go);
          resolve();
        };
        outgoing.on('drain', go);
        outgoing.on('close', go);
      });
    }
    outgoing.end();
  } catch {
    // The body failed half-way: the client must not take the part for the whole.
    outgoing.destroy();
  } finally {
    outgoing.off('close', cancel);
  }
}

async function writeResponse(outgoing: ServerResponse, response: Response, head: boolean): Promise<void> {
  const kept = keptResponse(response);
  if (kept) return writeBytes(outgoing, kept.status, nodeHeaders(kept.headers), kept.body, head);
  const headers = nodeHeaders(response.headers);
  if (head || response.body === null) {
    if (response.body !== null) void response.body.cancel().catch(() => undefined);
    outgoing.writeHead(response.status, headers);
    outgoing.end();
    return;
  }
  outgoing.writeHead(response.status, headers);
  await writeStream(outgoing, response.body);
}

function fail(outgoing: ServerResponse, status: number, message: string): void {
  if (outgoing.headersSent) {
    outgoing.destroy();
    return;
  }
  outgoing.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(message) });
  outgoing.end(message);
}

/**
 * A `node:http` request listener for `fetch`.
 *
 * @example
 * const server = createServer(nodeListener(app.fetch));
 */
export function nodeListener(fetch: FetchHandler): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  return (incoming, outgoing) => {
    const url = requestUrl(incoming);
    if (url === undefined) {
      fail(outgoing, 400, 'Bad Request: the request target or Host header is malformed');
      return;
    }
    const request = lazyRequest(incoming, url);
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) abortLazyRequest(request);
    });
    const head = incoming.method === 'HEAD';
    let answer: Promise<Response>;
    try {
      answer = Promise.resolve(fetch(request, { incoming, outgoing }));
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer
      .then((response) => (outgoing.destroyed ? undefined : writeResponse(outgoing, response, head)))
      .catch(() => {
        if (!outgoing.destroyed) fail(outgoing, 500, 'Internal Server Error');
      });
  };
}
