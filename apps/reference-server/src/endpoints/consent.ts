/**
 * The consent page and its form post: Allow remembers the grant and completes the
 * authorization, Deny ends it with `access_denied`.
 */
import { DENIED_DESCRIPTION } from './descriptions';
import { OAuthError } from '../http/errors';
import { allowFormTargets, errorPage } from '../http/html';
import { queryParams } from '../http/params';
import { rememberConsent } from '../oauth/consent';
import type { RequestContext } from '../request/context';
import type { Interaction } from '../store/store';
import { brandOf, complete, endWithError, load, readForm, renderLogin } from './interaction';
import { consentPage } from './pages';

function renderConsent(ctx: RequestContext, id: string, interaction: Interaction & { user: NonNullable<Interaction['user']> }): Response {
  const page = consentPage({
    ...brandOf(ctx.tenant, interaction),
    action: `${ctx.issuer}/oidc/consent`,
    interaction: id,
    csrf: interaction.csrf,
    scopes: interaction.request.scopes,
    username: interaction.user.username,
  });
  return allowFormTargets(page, [interaction.request.redirectUri]);
}

/**
 * `GET {base}/oidc/consent?interaction=…`: the consent form (the login form if not signed in).
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/consent', kind: 'html', cors: false, methods: { GET: showConsent, POST: submitConsent } }
 */
export async function showConsent(ctx: RequestContext): Promise<Response> {
  const loaded = await load(ctx, queryParams(ctx.request));
  if ('page' in loaded) return loaded.page;
  const { id, interaction } = loaded;
  if (!interaction.user) return renderLogin(ctx, id, interaction);
  return renderConsent(ctx, id, { ...interaction, user: interaction.user });
}

/**
 * `POST {base}/oidc/consent`: `decision=allow` remembers the grant and completes the
 * authorization; `decision=deny` ends it with `access_denied`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/consent', kind: 'html', cors: false, methods: { GET: showConsent, POST: submitConsent } }
 */
export async function submitConsent(ctx: RequestContext): Promise<Response> {
  const form = await readForm(ctx);
  if (form instanceof Response) return form;
  const loaded = await load(ctx, form, { csrf: form.values.get('csrf') });
  if ('page' in loaded) return loaded.page;
  const { id, interaction } = loaded;
  if (!interaction.user) return errorPage(400, 'Sign in before giving consent.');
  const decision = form.values.get('decision');
  if (decision === 'deny') return endWithError(ctx, id, new OAuthError('access_denied', DENIED_DESCRIPTION));
  if (decision !== 'allow') return errorPage(400, 'The consent form was submitted without a decision.');
  await rememberConsent(ctx, interaction.user.sub, interaction.request.clientId, interaction.request.scopes);
  return complete(ctx, id);
}
