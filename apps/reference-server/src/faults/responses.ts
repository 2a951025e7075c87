/**
 * Faults of what the server sends besides ID tokens: the redirect back to the client, token
 * responses, the discovery document and userinfo. Only requests of clients configured with a
 * fault get here; the healthy responses are built in oauth/ and endpoints/.
 */
import type { Fault } from '../config/fault-names';
import { randomToken } from '../crypto/secrets';
import { jsonResponse, NO_STORE } from '../http/errors';
import type { RequestContext } from '../request/context';

/**
 * An issuer that is not this tenant's, on the same origin.
 *
 * @example
 * claims.iss = impostorIssuer(ctx); // `${origin}/impostor-of-demo`
 */
export function impostorIssuer(ctx: RequestContext): string {
  return `${new URL(ctx.issuer).origin}/impostor-of-${ctx.tenant.id}`;
}

/**
 * The parameters of an authorization response (success or error), with `state` and `iss`
 * removed or replaced as the client's faults say.
 *
 * @example
 * const sent = faults ? faultyRedirectParams(ctx, faults, params) : params;
 */
export function faultyRedirectParams(ctx: RequestContext, faults: ReadonlySet<Fault>, params: Record<string, string>): Record<string, string> {
  const out = { ...params };
  if (faults.has('redirect_missing_state')) delete out.state;
  if (faults.has('redirect_wrong_state')) out.state = randomToken(16);
  if (faults.has('redirect_missing_iss')) delete out.iss;
  if (faults.has('redirect_wrong_iss')) out.iss = impostorIssuer(ctx);
  return out;
}

/**
 * A successful token response as the client's faults make it: an HTML page, no
 * `access_token`, another `token_type` (`Bearer` for a DPoP one: a downgrade), or no `id_token`.
 *
 * @example
 * if (client.faults.size > 0) return faultyTokenResponse(ctx, client.faults, body);
 */
export function faultyTokenResponse(ctx: RequestContext, faults: ReadonlySet<Fault>, body: Record<string, string | number>): Response {
  if (faults.has('token_response_not_json')) {
    return new Response('<!doctype html><title>Signed in</title><p>Welcome back.</p>', {
      status: 200,
      headers: { ...ctx.corsHeaders, 'Content-Type': 'text/html; charset=utf-8', ...NO_STORE },
    });
  }
  const out = { ...body };
  if (faults.has('token_response_missing_access_token')) delete out.access_token;
  if (faults.has('token_response_token_type_lowercase') && out.token_type !== undefined) out.token_type = 'bearer';
  if (faults.has('token_response_unknown_token_type') && out.token_type !== undefined) out.token_type = 'mac';
  // RFC 6749 5.1: case-insensitive, so `dpOp` / `bEARER` is accepted (the FAPI 2.0 case-insensitivity test).
  if (faults.has('token_response_token_type_inverted_case') && typeof out.token_type === 'string') out.token_type = invertCase(out.token_type);
  if (faults.has('id_token_missing')) delete out.id_token;
  // Counted only on DPoP responses, the ones it bends.
  if (out.token_type === 'DPoP' && faults.has('token_response_token_type_bearer')) out.token_type = 'Bearer';
  return jsonResponse(out, 200, ctx.corsHeaders);
}

/** Every letter in the other case: `DPoP` → `dpOp`. */
function invertCase(value: string): string {
  return [...value].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

/**
 * The issuer the discovery document names. Discovery requests do not say which client asks,
 * so `discovery_issuer_mismatch` on any client changes the document of its whole tenant.
 *
 * @example
 * const issuer = ctx.tenant.hasFaults ? discoveryIssuer(ctx) : ctx.issuer;
 */
export function discoveryIssuer(ctx: RequestContext): string {
  for (const client of ctx.tenant.clients.values()) {
    if (client.faults.has('discovery_issuer_mismatch')) return impostorIssuer(ctx);
  }
  return ctx.issuer;
}

/**
 * The userinfo claims for a client with faults; `userinfo_wrong_sub` names another subject.
 *
 * @example
 * const body = faults ? faultyUserinfoClaims(faults, claims) : claims;
 */
export function faultyUserinfoClaims(faults: ReadonlySet<Fault>, claims: Record<string, unknown>): Record<string, unknown> {
  if (!faults.has('userinfo_wrong_sub')) return claims;
  return { ...claims, sub: `${String(claims.sub)}-impostor` };
}
