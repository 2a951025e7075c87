/**
 * `GET /oidc/authorize`: validates the request, then either answers at once for a signed-in
 * browser whose consent is known (SSO), or starts an interaction and sends the browser to
 * the login (or consent) page.
 */
import { clientFaults } from '../config/model';
import { randomToken } from '../crypto/secrets';
import { OAuthError } from '../http/errors';
import { errorPage } from '../http/html';
import { queryParams } from '../http/params';
import { finishAuthorization, redirectError, targetOf } from '../oauth/authorization-response';
import { validateAuthorizeRequest } from '../oauth/authorize-request';
import { pushedAuthorizeRequest, REQUEST_URI_PREFIX } from '../oauth/pushed-request';
import { carriesRequestObject, resolveRequestObject } from '../oauth/request-object';
import { needsConsent } from '../oauth/consent';
import { bindBrowser } from '../oauth/browser-binding';
import { demoUser } from '../oauth/demo-login';
import { currentSession, INTERACTION_SECONDS } from '../oauth/session';
import { nowSeconds, type RequestContext } from '../request/context';

/**
 * Handles `GET {base}/oidc/authorize`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/authorize', kind: 'html', cors: false, methods: { GET: authorize } }
 */
export async function authorize(ctx: RequestContext): Promise<Response> {
  let params = queryParams(ctx.request);
  // A request_uri of this server's PAR endpoint is a pushed request; any other, or `request`, a request object (RFC 9101).
  const pushed = params.values.get('request_uri')?.startsWith(REQUEST_URI_PREFIX) === true;
  const fromObject = !pushed && carriesRequestObject(params.values, REQUEST_URI_PREFIX);
  if (fromObject) {
    const clientId = params.values.get('client_id');
    const client = clientId === undefined ? undefined : ctx.tenant.clients.get(clientId);
    // Until the object is verified its redirect_uri is not trusted: refusals are pages, never redirects.
    if (!client) return errorPage(400, 'A request object comes with the client_id of a registered client beside it (RFC 9101 5).');
    try {
      params = await resolveRequestObject(ctx, params, client);
    } catch (error) {
      if (error instanceof OAuthError) return errorPage(400, `The request object was refused (${error.error}): ${error.description}.`, error.error);
      throw error;
    }
  }
  const result = pushed ? await pushedAuthorizeRequest(ctx, params) : validateAuthorizeRequest(params, ctx.tenant.clients);
  if (result.kind === 'page') return errorPage(400, result.message);
  if (!pushed && !fromObject && result.kind === 'ok' && result.client.require_signed_request_object) {
    return redirectError(ctx, targetOf(result.request), new OAuthError('invalid_request', 'this client must send its authorization request as a signed request object (RFC 9101)'));
  }
  if (!pushed && parRequired(ctx, result.kind === 'ok' ? result.client.client_id : result.target.clientId)) {
    const target = result.kind === 'ok' ? targetOf(result.request) : result.target;
    return redirectError(ctx, target, new OAuthError('invalid_request', `this client must push its authorization request to ${ctx.issuer}/oauth/par (RFC 9126)`));
  }
  if (result.kind === 'error') return redirectError(ctx, result.target, result.error);
  const { client, request } = result;
  const target = targetOf(request);
  // The form-post error module: the error goes back the way a success would (form_post, fragment or query).
  if (clientFaults(ctx.tenant, client.client_id)?.has('authorize_error_login_required')) {
    return redirectError(ctx, target, new OAuthError('login_required', 'the user is not signed in (fault authorize_error_login_required)'));
  }

  const session = await currentSession(ctx);
  // On a demo_login tenant, login_hint naming another user than the signed-in one switches user.
  const otherUser = session !== undefined && demoUser(ctx.tenant, request.loginHint) !== undefined && request.loginHint !== session.username;
  const forceLogin = request.prompt.includes('login') || request.prompt.includes('select_account') || otherUser;
  const tooOld = session !== undefined && request.maxAge !== undefined && nowSeconds(ctx.server) - session.authTime > request.maxAge;
  const signedIn = session !== undefined && !forceLogin && !tooOld ? session : undefined;
  const consent = signedIn ? await needsConsent(ctx, client, signedIn.sub, request.scopes, request.prompt) : true;

  if (request.prompt.includes('none')) {
    if (!signedIn) return redirectError(ctx, target, new OAuthError('login_required', 'the user is not signed in'));
    if (consent) return redirectError(ctx, target, new OAuthError('consent_required', 'the user has not consented to the requested scopes'));
  }
  if (signedIn && !consent) {
    const { username, sub, sid, authTime } = signedIn;
    return finishAuthorization(ctx, request, { username, sub, sid, authTime });
  }

  const binding = await bindBrowser(ctx);
  const id = randomToken();
  await ctx.server.store.saveInteraction(
    id,
    {
      tenant: ctx.tenant.id,
      request,
      browser: binding.key,
      csrf: randomToken(),
      failedLogins: 0,
      ...(signedIn ? { user: { username: signedIn.username, sub: signedIn.sub, sid: signedIn.sid, authTime: signedIn.authTime } } : {}),
    },
    INTERACTION_SECONDS,
  );
  const page = signedIn ? 'consent' : 'login';
  const headers = new Headers({ Location: `${ctx.issuer}/oidc/${page}?interaction=${id}`, 'Cache-Control': 'no-store' });
  if (binding.setCookie) headers.append('Set-Cookie', binding.setCookie);
  return new Response(null, { status: 302, headers });
}

// RFC 9126 6: the tenant or the client requires every authorize request to be pushed.
function parRequired(ctx: RequestContext, clientId: string): boolean {
  return ctx.tenant.require_pushed_authorization_requests || ctx.tenant.clients.get(clientId)?.require_pushed_authorization_requests === true;
}
