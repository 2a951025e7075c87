/**
 * A Node request as the `Request` the app reads, without building one: method, url and headers
 * are plain values, and the web `Request` (Node's bundled undici, some 70 ms of CPU to load) is
 * made only when a handler reads what only it has (the body as a stream, `formData()`, the
 * signal, ...). Most answers of a sign-in never need it.
 */
import type { IncomingMessage } from 'node:http';
import { BodyBuffer } from './body-buffer';
import { MAX_BODY_BYTES, type Params, READ_FORM } from './params';

/** A request's headers, read-only, as the subset of `Headers` the app and Hono read. */
export class NodeHeaders {
  readonly #map = new Map<string, string>();

  /** Repeated fields are joined with ", ", as `Headers` does. */
  constructor(rawHeaders: readonly string[]) {
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = (rawHeaders[i] as string).toLowerCase();
      const value = (rawHeaders[i + 1] as string).trim();
      const seen = this.#map.get(name);
      this.#map.set(name, seen === undefined ? value : `${seen}, ${value}`);
    }
  }

  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [];
  }

  forEach(callback: (value: string, name: string, headers: NodeHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    yield* [...this.#map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** What a request is made of, before the web `Request` exists. */
interface Parts {
  method: string;
  url: string;
  headers: NodeHeaders;
  /** The body as it arrives (body-buffer.ts); none for GET and HEAD. */
  body?: BodyBuffer;
  real?: Request;
  abort?: AbortController;
  bodyUsed: boolean;
}

/** The web `Request`, made once, with the Node request's body stream and an abort signal. */
function realOf(request: LazyRequest): Request {
  const p = LazyRequest.partsOf(request);
  if (!p.real) {
    p.abort = new AbortController();
    p.real = new Request(p.url, {
      method: p.method,
      headers: [...p.headers.entries()],
      signal: p.abort.signal,
      ...(p.body ? { body: p.bodyUsed ? new ReadableStream() : p.body.stream(), duplex: 'half' } : {}),
    } as RequestInit);
  }
  return p.real;
}

/** The whole body, without a web stream (when nothing made the `Request` yet). */
async function readIncoming(request: LazyRequest): Promise<Uint8Array> {
  const p = LazyRequest.partsOf(request);
  if (p.real) return new Uint8Array(await p.real.arrayBuffer());
  if (p.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
  p.bodyUsed = true;
  return p.body ? p.body.whole() : new Uint8Array();
}

const utf8 = new TextDecoder();

class LazyRequest {
  // A private field rather than a WeakMap beside the object: no weak-table entry to add and for the GC to trace per request.
  readonly #p: Parts;
  /** The form body once read (params.ts `formBodyRead`). */
  [READ_FORM]: Params | undefined = undefined;

  constructor(p: Parts) {
    this.#p = p;
  }

  static partsOf(request: LazyRequest): Parts {
    return request.#p;
  }

  static isLazy(value: object): value is LazyRequest {
    return #p in value;
  }

  get method(): string {
    return this.#p.method;
  }
  get url(): string {
    return this.#p.url;
  }
  get headers(): NodeHeaders {
    return this.#p.headers;
  }
  get bodyUsed(): boolean {
    const p = this.#p;
    return p.real ? p.real.bodyUsed : p.bodyUsed;
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await readIncoming(this);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
  /** The bytes as read (the body's own buffer, not a copy: nothing else holds it). */
  async bytes(): Promise<Uint8Array> {
    return readIncoming(this);
  }
  async text(): Promise<string> {
    return utf8.decode(await readIncoming(this));
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  get [Symbol.toStringTag](): string {
    return 'Request';
  }
}

// Everything else a `Request` has comes from the real one, made on first use.
for (const name of ['body', 'cache', 'credentials', 'destination', 'duplex', 'integrity', 'keepalive', 'mode', 'redirect', 'referrer', 'referrerPolicy', 'signal']) {
  Object.defineProperty(LazyRequest.prototype, name, {
    get(this: LazyRequest) {
      return (realOf(this) as unknown as Record<string, unknown>)[name];
    },
  });
}
for (const name of ['blob', 'formData', 'clone']) {
  Object.defineProperty(LazyRequest.prototype, name, {
    value(this: LazyRequest, ...args: unknown[]) {
      const real = realOf(this) as unknown as Record<string, (...a: unknown[]) => unknown>;
      return (real[name] as (...a: unknown[]) => unknown).apply(real, args);
    },
  });
}

/**
 * `incoming` as a `Request` for `app.fetch`, made lazily (see the module comment).
 *
 * @example
 * @example
 * const request = lazyRequest(incoming, 'http://127.0.0.1:4000/demo/jwks');
 */
export function lazyRequest(incoming: IncomingMessage, url: string): Request {
  const method = incoming.method ?? 'GET';
  // Read from now on, not when a handler asks: a client may send its whole body and go away (body-buffer.ts).
  const body = method === 'GET' || method === 'HEAD' ? undefined : new BodyBuffer(incoming, MAX_BODY_BYTES);
  const request = new LazyRequest({ method, url, headers: new NodeHeaders(incoming.rawHeaders), bodyUsed: false, ...(body ? { body } : {}) });
  return request as unknown as Request;
}

/**
 * Aborts the signal of the `Request` made for `request`, if one was made (the client went away).
 *
 * @example
 * outgoing.on('close', () => abortLazyRequest(request));
 */
export function abortLazyRequest(request: Request): void {
  if (LazyRequest.isLazy(request)) LazyRequest.partsOf(request).abort?.abort(new DOMException('the client closed the connection', 'AbortError'));
}
