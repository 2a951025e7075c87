/**
 * Where the server is, as its users reach it: the origin of every issuer and absolute URL,
 * whether that origin is https (for `Secure` / `__Host-` cookies), and the client's address.
 *
 * A configured public origin wins and the `Host` header is never consulted. Without one, the
 * request's host is used only when it is a loopback host or a configured trusted host, so a
 * forged `Host: evil.example` cannot change the issuer, discovery or any redirect. Proxy
 * headers (`X-Forwarded-Proto`, `-Host`, `-For`) are read only when the deployer says a
 * proxy in front of the server sets them.
 */

/** The deployer's settings (config `public_origin`, `trusted_hosts`, `trust_proxy`). */
export interface OriginPolicy {
  /** `https://login.example.com`: the only origin the server answers as. */
  publicOrigin?: string;
  /** Hosts (`name` or `name:port`) accepted from the request besides loopback ones. */
  trustedHosts: ReadonlySet<string>;
  /** A proxy in front sets `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-For`. */
  trustProxy: boolean;
}

/** The origin a request is served as, or why it is refused. */
export type RequestOrigin = { origin: string; secure: boolean; clientAddress: string | undefined } | { problem: string };

/**
 * Whether `hostname` (as `URL.hostname` spells it) is this machine: `localhost`, a
 * `*.localhost` name, 127.0.0.0/8 or `[::1]`.
 *
 * @example
 * isLoopbackHost('127.0.0.1'); // true
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The right-most value of a comma-separated proxy header: the one our own proxy wrote. */
function lastValue(header: string | null): string | undefined {
  if (header === null) return undefined;
  const value = header.split(',').pop()?.trim();
  return value === '' ? undefined : value;
}

/**
 * The origin, https-ness and client address of a request under `policy`; `socketAddress`
 * is the peer of the TCP connection (undefined in-process).
 *
 * @example
 * const where = requestOrigin(policy, request, '127.0.0.1');
 * if ('problem' in where) return errorPage(400, where.problem);
 */
export function requestOrigin(policy: OriginPolicy, request: Request, socketAddress: string | undefined): RequestOrigin {
  const forwardedFor = policy.trustProxy ? lastValue(request.headers.get('x-forwarded-for')) : undefined;
  const clientAddress = forwardedFor ?? socketAddress;
  if (policy.publicOrigin !== undefined) {
    return { origin: policy.publicOrigin, secure: policy.publicOrigin.startsWith('https:'), clientAddress };
  }
  const forwardedProto = policy.trustProxy ? lastValue(request.headers.get('x-forwarded-proto'))?.toLowerCase() : undefined;
  const forwardedHost = policy.trustProxy ? lastValue(request.headers.get('x-forwarded-host')) : undefined;
  // The answer depends only on the policy, the URL's scheme and authority and the proxy headers:
  // kept per policy (a few entries), it spares two URL parses on every request.
  const authorityEnd = request.url.indexOf('/', request.url.indexOf('://') + 3);
  const key = `${forwardedProto ?? ''} ${forwardedHost ?? ''} ${authorityEnd === -1 ? request.url : request.url.slice(0, authorityEnd)}`;
  let known = checked.get(policy);
  if (!known) {
    known = new Map();
    checked.set(policy, known);
  }
  let where = known.get(key);
  if (!where) {
    where = servedOrigin(policy, request.url, forwardedProto, forwardedHost);
    if (known.size >= MAX_CHECKED) known.clear();
    known.set(key, where);
  }
  return 'problem' in where ? { problem: where.problem } : { origin: where.origin, secure: where.secure, clientAddress };
}

const MAX_CHECKED = 64;
const checked = new WeakMap<OriginPolicy, Map<string, { origin: string; secure: boolean } | { problem: string }>>();

function servedOrigin(policy: OriginPolicy, requestUrl: string, forwardedProto: string | undefined, forwardedHost: string | undefined): { origin: string; secure: boolean } | { problem: string } {
  const url = new URL(requestUrl);
  const protocol = forwardedProto === 'https' || forwardedProto === 'http' ? `${forwardedProto}:` : url.protocol;
  const host = (forwardedHost ?? url.host).toLowerCase();
  let parsed: URL;
  try {
    parsed = new URL(`${protocol}//${host}`);
  } catch {
    return { problem: 'The Host header is not a valid host name.' };
  }
  // Anything a URL would rewrite (a path, credentials, odd characters) is not a plain host.
  if (parsed.host !== host || parsed.pathname !== '/') return { problem: 'The Host header is not a valid host name.' };
  const trusted = isLoopbackHost(parsed.hostname) || policy.trustedHosts.has(parsed.host) || policy.trustedHosts.has(parsed.hostname);
  if (!trusted) {
    return {
      problem: `This server does not answer for the host ${parsed.host}; its operator sets "public_origin" or lists the host in "trusted_hosts".`,
    };
  }
  return { origin: parsed.origin, secure: parsed.protocol === 'https:' };
}

/**
 * Whether a form post comes from another origin than `origin` (the server's). A browser's
 * `Sec-Fetch-Site` decides when present: `cross-site` and `same-site` are refused (a sibling
 * origin can plant cookies for the site, so same-site is not enough for the login forms).
 * Without it, an `Origin` other than the server's is refused; `Origin: null` is not, because
 * browsers send it for every post from a page with `Referrer-Policy: no-referrer`, as ours are.
 *
 * @example
 * if (isCrossOriginPost(ctx.request, new URL(ctx.issuer).origin)) return errorPage(403, '...');
 */
export function isCrossOriginPost(request: Request, origin: string): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site !== 'same-origin' && site !== 'none';
  const from = request.headers.get('origin');
  return from !== null && from !== 'null' && from !== origin;
}
