/**
 * The HTTP control API under `/_control/` (a path no tenant can have: tenant ids start with a
 * letter or digit): the control methods as JSON routes, for the command line and containers.
 * Off unless turned on; see access.ts for who may call it (every call carries `X-Control-Request`).
 * Bodies are JSON (415 otherwise), at most MAX_BODY_BYTES however they are framed (413 beyond);
 * bad input is a 4xx `{ error, error_description, code, field }`.
 */
import { jsonResponse } from '../http/errors';
import { BodyError, MAX_BODY_BYTES, queryParams, readLimited } from '../http/params';
import { type ControlApiSettings, controlAccess } from './access';
import type { ServerControl } from './control';
import { ControlError } from './errors';
import { onlyKeys, record } from './input';

/**
 * The path prefix of the control API.
 *
 * @example
 * fetch(`${origin}${CONTROL_PREFIX}/users`);
 */
export const CONTROL_PREFIX = '/_control';

type Query = ReadonlyMap<string, string>;
type Run = (control: ServerControl, input: { id: string; query: Query; body: () => Promise<Record<string, unknown>> }) => Promise<[number, unknown]>;

/** The `tenant` query parameter as the control methods' option. */
function tenant(query: Query): { tenant?: string } {
  const name = query.get('tenant');
  return name === undefined ? {} : { tenant: name };
}

/** The query as a journal match: `status` as a number, the rest as strings. */
function match(query: Query): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of query) out[key] = key === 'status' && /^\d{3}$/.test(value) ? Number(value) : value;
  return out;
}

function without<T extends Record<string, unknown>>(body: T, ...keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (const key of keys) delete out[key];
  return out;
}

/** Route key `METHOD /area[/:id][/action]` → what it runs. */
const ROUTES: Readonly<Record<string, Run>> = {
  'GET /users': async (c, { query }) => [200, await c.users.list(tenant(query))],
  'POST /users': async (c, { query, body }) => [201, await c.users.add((await body()) as never, tenant(query))],
  'PATCH /users/:id': async (c, { id, query, body }) => [200, await c.users.update(id, await body(), tenant(query))],
  'DELETE /users/:id': async (c, { id, query }) => [204, await c.users.remove(id, tenant(query))],
  'GET /clients': async (c, { query }) => [200, await c.clients.list(tenant(query))],
  'POST /clients': async (c, { query, body }) => [201, await c.clients.add((await body()) as never, tenant(query))],
  'PATCH /clients/:id': async (c, { id, query, body }) => [200, await c.clients.update(id, await body(), tenant(query))],
  'DELETE /clients/:id': async (c, { id, query }) => [204, await c.clients.remove(id, tenant(query))],
  'GET /faults': async (c, { query }) => [200, await c.faults.list(tenant(query))],
  'PUT /faults/:id': async (c, { id, query, body }) => {
    const input = await body();
    onlyKeys(input, '', ['fault', 'times']);
    const { fault, times } = input;
    await c.faults.set(id, fault as never, { ...tenant(query), ...(times !== undefined ? { times: times as number } : {}) });
    return [200, await c.faults.list(tenant(query))];
  },
  'DELETE /faults/:id': async (c, { id, query }) => {
    const fault = query.get('fault');
    return [204, await c.faults.clear(id, { ...tenant(query), ...(fault !== undefined ? { fault: fault as never } : {}) })];
  },
  'DELETE /faults': async (c, { query }) => [204, await c.faults.clear(undefined, tenant(query))],
  'GET /transport': async (c, { query }) => [200, await c.transport.list(tenant(query))],
  'POST /transport': async (c, { query, body }) => {
    const input = await body();
    const times = input.times;
    await c.transport.set(input.endpoint as string, without(input, 'endpoint', 'times'), { ...tenant(query), ...(times !== undefined ? { times: times as number } : {}) });
    return [200, await c.transport.list(tenant(query))];
  },
  'DELETE /transport': async (c, { query }) => [204, await c.transport.clear(query.get('endpoint'), tenant(query))],
  'GET /clock': async (c) => [200, await c.clock.get()],
  'POST /clock/advance': async (c, { body }) => [200, await c.clock.advance((await body()).seconds as number)],
  'PUT /clock': async (c, { body }) => [200, await c.clock.set((await body()).time as string)],
  'DELETE /clock': async (c) => [200, await c.clock.reset()],
  'POST /keys/rotate': async (c, { query }) => [200, await c.keys.rotate(tenant(query))],
  'POST /dpop-nonce/rotate': async (c) => [204, await c.dpop.rotateNonce()],
  'POST /dpop-nonce/expire': async (c) => [204, await c.dpop.expireNonce()],
  'DELETE /sessions/:id': async (c, { id, query }) => [200, await c.sessions.end(id, tenant(query))],
  'GET /requests': async (c, { query }) => [200, await c.requests.list(match(query))],
  'DELETE /requests': async (c) => [204, await c.requests.clear()],
};

