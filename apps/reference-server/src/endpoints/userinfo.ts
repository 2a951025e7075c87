/**
 * `GET|POST /oidc/userinfo` (OIDC Core 5.3) with RFC 6750 bearer tokens (the Authorization
 * header, or for POST the `access_token` form field) and RFC 9449 DPoP-bound tokens
 * (`Authorization: DPoP` with a proof). Failures carry `WWW-Authenticate`.
 */
import { clientFaults } from '../config/model';
import { withClaimSources } from '../faults/claims';
import { faultyProofRefusal, oddCaseNonceChallenge } from '../faults/dpop';
import { faultyUserinfoClaims } from '../faults/responses';
import { SignJWT } from 'jose';
import { NO_STORE, OAuthError, errorResponse, jsonResponse } from '../http/errors';
import { faultySignedUserinfo } from '../faults/request-object';
import { BodyError, queryParams, readStrictForm } from '../http/params';
import { releasedClaims } from '../oauth/claims';
import { findLiveAccessToken } from '../oauth/issue';
import { checkProof, DPOP_ALGORITHMS, demandedNonces, dpopHeader, nonceHeader } from '../oauth/dpop';
import type { RequestContext } from '../request/context';
import type { AccessTokenRecord } from '../store/store';

/** RFC 6750 3: error_description is limited to printable ASCII without `"` and `\`. */
function quotable(description: string): string {
  return description.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}

function bearerError(ctx: RequestContext, error: string, description: string, status: 400 | 401 | 403): OAuthError {
  const challenge = `Bearer realm="${ctx.tenant.id}", error="${error}", error_description="${quotable(description)}"`;
  return new OAuthError(error, description, status, { 'WWW-Authenticate': challenge });
}

/** An error with the RFC 9449 7.1 `DPoP` challenge, naming the accepted proof algorithms. */
function dpopError(ctx: RequestContext, error: string, description: string, headers: Record<string, string> = {}): OAuthError {
  const challenge = `DPoP realm="${ctx.tenant.id}", error="${error}", error_description="${quotable(description)}", algs="${DPOP_ALGORITHMS.join(' ')}"`;
  return new OAuthError(error, description, 401, { ...headers, 'WWW-Authenticate': challenge });
}

/** The access token and how it was presented: `DPoP` (with a proof) or as a bearer token. */
interface Presented {
  token: string;
  scheme: 'Bearer' | 'DPoP';
}

