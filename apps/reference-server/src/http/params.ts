/**
 * Strict parsing of query strings and form bodies. The service's parameters are single
 * valued (RFC 6749 3.1), so duplicates, oversized values and broken encodings are reported
 * per parameter instead of being silently resolved one way or another.
 */

/** Largest accepted parameter value, in UTF-8 bytes. */
export const MAX_PARAM_BYTES = 4096;
/** Largest number of parameters in one request. */
export const MAX_PARAMS = 64;
/** Largest accepted request body, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Parameters of one request: well-formed single values, and what was wrong with the rest. */
export interface Params {
  /** Well-formed parameters; empty values are treated as absent (RFC 6749 3.1). A repeatable one holds its first value. */
  readonly values: ReadonlyMap<string, string>;
  /** Parameter name (or `(request)`) → why it was rejected. */
  readonly invalid: ReadonlyMap<string, string>;
  /** Every value of a {@link REPEATABLE} parameter sent more than once, in order. */
  readonly repeated?: ReadonlyMap<string, readonly string[]>;
}

/** The one parameter the specifications let a request repeat: RFC 8707 `resource`. */
export const REPEATABLE: ReadonlySet<string> = new Set(['resource']);

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();
const NEEDS_DECODING = /[%+\u0080-\uffff]/;

/**
 * Decodes one `application/x-www-form-urlencoded` component (`+` is a space); undefined when
 * the percent-encoding or the UTF-8 it encodes is broken.
 *
 * @example
 * decodeComponent('a%20b+c'); // 'a b c'
 */
export function decodeComponent(raw: string): string | undefined {
  // Plain ASCII without escapes decodes to itself: the common case, without the byte round trip.
  if (!NEEDS_DECODING.test(raw)) return raw;
  const text = raw.replace(/\+/g, ' ');
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x25) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (ch < 0x80) {
      bytes.push(ch);
    } else {
      for (const b of utf8Encoder.encode(text[i] ?? '')) bytes.push(b);
    }
  }
  try {
    return utf8.decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

/** UTF-8 length of a string, exact only when it might exceed the limit (a UTF-16 unit is at most 3 bytes). */
function utf8Length(value: string): number {
  return value.length * 3 <= MAX_PARAM_BYTES ? value.length : utf8Encoder.encode(value).length;
}

/**
 * Parses `application/x-www-form-urlencoded` text (a query string without `?`, or a body).
 *
 * @example
 * const { values, invalid } = parseParams(new URL(request.url).search.slice(1));
 * if (invalid.size) return errorPage(400, `parameter ${[...invalid.keys()][0]} is malformed`);
 */
export function parseParams(input: string): Params {
  const values = new Map<string, string>();
  const invalid = new Map<string, string>();
  const repeated = new Map<string, string[]>();
  const seen = new Set<string>();
  const parts = input === '' ? [] : input.split('&');
  if (parts.length > MAX_PARAMS) {
    invalid.set('(request)', `more than ${MAX_PARAMS} parameters`);
    return { values, invalid };
  }
  for (const part of parts) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq === -1 ? part : part.slice(0, eq));
    const value = decodeComponent(eq === -1 ? '' : part.slice(eq + 1));
    if (name === undefined) {
      invalid.set('(request)', 'a parameter name is not valid percent-encoded UTF-8');
      continue;
    }
    if (seen.has(name) && REPEATABLE.has(name) && value !== undefined && value !== '' && utf8Length(value) <= MAX_PARAM_BYTES && values.has(name)) {
      const all = repeated.get(name) ?? [values.get(name) as string];
      all.push(value);
      repeated.set(name, all);
      continue;
    }
    if (seen.has(name)) {
      values.delete(name);
      repeated.delete(name);
      invalid.set(name, 'is repeated; send each parameter once');
      continue;
    }
    seen.add(name);
    if (value === undefined) invalid.set(name, 'is not valid percent-encoded UTF-8');
    else if (utf8Length(value) > MAX_PARAM_BYTES) invalid.set(name, `is longer than ${MAX_PARAM_BYTES} bytes`);
    else if (value !== '') values.set(name, value);
  }
  return repeated.size > 0 ? { values, invalid, repeated } : { values, invalid };
}

/**
 * The first problem of a parse, as a sentence for an `error_description`.
 *
 * @example
 * const problem = describeInvalid(params); // "parameter state is repeated; send each parameter once"
 */
