/**
 * Third-party initiated login (OIDC Core 4): the provider sends the browser to a client's
 * registered `initiate_login_uri` with `iss` (this issuer), and `login_hint` and
 * `target_link_uri` when given, as an "apps" page of a provider would. A client with
 * `initiate_login_wrong_iss` gets another issuer's `iss` (it must not start a login there).
 */
import { clientFaults } from '../config/model';
import { impostorIssuer } from '../faults/responses';
import { errorPage } from '../http/html';
import { describeInvalid, queryParams } from '../http/params';
import type { RequestContext } from '../request/context';

/** The optional parameters passed on to the client, unchanged. */
const PASSED_ON = ['login_hint', 'target_link_uri'] as const;

/**
 * Handles `GET {base}/oidc/initiate-login?client_id=...[&login_hint=...][&target_link_uri=...]`:
 * 303 to the client's `initiate_login_uri`; 400 for a client without one.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/initiate-login', kind: 'html', cors: false, methods: { GET: initiateLogin } }
 */
export async function initiateLogin(ctx: RequestContext): Promise<Response> {
  const params = queryParams(ctx.request);
  const invalid = describeInvalid(params);
  if (invalid !== undefined) return errorPage(400, invalid);
  const clientId = params.values.get('client_id');
  if (clientId === undefined) return errorPage(400, 'client_id is required: the client whose login to start.');
  const client = ctx.tenant.clients.get(clientId);
  if (!client) return errorPage(400, 'client_id is not a client of this tenant.', 'invalid_client');
  if (client.initiate_login_uri === undefined) {
    return errorPage(400, 'This client has registered no initiate_login_uri, so a login cannot be started for it here.');
  }
  const target = new URL(client.initiate_login_uri);
  const iss = clientFaults(ctx.tenant, clientId)?.has('initiate_login_wrong_iss') ? impostorIssuer(ctx) : ctx.issuer;
  target.searchParams.set('iss', iss);
  for (const name of PASSED_ON) {
    const value = params.values.get(name);
    if (value !== undefined) target.searchParams.set(name, value);
  }
  return new Response(null, { status: 303, headers: { Location: target.href, 'Cache-Control': 'no-store' } });
}