async function presentedToken(ctx: RequestContext): Promise<Presented> {
  const header = ctx.request.headers.get('authorization');
  let fromBody: string | undefined;
  if (ctx.request.method === 'POST' && ctx.request.headers.get('content-type') !== null) {
    const form = await readStrictForm(ctx.request).catch((error: unknown) => {
      if (error instanceof BodyError) throw bearerError(ctx, 'invalid_request', error.message, 400);
      throw error;
    });
    fromBody = form.get('access_token');
  }
  if (queryParams(ctx.request).values.has('access_token')) {
    throw bearerError(ctx, 'invalid_request', 'access tokens are not accepted in the query; use the Authorization header', 400);
  }
  if (header !== null) {
    const match = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
    if (!match?.[1] || !match[2]) throw bearerError(ctx, 'invalid_request', 'the Authorization header must be "Bearer <access token>" or "DPoP <access token>"', 400);
    if (fromBody !== undefined) throw bearerError(ctx, 'invalid_request', 'send the access token once, not in both header and body', 400);
    return { token: match[2], scheme: match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer' };
  }
  if (fromBody !== undefined) return { token: fromBody, scheme: 'Bearer' };
  // RFC 6750 3.1: no error code when the request carried no credentials at all.
  throw new OAuthError('invalid_token', 'an access token is required', 401, { 'WWW-Authenticate': `Bearer realm="${ctx.tenant.id}"` });
}

/**
 * The RFC 9449 7 checks of a token presented with the `DPoP` scheme: a valid proof for this
 * request and this token, by the key the token is bound to. And a bound token is never
 * accepted as a bearer token. Answers the headers of the success response (a rotated nonce).
 */
async function checkBinding(ctx: RequestContext, presented: Presented, record: AccessTokenRecord): Promise<Record<string, string>> {
  if (presented.scheme === 'Bearer') {
    if (record.jkt !== undefined) {
      throw dpopError(ctx, 'invalid_token', 'the access token is DPoP-bound; send it as "Authorization: DPoP <token>" with a DPoP proof');
    }
    return {};
  }
  const proof = dpopHeader(ctx.request);
  if (proof === undefined) throw dpopError(ctx, 'invalid_dpop_proof', 'a DPoP proof is required with the DPoP scheme');
  const nonces = demandedNonces(ctx);
  const result = await checkProof(ctx, proof, { method: ctx.request.method, path: '/oidc/userinfo', accessToken: presented.token, ...(nonces ? { nonces } : {}) });
  if (!result.ok) throw dpopError(ctx, result.error, result.description, nonceHeader(ctx, undefined));
  if (record.jkt === undefined) throw dpopError(ctx, 'invalid_token', 'the access token is not DPoP-bound; send it as "Authorization: Bearer <token>"');
  if (record.jkt !== result.jkt) throw dpopError(ctx, 'invalid_dpop_proof', 'the DPoP proof is signed by another key than the one the access token is bound to');
  const faults = clientFaults(ctx.tenant, record.clientId);
  const refusal = faults && faultyProofRefusal(ctx, faults, result.nonce);
  if (refusal) throw dpopError(ctx, refusal.error, refusal.description, refusal.headers);
  const oddCase = faults && oddCaseNonceChallenge(ctx, faults, result.nonce);
  if (oddCase) throw new OAuthError(oddCase.error, oddCase.description, 401, oddCase.headers);
  return nonceHeader(ctx, result.nonce);
}

/**
 * Handles `GET|POST {base}/oidc/userinfo`: the claims the token's scopes release, with `sub`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/userinfo', kind: 'json', cors: true, methods: { GET: userinfo, POST: userinfo } }
 */
export async function userinfo(ctx: RequestContext): Promise<Response> {
  try {
    const presented = await presentedToken(ctx);
    const record = await findLiveAccessToken(ctx, presented.token);
    if (!record) {
      const description = 'the access token is invalid, expired or revoked';
      throw presented.scheme === 'DPoP' ? dpopError(ctx, 'invalid_token', description) : bearerError(ctx, 'invalid_token', description, 401);
    }
    const headers = await checkBinding(ctx, presented, record);
    const user = record.user && ctx.tenant.users.get(record.user.username);
    if (!user || !record.scopes.includes('openid')) {
      throw bearerError(ctx, 'insufficient_scope', 'the access token was not granted the openid scope for a user', 403);
    }
    const claims = releasedClaims(ctx.tenant, user, record.scopes);
    const faults = clientFaults(ctx.tenant, record.clientId);
    const body = faults ? await withClaimSources(ctx, faults, faultyUserinfoClaims(faults, claims), presented.token) : claims;
    // OIDC Core 5.3.2: a client registered for signed userinfo gets a JWT from this issuer, for it.
    if (ctx.tenant.clients.get(record.clientId)?.userinfo_signed_response_alg !== undefined) {
      const key = (await ctx.keys()).current;
      const payload = { ...body, iss: ctx.issuer, aud: record.clientId };
      const jwt = (faults && (await faultySignedUserinfo(faults, payload, key))) ?? (await new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(await key.privateKey()));
      return new Response(jwt, { status: 200, headers: { ...ctx.corsHeaders, ...headers, ...NO_STORE, 'Content-Type': 'application/jwt' } });
    }
    return jsonResponse(body, 200, { ...ctx.corsHeaders, ...headers });
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error, ctx.corsHeaders);
    throw error;
  }
}