export function describeInvalid(params: Params): string | undefined {
  const first = params.invalid.entries().next();
  if (first.done) return undefined;
  const [name, reason] = first.value;
  if (name === '(request)') return `the request has ${reason}`;
  // Names come from the attacker: echo only short printable ones (descriptions reach headers and pages).
  return /^[\x21-\x7e]{1,64}$/.test(name) ? `parameter ${name} ${reason}` : `a parameter ${reason}`;
}

/**
 * Why a body could not be read. Answered as 400 `invalid_request`: RFC 6749 5.2 allows only
 * 400 and 401 from the token endpoint, and the other endpoints keep the same shape.
 */
export class BodyError extends Error {
  constructor(
    message: string,
    /** True when the body was refused for its size (413 where an endpoint distinguishes it). */
    readonly tooLarge = false,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

/** Form bodies already read, by request: the request journal records them without reading twice. */
const readForms = new WeakMap<Request, Params>();

/**
 * Where a request object made by this server (the listener's lazy request) keeps its read form
 * itself: no WeakMap entry per request for the GC to trace. Other requests use the WeakMap.
 */
export const READ_FORM: unique symbol = Symbol('read form');

interface FormHolder {
  [READ_FORM]: Params | undefined;
}

const holdsForm = (request: Request): request is Request & FormHolder => READ_FORM in request;

/**
 * The form body a handler has already read from `request` with {@link readFormBody}, if any.
 *
 * @example
 * const form = formBodyRead(request)?.values; // after the handler ran
 */
export function formBodyRead(request: Request): Params | undefined {
  return holdsForm(request) ? request[READ_FORM] : readForms.get(request);
}

/**
 * Reads a form-encoded POST body with a size cap, checking the content type and UTF-8.
 * Throws {@link BodyError} for anything malformed.
 *
 * @example
 * const params = await readFormBody(request);
 */
export async function readFormBody(request: Request): Promise<Params> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new BodyError('the body must be sent as application/x-www-form-urlencoded');
  }
  const bytes = await readLimited(request, MAX_BODY_BYTES);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new BodyError('the body is not valid UTF-8');
  }
  const params = parseParams(text);
  if (holdsForm(request)) request[READ_FORM] = params;
  else readForms.set(request, params);
  return params;
}

const tooLarge = (limit: number): BodyError => new BodyError(`the body is larger than ${limit} bytes`, true);

/**
 * The body, at most `limit` bytes. A body of declared length is read in one go (HTTP framing
 * holds it to that length; the size is checked again for hand-built requests); one without
 * (chunked) is streamed and cut off as soon as it passes the limit. Throws {@link BodyError}.
 *
 * @example
 * const bytes = await readLimited(request, MAX_BODY_BYTES);
 */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared)) {
    if (Number(declared) > limit) throw tooLarge(limit);
    // A listener's request (node-request.ts) hands over the bytes it read as they arrived, without a
    // web stream or a copy; a web Request without bytes() (Node 20) reads into an ArrayBuffer.
    const read = typeof request.bytes === 'function' ? request.bytes() : request.arrayBuffer().then((buffer) => new Uint8Array(buffer));
    const bytes = await read.catch(() => {
      throw new BodyError('the body could not be read');
    });
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
  return readStreamLimited(request, limit);
}

/**
 * A streamed body (a request's, or an answer this server fetched), cut off as soon as it passes
 * `limit` bytes: the rest is never received. Throws {@link BodyError}.
 *
 * @example
 * const bytes = await readStreamLimited(response, 64 * 1024);
 */
export async function readStreamLimited(request: Pick<Request, 'body'>, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        // Not awaited: cancelling one branch of a tee'd body (a caller kept a clone) only settles once the other is cancelled too.
        void reader.cancel().catch(() => undefined);
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof BodyError) throw error;
    throw new BodyError('the body could not be read');
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * Reads a form body and also refuses repeated, oversized or badly encoded parameters, all as
 * {@link BodyError}. For endpoints that answer any malformed request the same way.
 *
 * @example
 * const form = await readStrictForm(request); // form.get('grant_type')
 */
export async function readStrictForm(request: Request): Promise<ReadonlyMap<string, string>> {
  const params = await readFormBody(request);
  const problem = describeInvalid(params);
  if (problem) throw new BodyError(problem);
  return params.values;
}

/**
 * The query string of a request URL, parsed strictly.
 *
 * @example
 * const params = queryParams(request);
 */
export function queryParams(request: Request): Params {
  const url = request.url;
  const q = url.indexOf('?');
  if (q === -1) return parseParams('');
  const hash = url.indexOf('#', q);
  return parseParams(url.slice(q + 1, hash === -1 ? undefined : hash));
}
