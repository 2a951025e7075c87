/**
 * Which URL hosts are addresses of a private network: the server POSTs logout tokens to a
 * client's `backchannel_logout_uri`, so a URI on such an address would let a config aim the
 * server at what only it can reach (a cloud metadata service at 169.254.169.254, an internal
 * admin port). Only IP literals are judged: a name is not resolved at config time. Loopback is
 * not counted here; the callers decide about it.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** IPv4 ranges as [first octets, prefix length]: this network, private, shared (CGNAT), link-local, and the rest of 0.0.0.0/8-like specials. */
const V4_RANGES: readonly [readonly number[], number, string][] = [
  [[0], 8, 'an unspecified address'],
  [[10], 8, 'a private address (10.0.0.0/8)'],
  [[100, 64], 10, 'a shared address (100.64.0.0/10)'],
  [[169, 254], 16, 'a link-local address (169.254.0.0/16, where cloud metadata services answer)'],
  [[172, 16], 12, 'a private address (172.16.0.0/12)'],
  [[192, 168], 16, 'a private address (192.168.0.0/16)'],
  [[192, 0, 0], 24, 'a special-purpose address (192.0.0.0/24)'],
];

function v4Problem(address: string): string | undefined {
  const octets = address.split('.').map(Number);
  const value = ((octets[0] ?? 0) << 24) | ((octets[1] ?? 0) << 16) | ((octets[2] ?? 0) << 8) | (octets[3] ?? 0);
  for (const [start, prefix, what] of V4_RANGES) {
    const base = ((start[0] ?? 0) << 24) | ((start[1] ?? 0) << 16) | ((start[2] ?? 0) << 8);
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    if (((value >>> 0) & mask) >>> 0 === ((base >>> 0) & mask) >>> 0) return what;
  }
  return undefined;
}

/** The 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 tail as two groups). */
function v6Groups(address: string): number[] {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

function v6Problem(address: string): string | undefined {
  const groups = v6Groups(address);
  const first = groups[0] ?? 0;
  if (groups.every((g) => g === 0)) return 'an unspecified address';
  // IPv4-mapped (::ffff:a.b.c.d): judged as the IPv4 address it is.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return v4Problem(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if ((first & 0xffc0) === 0xfe80) return 'a link-local address (fe80::/10)';
  if ((first & 0xfe00) === 0xfc00) return 'a unique local address (fc00::/7)';
  if ((first & 0xffc0) === 0xfec0) return 'a site-local address (fec0::/10)';
  return undefined;
}

/**
 * What kind of private-network address a URL hostname is (as `URL` gives it: IPv6 in brackets),
 * or undefined for a public address, a loopback address or a name.
 *
 * @example
 * privateAddressProblem('169.254.169.254'); // 'a link-local address (169.254.0.0/16, ...)'
 * privateAddressProblem('rp.example.com'); // undefined
 */
export function privateAddressProblem(hostname: string): string | undefined {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  // Cheap shape checks first: an IPv4 literal is digits and dots, an IPv6 one has a colon. A name
  // (the usual case) then never reaches node:net's checks, whose first call compiles a large
  // regular expression (milliseconds of every start that validates a backchannel URI).
  if (/^[\d.]+$/.test(host)) return isIPv4(host) ? v4Problem(host) : undefined;
  if (host.includes(':') && isIPv6(host)) return v6Problem(host);
  return undefined;
}
