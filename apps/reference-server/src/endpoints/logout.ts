/**
 * `GET|POST /oidc/logout`: OpenID Connect RP-Initiated Logout 1.0. Ends the browser's session
 * and returns to a `post_logout_redirect_uri` registered for the client (exact match), with
 * `state`; without one, shows a signed-out page. An expired `id_token_hint` is accepted
 * (it identifies, it does not authorize); a forged one is refused. Without a hint, or with one
 * naming another user than the signed-in one, the user is asked first (logout-confirmation.ts).
 */
import { compactVerify, decodeProtectedHeader } from 'jose';
import { LOGOUT_WAIT_MS, waitAtMost } from '../backchannel/backchannel';
import { logoutTokenSigner } from '../faults/logout-token';
import { logoutTokenTamper } from '../faults/logout-token-claims';
import { errorPage } from '../http/html';
import { BodyError, describeInvalid, queryParams, readFormBody, type Params } from '../http/params';
import { currentSession, endSession } from '../oauth/session';
import type { RequestContext } from '../request/context';
import { logoutConfirmation } from './logout-confirmation';
import { signedOutPage } from './pages';

/** What a valid hint says: the clients it was issued to, and whose it is. */
interface Hint {
  audiences: string[];
  sub: string | undefined;
}

async function readHint(ctx: RequestContext, hint: string): Promise<Hint | undefined> {
  // Outside the try: keys that cannot be had are the server's failure, not a bad hint.
  const keys = await ctx.keys();
  try {
    const { kid, alg } = decodeProtectedHeader(hint);
    const key = keys.verificationKeys().find((k) => k.kid === kid && k.alg === alg);
    if (!key) return undefined;
    const { payload } = await compactVerify(hint, key.publicJwk, { algorithms: [key.alg] });
    const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
    if (typeof claims !== 'object' || claims === null) return undefined;
    const { iss, aud, sub } = claims as { iss?: unknown; aud?: unknown; sub?: unknown };
    if (iss !== ctx.issuer) return undefined;
    const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
    return audiences.length > 0 ? { audiences, sub: typeof sub === 'string' ? sub : undefined } : undefined;
  } catch {
    return undefined;
  }
}

async function hintNamesAnother(ctx: RequestContext, hint: Hint): Promise<boolean> {
  const session = await currentSession(ctx);
  return session !== undefined && session.sub !== hint.sub;
}

/**
 * Handles `GET|POST {base}/oidc/logout`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/logout', kind: 'html', cors: false, methods: { GET: logout, POST: logout } }
 */
export async function logout(ctx: RequestContext): Promise<Response> {
  let params: Params;
  if (ctx.request.method === 'POST') {
    try {
      params = await readFormBody(ctx.request);
    } catch (error) {
      if (error instanceof BodyError) return errorPage(400, `The logout request could not be read: ${error.message}.`);
      throw error;
    }
  } else {
    params = queryParams(ctx.request);
  }
  const malformed = describeInvalid(params);
  if (malformed) return errorPage(400, `The logout request is malformed: ${malformed}.`);
  const { values } = params;
  const hint = values.get('id_token_hint');
  const redirect = values.get('post_logout_redirect_uri');
  let clientId = values.get('client_id');
  let hinted: Hint | undefined;
  if (hint !== undefined) {
    hinted = await readHint(ctx, hint);
    if (!hinted) return errorPage(400, 'The id_token_hint was not issued by this tenant.');
    const { audiences } = hinted;
    if (clientId !== undefined && !audiences.includes(clientId)) {
      return errorPage(400, 'The client_id does not match the id_token_hint.');
    }
    clientId ??= audiences[0];
  }
  const client = clientId === undefined ? undefined : ctx.tenant.clients.get(clientId);
  if (clientId !== undefined && !client) return errorPage(400, 'The client_id is not registered with this service.');
  if (redirect !== undefined) {
    if (!client) return errorPage(400, 'A post_logout_redirect_uri needs a client_id or an id_token_hint.');
    if (!client.post_logout_redirect_uris.includes(redirect)) {
      return errorPage(400, 'The post_logout_redirect_uri is not registered for this client (it must match exactly).');
    }
  }
  // A hint proves the request comes from a client of the signed-in user only when it names that
  // user; another user's hint (anyone can get one of their own) is no proof, so ask (§2).
  if (hinted === undefined || (await hintNamesAnother(ctx, hinted))) {
    const answer = await logoutConfirmation(ctx, values, client);
    if (answer) return answer;
  }
  const ended = await currentSession(ctx);
  const clearCookie = await endSession(ctx);
  // Back-Channel Logout 1.0: tell the clients of this sign-in; the page waits a bounded time only.
  if (ended && ctx.server.backchannel) {
    const key = (await ctx.keys()).current;
    const signer = ctx.tenant.hasFaults ? logoutTokenSigner(ctx, key) : key;
    const tamper = ctx.tenant.hasFaults ? logoutTokenTamper(ctx) : undefined;
    const deliveries = ctx.server.backchannel.notify(ctx.tenant, signer, ctx.server.backchannel.take(ctx.tenant.id, ended.sid), tamper);
    await waitAtMost(deliveries, LOGOUT_WAIT_MS);
  }
  if (redirect === undefined) return signedOutPage(clearCookie);
  const state = values.get('state');
  const location = state === undefined ? redirect : `${redirect}${redirect.includes('?') ? '&' : '?'}${new URLSearchParams({ state })}`;
  return new Response(null, { status: 302, headers: { Location: location, 'Set-Cookie': clearCookie, 'Cache-Control': 'no-store' } });
}
