/**
 * RFC 8707 resource indicators: a `resource` parameter names the API an access token is for,
 * and becomes the `aud` of JWT access tokens. One per request (parameters are never repeated).
 */
import { OAuthError } from '../http/errors';

const PROBLEM = 'resource must be an absolute URI without a fragment (RFC 8707)';

/**
 * Why a `resource` value is unusable, or undefined when it is fine.
 *
 * @example
 * resourceProblem('/api'); // 'resource must be an absolute URI ...'
 */
export function resourceProblem(value: string): string | undefined {
  return URL.canParse(value) && !value.includes('#') ? undefined : PROBLEM;
}

/**
 * The `resource` parameter, checked: an absolute URI without a fragment (RFC 8707 2), else
 * `invalid_target`. Undefined when absent.
 *
 * @example
 * const resource = readResource(form.get('resource'));
 */
export function readResource(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = resourceProblem(value);
  if (problem) throw new OAuthError('invalid_target', problem);
  return value;
}

/**
 * The resource of a token request for a grant that may already carry one: the grant's, unless the
 * request names it again; another resource than the grant's is `invalid_target`.
 *
 * @example
 * const resource = grantResource(form.get('resource'), record.resource);
 */
export function grantResource(requested: string | undefined, granted: string | undefined): string | undefined {
  const resource = readResource(requested);
  if (resource === undefined) return granted;
  if (granted !== undefined && resource !== granted) {
    throw new OAuthError('invalid_target', 'resource differs from the one the grant was authorized for');
  }
  return resource;
}
