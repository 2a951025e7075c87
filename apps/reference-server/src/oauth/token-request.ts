/**
 * What both token endpoints share: reading the strict form, requiring `grant_type` and other
 * parameters, and answering every OAuthError as RFC 6749 5.2 JSON.
 */
import { OAuthError, asInvalidRequest, errorResponse } from '../http/errors';
import { readStrictForm } from '../http/params';
import type { RequestContext } from '../request/context';

/** A token request's form: each parameter once. */
export type Form = ReadonlyMap<string, string>;

/**
 * The `invalid_grant` error (RFC 6749 5.2) with `description`.
 *
 * @example
 * throw invalidGrant('the authorization code has expired');
 */
export function invalidGrant(description: string): OAuthError {
  return new OAuthError('invalid_grant', description);
}

/**
 * Reads the form, runs the grant, and turns every OAuthError into its JSON response.
 *
 * @example
 * return tokenEndpoint(ctx, async (form, grantType) => tokenResponse(ctx, client, body));
 */
export async function tokenEndpoint(ctx: RequestContext, run: (form: Form, grantType: string) => Promise<Response>): Promise<Response> {
  try {
    const form = await readStrictForm(ctx.request).catch(asInvalidRequest);
    const grantType = form.get('grant_type');
    if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
    return await run(form, grantType);
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error, ctx.corsHeaders);
    throw error;
  }
}

/**
 * A parameter the grant needs; `invalid_request` naming it when absent.
 *
 * @example
 * const code = required(form, 'code');
 */
export function required(form: Form, name: string): string {
  const value = form.get(name);
  if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}
