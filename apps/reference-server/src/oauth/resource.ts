/**
 * RFC 8707 resource indicators: a `resource` parameter names the API an access token is for,
 * and becomes the `aud` of JWT access tokens. A client may name only the resources registered
 * for it (its `resources`): any other is `invalid_target` (RFC 8707 2), so a public client
 * cannot mint tokens for an API that never trusted it. An authorize (or PAR) request may name
 * several; each token request names at most one of those, and gets a token for it alone
 * (RFC 8707 2.2).
 */
import type { Client } from '../config/model';
import { OAuthError } from '../http/errors';
import { formBodyRead, type Params } from '../http/params';

const PROBLEM = 'resource must be an absolute URI without a fragment (RFC 8707)';

/**
 * Why a `resource` value is unusable, or undefined when it is fine.
 *
 * @example
 * resourceProblem('/api'); // 'resource must be an absolute URI ...'
 */
export function resourceProblem(value: string): string | undefined {
  return URL.canParse(value) && !value.includes('#') && !/\s/.test(value) ? undefined : PROBLEM;
}

// Resource values come from the request: quoted back only when short and printable.
function quoted(resource: string): string {
  return /^[\x21-\x7e]{1,200}$/.test(resource) ? `"${resource}"` : 'the requested resource';
}

/**
 * Every `resource` of a parsed query or form, in order (RFC 8707 allows repeating it).
 *
 * @example
 * requestedResources(queryParams(request)); // ['https://api.example/', 'https://files.example/']
 */
export function requestedResources(params: Params): string[] {
  const all = params.repeated?.get('resource');
  if (all) return [...new Set(all)];
  const one = params.values.get('resource');
  return one === undefined ? [] : [one];
}

/**
 * The refusal of a request naming `resources` for `client`, or undefined when each is a valid
 * URI registered for the client.
 *
 * @example
 * const refusal = resourcesRefusal(['https://other.example/'], client); // OAuthError invalid_target
 */
export function resourcesRefusal(resources: readonly string[], client: Client): OAuthError | undefined {
  for (const resource of resources) {
    const problem = resourceProblem(resource);
    if (problem) return new OAuthError('invalid_target', problem);
    if (!client.resources.includes(resource)) {
      return new OAuthError(
        'invalid_target',
        `resource ${quoted(resource)} is not registered for client ${client.client_id}: add it to the client's "resources" (RFC 8707 2)`,
      );
    }
  }
  return undefined;
}

/**
 * The resources a grant record was authorized for; records written before grants kept a list
 * carry one `resource`.
 *
 * @example
 * const granted = grantedResources(record); // ['https://api.example/']
 */
export function grantedResources(record: { resources?: string[]; resource?: string }): string[] {
  return record.resources ?? (record.resource !== undefined ? [record.resource] : []);
}

/**
 * The resources a token request's access token is for: the one it names, which must be one of the
 * grant's (for a grant without resources: one registered for the client), else all the grant's.
 * More than one `resource` in a token request is `invalid_target`: a token is for one API at a
 * time. A resource since removed from the client's registration is refused too.
 *
 * @example
 * const resources = tokenResources(ctx.request, form, grantedResources(record), client);
 */
export function tokenResources(request: Request, form: ReadonlyMap<string, string>, granted: readonly string[], client: Client): string[] {
  if (formBodyRead(request)?.repeated?.has('resource')) {
    throw new OAuthError('invalid_target', 'a token request names at most one resource: ask for a token per resource (RFC 8707 2.2)');
  }
  const requested = form.get('resource');
  if (requested !== undefined && granted.length > 0 && !granted.includes(requested)) {
    const problem = resourceProblem(requested);
    throw new OAuthError('invalid_target', problem ?? `resource ${quoted(requested)} is not one the grant was authorized for; log in again asking for it`);
  }
  const resources = requested === undefined ? [...granted] : [requested];
  const refusal = resourcesRefusal(resources, client);
  if (refusal) throw refusal;
  return resources;
}
