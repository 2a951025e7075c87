/**
 * Who may use the HTTP control API. Off unless turned on (then 404, like any unknown path).
 * With a secret: only requests bearing it (401 otherwise), from anywhere. Without one: only
 * requests from a loopback address that also name a loopback host (a DNS-rebinding page names
 * its own), that name neither the public origin's host nor carry any forwarding header (a
 * reverse proxy on the same host connects from loopback too, but relays the world), and come
 * from no other site's page (`Origin`, else `Sec-Fetch-Site`); anything else is 403.
 * Requests without a socket (in-process `fetch`) have no address and need the secret: code in
 * the same process has `server.control` itself.
 *
 * Every call, in both modes, carries {@link CONTROL_REQUEST_HEADER}: a custom header makes the
 * request non-simple, so a browser page on another origin (even a loopback one) needs a
 * preflight, which this API never grants.
 */
import { safeEqual } from '../crypto/secrets';

/**
 * The header every control call carries (any non-empty value; the clients send `1`).
 *
 * @example
 * fetch(`${origin}/_control/keys/rotate`, { method: 'POST', headers: { [CONTROL_REQUEST_HEADER]: '1' } });
 */
export const CONTROL_REQUEST_HEADER = 'X-Control-Request';

/** Headers a proxy adds: a request carrying one was relayed, whatever its peer address. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-forwarded-server', 'x-real-ip', 'via'];

/** The HTTP control API's setting: off, on for loopback, or on for holders of a bearer secret. */
export interface ControlApiSettings {
  enabled: boolean;
  secret?: string;
  /** The configured public origin's host (`login.example.com`): a request naming it came from outside. */
  publicHost?: string;
}

/** What the decision looks at. */
export interface ControlRequestFacts {
  /** The peer's IP address; undefined when the request came without a socket. */
  remoteAddress: string | undefined;
  headers: Headers;
}

/** The decision: go ahead, or the status to answer with and why. */
export type ControlAccess = { allowed: true } | { allowed: false; status: 401 | 403 | 404; reason: string };

/**
 * Whether `address` is a loopback address (127.0.0.0/8, ::1, or either mapped into IPv6).
 *
 * @example
 * isLoopbackAddress('::ffff:127.0.0.1'); // true
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** Whether a Host header (or an origin's host) names this machine's loopback. */
function isLoopbackHost(host: string): boolean {
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** No other site's page sent it: its Origin, if any, is a loopback one; without, it is not a cross-site navigation. */
function fromLoopbackSite(headers: Headers): boolean {
  const origin = headers.get('origin');
  if (origin === null) return headers.get('sec-fetch-site') !== 'cross-site';
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.host);
  } catch {
    return false;
  }
}

/**
 * Decides whether a control API request may proceed.
 *
 * @example
 * const access = controlAccess({ enabled: true }, { remoteAddress: '127.0.0.1', headers: request.headers });
 * if (!access.allowed) return new Response(null, { status: access.status });
 */
export function controlAccess(settings: ControlApiSettings, request: ControlRequestFacts): ControlAccess {
  if (!settings.enabled) {
    // The same 404 as any unknown path, with the way to turn it on: the one reader is a developer.
    return {
      allowed: false,
      status: 404,
      reason: 'The control API is off on this server: start it with --control (or createReferenceServer(config, { controlApi: true })) to use /_control/.',
    };
  }
  if (settings.secret !== undefined) {
    const header = request.headers.get('authorization') ?? '';
    const presented = /^bearer /i.test(header) ? header.slice(7).trim() : '';
    if (presented === '' || !safeEqual(presented, settings.secret)) {
      return { allowed: false, status: 401, reason: 'The control API needs its secret as a bearer token: Authorization: Bearer <secret>.' };
    }
    return nonSimple(request.headers);
  }
  if (!isLoopbackAddress(request.remoteAddress)) {
    return { allowed: false, status: 403, reason: 'Without a secret the control API answers loopback only; start the server with a control secret to reach it from elsewhere.' };
  }
  if (FORWARDING_HEADERS.some((name) => request.headers.has(name))) {
    return { allowed: false, status: 403, reason: 'Without a secret the control API answers direct loopback calls only, and this one came through a proxy; set a control secret to reach it from elsewhere.' };
  }
  const host = (request.headers.get('host') ?? '').toLowerCase();
  if (settings.publicHost !== undefined && host === settings.publicHost.toLowerCase()) {
    return { allowed: false, status: 403, reason: 'Without a secret the control API answers direct loopback calls only, and this one names the public origin; set a control secret to reach it from elsewhere.' };
  }
  if (!isLoopbackHost(host) || !fromLoopbackSite(request.headers)) {
    return { allowed: false, status: 403, reason: 'The control API answers requests to a loopback host from no other site only.' };
  }
  return nonSimple(request.headers);
}

/** The last check of both modes: the request carries the custom header (so it was preflighted, or sent by no browser). */
function nonSimple(headers: Headers): ControlAccess {
  if (headers.get(CONTROL_REQUEST_HEADER)) return { allowed: true };
  return { allowed: false, status: 403, reason: `Every control call carries the header ${CONTROL_REQUEST_HEADER}: 1 (so that no web page can send one without a CORS preflight).` };
}