function problem(status: number, description: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}): Response {
  return jsonResponse({ error: 'invalid_request', error_description: description, ...extra }, status, headers);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The JSON object body, at most MAX_BODY_BYTES whether its length is declared or chunked; an empty body reads as `{}`. */
async function readJson(request: Request): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = utf8.decode(await readLimited(request, MAX_BODY_BYTES));
  } catch (error) {
    if (error instanceof BodyError) throw error;
    throw new BodyError('the body is not valid UTF-8');
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BodyError('the body is not valid JSON');
  }
  return record(value, 'body');
}

/** Splits `/_control/area[/segment][/action]` into a route key and the id segment. */
function route(method: string, path: string): { key: string; id: string } | undefined {
  const parts = path.slice(CONTROL_PREFIX.length).split('/').slice(1);
  if (parts.length === 0 || parts.length > 2 || parts.some((p) => p === '')) return undefined;
  const [area, second] = parts as [string, string | undefined];
  if (second === undefined) return { key: `${method} /${area}`, id: '' };
  if (`${method} /${area}/${second}` in ROUTES) return { key: `${method} /${area}/${second}`, id: '' };
  let id: string;
  try {
    id = decodeURIComponent(second);
  } catch {
    return undefined;
  }
  return { key: `${method} /${area}/:id`, id };
}

/**
 * Answers a request to the control API, after checking who asks.
 *
 * @example
 * if (path.startsWith('/_control/')) return handleControlRequest(request, control, { enabled: true }, remoteAddress);
 */
export async function handleControlRequest(
  request: Request,
  control: ServerControl,
  settings: ControlApiSettings,
  remoteAddress: string | undefined,
): Promise<Response> {
  const access = controlAccess(settings, { remoteAddress, headers: request.headers });
  if (!access.allowed) {
    return problem(access.status, access.reason, {}, access.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="control"' } : {});
  }
  const path = new URL(request.url).pathname;
  const found = route(request.method, path);
  const run = found && ROUTES[found.key];
  if (!found || !run) {
    const known = Object.keys(ROUTES).some((key) => found && key.endsWith(found.key.slice(found.key.indexOf(' '))));
    return known ? problem(405, 'This control route does not take that method.') : problem(404, 'There is no such control route.');
  }
  const query = queryParams(request);
  if (query.invalid.size > 0) {
    const [name, why] = [...query.invalid][0] as [string, string];
    return problem(400, `${name}: ${why}`, { code: 'invalid_input', field: name });
  }
  const body = async () => {
    const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') throw new ControlError('invalid_input', 'content-type', 'the body must be sent as application/json');
    return readJson(request);
  };
  try {
    const [status, value] = await run(control, { id: found.id, query: query.values, body });
    return status === 204 ? new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } }) : jsonResponse(value ?? {}, status);
  } catch (error) {
    if (error instanceof ControlError) {
      const status = error.field === 'content-type' ? 415 : error.status;
      return problem(status, error.message, { code: error.code, field: error.field });
    }
    if (error instanceof BodyError) return problem(error.tooLarge ? 413 : 400, error.message, { code: 'invalid_input', field: 'body' });
    throw error;
  }
}
