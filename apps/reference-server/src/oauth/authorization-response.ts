/**
 * The authorization response: issuing the code and front-channel tokens, and delivering them
 * (or an error) to the redirect URI in the query, the fragment, or an auto-submitting form.
 * Every response carries `state` and `iss` (RFC 9207); a JARM one carries them inside its JWT.
 */
import { clientFaults } from '../config/model';
import { randomToken, storageKey } from '../crypto/secrets';
import { faultyRedirectParams } from '../faults/responses';
import type { OAuthError } from '../http/errors';
import { allowFormTargets, html, htmlPage } from '../http/html';
import { SESSION_SECONDS } from './session';
import { sessionState } from './browser-state';
import { nowSeconds, type RequestContext } from '../request/context';
import type { AuthorizationRequest, Authentication } from '../store/store';
import type { ResponseTarget } from './authorize-request';
import { issueAccessToken, issueIdToken, newGrantId } from './issue';
import { jarmParameters } from './jarm';

async function deliver(ctx: RequestContext, target: ResponseTarget, params: Record<string, string>, headers?: Headers): Promise<Response> {
  const sent: Record<string, string> = { ...params };
  if (target.state !== undefined) sent.state = target.state;
  sent.iss = ctx.issuer;
  const faults = clientFaults(ctx.tenant, target.clientId);
  const plain = faults ? faultyRedirectParams(ctx, faults, sent) : sent;
  const all = target.jarm ? await jarmParameters(ctx, target.clientId, plain) : plain;
  const out = new Headers(headers);
  if (target.mode === 'form_post') {
    const fields = Object.entries(all).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
    const page = htmlPage({
      title: 'Returning to the application',
      body: html`<h1>Returning to the application&hellip;</h1>
<form method="post" action="${target.redirectUri}">
${fields}
<noscript><p>JavaScript is off. Press the button to continue.</p></noscript>
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>`,
      script: 'document.forms[0].submit();',
      headers: out,
    });
    return allowFormTargets(page, [target.redirectUri]);
  }
  const encoded = new URLSearchParams(all).toString();
  const location =
    target.mode === 'fragment'
      ? `${target.redirectUri}#${encoded}`
      : `${target.redirectUri}${target.redirectUri.includes('?') ? '&' : '?'}${encoded}`;
  out.set('Location', location);
  out.set('Cache-Control', 'no-store');
  return new Response(null, { status: 302, headers: out });
}

/**
 * Sends an error to the client's redirect URI (`error`, `error_description`, `state`, `iss`).
 *
 * @example
 * return redirectError(ctx, target, new OAuthError('access_denied', 'the user denied access'));
 */
export function redirectError(ctx: RequestContext, target: ResponseTarget, error: OAuthError, headers?: Headers): Promise<Response> {
  return deliver(ctx, target, { error: error.error, error_description: error.description }, headers);
}

/**
 * The target of a validated request's responses.
 *
 * @example
 * redirectError(ctx, targetOf(interaction.request), error);
 */
export function targetOf(request: AuthorizationRequest): ResponseTarget {
  return { clientId: request.clientId, redirectUri: request.redirectUri, mode: request.responseMode, state: request.state, ...(request.jarm ? { jarm: true } : {}) };
}

/**
 * Completes an authorization for a signed-in, consenting user: issues what the response type
 * asks for and delivers it. `headers` (e.g. a session cookie) are added to the response.
 *
 * @example
 * return finishAuthorization(ctx, interaction.request, session, headers);
 */
export async function finishAuthorization(
  ctx: RequestContext,
  request: AuthorizationRequest,
  user: Authentication,
  headers?: Headers,
): Promise<Response> {
  const words = request.responseType.split(' ');
  const grantId = newGrantId();
  const params: Record<string, string> = {};
  const { lifetimes } = ctx.tenant;
  let code: string | undefined;
  let accessToken: string | undefined;
  if (words.includes('code')) {
    code = randomToken();
    // Kept (as used) after redemption for as long as its tokens can live, so a replay is caught.
    const keep = Math.max(lifetimes.authorization_code, lifetimes.access_token, lifetimes.refresh_token);
    await ctx.server.store.saveCode(
      storageKey(code),
      {
        tenant: ctx.tenant.id,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        scopes: request.scopes,
        user,
        grantId,
        expiresAt: nowSeconds(ctx.server) + lifetimes.authorization_code,
        ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
        ...(request.codeChallenge !== undefined ? { codeChallenge: request.codeChallenge } : {}),
        ...(request.resources !== undefined ? { resources: request.resources } : {}),
        ...(request.dpopJkt !== undefined ? { dpopJkt: request.dpopJkt } : {}),
      },
      keep,
    );
    params.code = code;
  }
  if (words.includes('token')) {
    const issued = await issueAccessToken(ctx, { clientId: request.clientId, scopes: request.scopes, user, grantId, resources: request.resources });
    accessToken = issued.token;
    params.access_token = issued.token;
    params.token_type = 'Bearer';
    params.expires_in = String(issued.expiresIn);
  }
  if (words.includes('id_token')) {
    params.id_token = await issueIdToken(ctx, {
      clientId: request.clientId,
      user,
      scopes: request.scopes,
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      ...(code !== undefined ? { code } : {}),
      ...(accessToken !== undefined ? { accessToken } : {}),
    });
  }
  // Session Management 1.0 §3: the state the RP's iframe will post to the check_session_iframe.
  if (new URL(request.redirectUri).origin !== 'null') params.session_state = sessionState(request.clientId, request.redirectUri, user.sid);
  // The sign-in's back-channel logout will tell this client (OpenID Connect Back-Channel Logout 1.0).
  ctx.server.backchannel?.signedIn(ctx.tenant.id, ctx.issuer, user, request.clientId, (user.authTime + SESSION_SECONDS) * 1000);
  ctx.server.logger.info(`tenant ${ctx.tenant.id}: authorized client ${request.clientId} (${request.responseType})`);
  return deliver(ctx, targetOf(request), params, headers);
}
