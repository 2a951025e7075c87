/**
 * `GET /.well-known/webfinger` (RFC 7033) at the server's origin: OpenID Provider Issuer
 * Discovery (OpenID Connect Discovery 1.0 section 2). The resource names a tenant: a URL whose
 * first path segment is a tenant id, or `acct:{local}@{host}` whose local part is a tenant id or
 * the username of a user of a tenant (the first in config order). The answer links the tenant's
 * issuer under the `http://openid.net/specs/connect/1.0/issuer` relation.
 */
import type { Tenant } from '../config/model';
import { jsonResponse } from '../http/errors';
import { decodeComponent } from '../http/params';

/** The WebFinger relation of an OpenID Connect issuer. */
export const ISSUER_REL = 'http://openid.net/specs/connect/1.0/issuer';
const MAX_RESOURCE_LENGTH = 2048;

function refuse(status: 400 | 404, description: string): Response {
  return jsonResponse({ error: status === 400 ? 'invalid_request' : 'not_found', error_description: description }, status, { 'Access-Control-Allow-Origin': '*' });
}

// The tenant a resource names, or undefined.
function tenantOf(resource: string, tenants: readonly Tenant[]): Tenant | undefined {
  if (/^acct:/i.test(resource)) {
    const local = resource.slice(5, resource.lastIndexOf('@'));
    return tenants.find((t) => t.id === local) ?? tenants.find((t) => t.users.has(local));
  }
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return undefined;
  }
  const first = url.pathname.split('/')[1] ?? '';
  return tenants.find((t) => t.id === first);
}

/**
 * Answers a WebFinger query for `tenants` served at `origin`.
 *
 * @example
 * app.get('/.well-known/webfinger', (c) => webFinger(c.req.raw, tenants, origin));
 */
export function webFinger(request: Request, tenants: readonly Tenant[], origin: string): Response {
  const query = new URL(request.url).search.slice(1);
  let resource: string | undefined;
  const rels: string[] = [];
  for (const pair of query === '' ? [] : query.split('&')) {
    const [rawName = '', rawValue = ''] = pair.split('=', 2);
    const name = decodeComponent(rawName);
    const value = decodeComponent(rawValue);
    if (name === undefined || value === undefined) return refuse(400, 'the query is not valid percent-encoding');
    if (name === 'resource') {
      if (resource !== undefined) return refuse(400, 'resource may be sent once');
      resource = value;
    } else if (name === 'rel') rels.push(value);
  }
  if (resource === undefined || resource === '') return refuse(400, 'resource is required (RFC 7033 4.2)');
  if (resource.length > MAX_RESOURCE_LENGTH) return refuse(400, `resource may be at most ${MAX_RESOURCE_LENGTH} characters`);
  const tenant = tenantOf(resource, tenants);
  if (!tenant) return refuse(404, 'no tenant of this server serves that resource');
  const links = rels.length === 0 || rels.includes(ISSUER_REL) ? [{ rel: ISSUER_REL, href: `${origin}/${tenant.id}` }] : [];
  return jsonResponse({ subject: resource, links }, 200, { 'Content-Type': 'application/jrd+json', 'Access-Control-Allow-Origin': '*' });
}
