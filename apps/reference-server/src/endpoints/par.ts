/**
 * `POST /oauth/par`: the pushed authorization request endpoint (RFC 9126). Confidential clients
 * authenticate as at the token endpoint (the shared client authentication); public clients send
 * `client_id`. The parameters are checked as the authorize endpoint checks them, and errors are
 * answered here as JSON, never redirected. A DPoP proof (or `dpop_jkt`) binds the code to come.
 */
import { OAuthError, asInvalidRequest, errorResponse, jsonResponse } from '../http/errors';
import { formBodyRead, readStrictForm } from '../http/params';
import { validateAuthorizeRequest } from '../oauth/authorize-request';
import { authenticateClient, requireSecretIfConfidential } from '../oauth/client-auth';
import { checkProof, demandedNonces, dpopHeader, nonceHeader } from '../oauth/dpop';
import { faultyPushAnswer, refuseFaultyPush } from '../faults/pushed-request';
import { pushRequest } from '../oauth/pushed-request';
import { resolveRequestObject } from '../oauth/request-object';
import type { RequestContext } from '../request/context';

/** Parameters of client authentication, which are not part of the authorization request. */
const AUTH_PARAMS = ['client_secret', 'client_assertion', 'client_assertion_type'];

/**
 * Handles `POST {base}/oauth/par`: 201 `{ request_uri, expires_in }`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oauth/par', kind: 'json', cors: true, methods: { POST: pushedAuthorizationRequest } }
 */
export async function pushedAuthorizationRequest(ctx: RequestContext): Promise<Response> {
  try {
    const form = await readStrictForm(ctx.request).catch(asInvalidRequest);
    const auth = await authenticateClient(ctx, form);
    requireSecretIfConfidential(ctx, auth);
    if (form.has('request_uri')) throw new OAuthError('invalid_request', 'request_uri cannot be pushed (RFC 9126 2.1)');
    let values: ReadonlyMap<string, string> = new Map(form);
    for (const name of AUTH_PARAMS) (values as Map<string, string>).delete(name);
    (values as Map<string, string>).set('client_id', auth.client.client_id);

    // Repeated `resource` values (RFC 8707) travel beside the single-valued parameters.
    let repeated = formBodyRead(ctx.request)?.repeated;
    if (values.has('request')) {
      // RFC 9126 3: a request object in the body is the whole request; other parameters are ignored.
      ({ values, repeated } = await resolveRequestObject(ctx, { values, invalid: new Map() }, auth.client));
    } else if (auth.client.require_signed_request_object) {
      throw new OAuthError('invalid_request', 'this client must push a signed request object (the request parameter, RFC 9101)');
    }
    const result = validateAuthorizeRequest({ values, invalid: new Map(), ...(repeated ? { repeated } : {}) }, ctx.tenant.clients);
    if (result.kind === 'page') throw new OAuthError('invalid_request', result.message);
    if (result.kind === 'error') throw result.error;
    const request = { ...result.request };

    // RFC 9449 10.1: a proof at push binds the code to its key, as dpop_jkt does; both must agree.
    const header = dpopHeader(ctx.request);
    if (header !== undefined) {
      const nonces = demandedNonces(ctx);
      const proof = await checkProof(ctx, header, { method: 'POST', path: '/oauth/par', ...(nonces ? { nonces } : {}) });
      if (!proof.ok) throw new OAuthError(proof.error, proof.description, 400, nonceHeader(ctx, undefined));
      if (request.dpopJkt !== undefined && request.dpopJkt !== proof.jkt) {
        throw new OAuthError('invalid_dpop_proof', 'dpop_jkt differs from the key of the DPoP proof');
      }
      request.dpopJkt = proof.jkt;
    }
    const { faults } = auth.client;
    if (faults.size > 0) refuseFaultyPush(faults);
    const answer = await pushRequest(ctx, request);
    return jsonResponse(faults.size > 0 ? faultyPushAnswer(faults, answer) : answer, 201, ctx.corsHeaders);
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error, ctx.corsHeaders);
    throw error;
  }
}
