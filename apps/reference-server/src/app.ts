/**
 * The Hono application: every endpoint under `/{tenantId}`, one table saying which methods
 * each accepts, whether it answers in JSON or HTML and whether browsers may call it
 * cross-origin. Unknown tenants, paths and methods get a 4xx in the endpoint's shape; an
 * unreachable store is 503 `temporarily_unavailable` in that shape; any other unexpected
 * failure is logged (without request data) and answered 500 without details.
 */
import type { Context } from 'hono';
import { HonoBase as Hono } from 'hono/hono-base';
import { TrieRouter } from 'hono/router/trie-router';
import type { ControlApiSettings } from './control/access';
import type { ControlState, ServerControl } from './control/control';
import { CONTROL_PREFIX, handleControlRequest } from './control/http-api';
import { journalRequests } from './control/journal';
import { ConnectionDropped, incomingOf, injectTransportFault } from './control/transport-faults';
import { authorize } from './endpoints/authorize';
import { codeTokenEndpoint } from './endpoints/code-token';
import { showConsent, submitConsent } from './endpoints/consent';
import { authorizationServerMetadata, discovery, WELL_KNOWN_INSERTED } from './endpoints/discovery';
import { claimsSource } from './endpoints/claims-source';
import { initiateLogin } from './endpoints/initiate-login';
import { jwks } from './endpoints/jwks';
import { showLogin, submitLogin } from './endpoints/login';
import { logout } from './endpoints/logout';
import { checkSession } from './endpoints/check-session';
import { oauthTokenEndpoint } from './endpoints/oauth-token';
import { pushedAuthorizationRequest } from './endpoints/par';
import { manageRegistration, register } from './endpoints/register';
import { revoke } from './endpoints/revoke';
import { introspect } from './endpoints/introspect';
import { serverHome, wantsHtml } from './endpoints/server-home';
import { revokeConsent, tenantHome, toTenantHome } from './endpoints/tenant-home';
import { userinfo } from './endpoints/userinfo';
import { webFinger } from './endpoints/webfinger';
import { corsHeaders, preflight } from './http/cors';
import { jsonResponse } from './http/errors';
import { withRegisteredClients } from './oauth/registered-clients';
import { errorPage, FAVICON_SVG } from './http/html';
import { requestOrigin } from './http/origin';
import { pathnameOf } from './http/url-path';
import { LazyUrlContext, type RequestContext, type ServerContext, type TenantEntry } from './request/context';
import { StoreUnavailableError } from './store/store';

type Handler = (ctx: RequestContext) => Promise<Response>;

interface Endpoint {
  path: string;
  kind: 'json' | 'html';
  cors: boolean;
  methods: Partial<Record<'GET' | 'POST' | 'PUT' | 'DELETE', Handler>>;
}

/** The per-tenant endpoints, relative to `{origin}/{tenantId}`. */
const ENDPOINTS: readonly Endpoint[] = [
  { path: '', kind: 'html', cors: false, methods: { GET: toTenantHome } },
  { path: '/', kind: 'html', cors: false, methods: { GET: tenantHome } },
  { path: '/revoke-consent', kind: 'html', cors: false, methods: { POST: revokeConsent } },
  { path: '/.well-known/openid-configuration', kind: 'json', cors: true, methods: { GET: discovery } },
  { path: '/.well-known/oauth-authorization-server', kind: 'json', cors: true, methods: { GET: authorizationServerMetadata } },
  { path: '/oidc/jwks', kind: 'json', cors: true, methods: { GET: jwks } },
  { path: '/oidc/authorize', kind: 'html', cors: false, methods: { GET: authorize } },
  { path: '/oidc/login', kind: 'html', cors: false, methods: { GET: showLogin, POST: submitLogin } },
  { path: '/oidc/consent', kind: 'html', cors: false, methods: { GET: showConsent, POST: submitConsent } },
  { path: '/oidc/token', kind: 'json', cors: true, methods: { POST: codeTokenEndpoint } },
  { path: '/oauth/token', kind: 'json', cors: true, methods: { POST: oauthTokenEndpoint } },
  { path: '/oidc/userinfo', kind: 'json', cors: true, methods: { GET: userinfo, POST: userinfo } },
  { path: '/oauth/revoke', kind: 'json', cors: true, methods: { POST: revoke } },
  { path: '/oauth/par', kind: 'json', cors: true, methods: { POST: pushedAuthorizationRequest } },
  { path: '/oauth/introspect', kind: 'json', cors: false, methods: { POST: introspect } },
  { path: '/oauth/register', kind: 'json', cors: false, methods: { POST: register } },
  { path: '/oauth/register/:client_id', kind: 'json', cors: false, methods: { GET: manageRegistration, PUT: manageRegistration, DELETE: manageRegistration } },
  { path: '/oidc/logout', kind: 'html', cors: false, methods: { GET: logout, POST: logout } },
  { path: '/oidc/claims-source', kind: 'json', cors: true, methods: { GET: claimsSource, POST: claimsSource } },
  { path: '/oidc/initiate-login', kind: 'html', cors: false, methods: { GET: initiateLogin } },
  { path: '/oidc/check-session', kind: 'html', cors: false, methods: { GET: checkSession } },
];

/**
 * The path of every per-tenant endpoint with a fixed path, relative to `{origin}/{tenantId}`.
 *
 * @example
 * ENDPOINT_PATHS.includes('/oidc/jwks'); // true
 */
export const ENDPOINT_PATHS: readonly string[] = ENDPOINTS.filter((e) => !e.path.includes(':')).map((e) => e.path);

/** The runtime control the app consults: faults, the journal, and the HTTP control API's setting. */
export interface AppControl {
  control: ServerControl;
  state: ControlState;
  api: ControlApiSettings;
}

/** Information about each request, for tests that count calls. */
export interface RequestInfo {
  method: string;
  path: string;
  tenant?: string;
}

function problem(kind: Endpoint['kind'], status: 400 | 404 | 405, message: string, headers: Readonly<Record<string, string>> = {}): Response {
  if (kind === 'html') {
    const page = errorPage(status, message);
    for (const [name, value] of Object.entries(headers)) page.headers.set(name, value);
    return page;
  }
  return jsonResponse({ error: 'invalid_request', error_description: message }, status, headers);
}

/** The answer while the store (e.g. Redis) is unreachable: 503, nothing issued, retry soon. */
function unavailable(kind: Endpoint['kind'], headers: Readonly<Record<string, string>>): Response {
  const message = 'The server cannot reach its session store right now; nothing was issued. Try again in a moment.';
  if (kind === 'html') {
    const page = errorPage(503, message, 'temporarily_unavailable');
    page.headers.set('Retry-After', '1');
    return page;
  }
  return jsonResponse({ error: 'temporarily_unavailable', error_description: message }, 503, { ...headers, 'Retry-After': '1' });
}

const NONE: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Assembles the application over a server context.
 *
 * @example
 * const app = createApp(context, (info) => calls.push(info));
 * const response = await app.fetch(new Request('http://localhost/demo/oidc/jwks'));
 */
export function createApp(server: Omit<ServerContext, 'store'>, onRequest?: (info: RequestInfo) => void, control?: AppControl): Hono {
  // Hono's default router tries RegExpRouter first at the first request, which refuses this route
  // table (`/:tenant…` beside static paths), then settles on TrieRouter: take TrieRouter at once, and
  // leave RegExpRouter out of the CLI bundle.
  const app = new Hono({ router: new TrieRouter() });

  if (onRequest) {
    app.use('*', async (c, next) => {
      const path = pathnameOf(c.req.url);
      const first = path.split('/')[1] ?? '';
      onRequest({ method: c.req.method, path, ...(server.tenants.has(first) ? { tenant: first } : {}) });
      await next();
    });
  }

  if (control) {
    const { journal, clock, transportFaults } = control.state;
    const answerControl = (c: Context) => handleControlRequest(c.req.raw, control.control, control.api, incomingOf(c.env)?.socket.remoteAddress);
    app.all(CONTROL_PREFIX, answerControl);
    app.all(`${CONTROL_PREFIX}/*`, answerControl);
    app.use('*', journalRequests(journal, clock.now, (id) => server.tenants.has(id), (r) => transportFaults.injectedInto(r), CONTROL_PREFIX));
  }

  // A browser opening the server (or a mistyped path or tenant) gets a page linking to the tenants; programs get the JSON 404.
  const allTenants = [...server.tenants.values()].map((entry) => entry.tenant);

  // Built once per tenant rather than per request.
  const servers = new Map<TenantEntry, ServerContext>();
  for (const entry of server.tenants.values()) servers.set(entry, { ...server, store: entry.store });

  async function serve(endpoint: Endpoint, allowed: readonly string[], ctx: RequestContext): Promise<Response> {
    const { method } = ctx.request;
    if (method === 'OPTIONS' && endpoint.cors) return preflight(ctx, allowed);
    const handler = endpoint.methods[method as keyof Endpoint['methods']];
    if (!handler) {
      const headers = { ...ctx.corsHeaders, Allow: allowed.join(', ') };
      return problem(endpoint.kind, 405, `This endpoint accepts ${allowed.join(' and ')} only.`, headers);
    }
    return handler(ctx);
  }

  // RFC 8414 3.1: the well-known URI of an issuer with a path puts the suffix before the path
  // (`/.well-known/oauth-authorization-server/{tenant}`); OIDC Discovery appends it (served by the
  // table). Both spellings of both documents answer, as clients try either order.
  for (const suffix of WELL_KNOWN_INSERTED) {
    app.get(`/.well-known/${suffix}/:tenant`, (c) => {
      const url = new URL(c.req.url);
      url.pathname = `/${c.req.param('tenant')}/.well-known/${suffix}`;
      return app.fetch(new Request(url, c.req.raw), c.env);
    });
  }

  // OpenID Connect Discovery 2: which tenant's issuer serves a user (RFC 7033, at the origin).
  app.get('/.well-known/webfinger', (c) => {
    const socket = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket;
    const where = requestOrigin(server.origin, c.req.raw, socket?.remoteAddress);
    if ('problem' in where) return problem('json', 400, where.problem);
    return webFinger(c.req.raw, allTenants, where.origin);
  });

  // Browsers ask for it on their own; the pages also carry it inline (see html.ts).
  app.get('/favicon.ico', () => new Response(FAVICON_SVG, { headers: { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' } }));

  for (const endpoint of ENDPOINTS) {
    const allowed = Object.keys(endpoint.methods);
    app.all(`/:tenant${endpoint.path}`, async (c) => {
      const request = c.req.raw;
      const entry = server.tenants.get(c.req.param('tenant'));
      if (!entry) return wantsHtml(request) ? serverHome(request, allTenants) : problem(endpoint.kind, 404, 'There is no such tenant on this server.');
      // A listener passes the Node request as env.incoming (http/node-listener.ts); in-process there is none.
      const socket = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket;
      const where = requestOrigin(server.origin, request, socket?.remoteAddress);
      if ('problem' in where) return problem(endpoint.kind, 400, where.problem);
      // With runtime faults set for the tenant's clients, this request's view of it (see control/client-faults.ts).
      // Clients registered at run time (RFC 7591) join the configured ones (see oauth/registered-clients.ts).
      const tenant = withRegisteredClients(entry, control ? control.state.clientFaults.view(entry.tenant) : entry.tenant);
      const headers = endpoint.cors ? corsHeaders({ request, tenant }) : NONE;
      const transport = control && !control.state.transportFaults.empty ? control.state.transportFaults.take(tenant.id, endpoint.path, request) : undefined;
      if (transport) {
        const answer = await injectTransportFault(endpoint.kind, transport, c.env, headers);
        if (answer) return answer;
      }
      const ctx: RequestContext = new LazyUrlContext({
        server: servers.get(entry) ?? { ...server, store: entry.store },
        tenant,
        keys: entry.keys,
        request,
        corsHeaders: headers,
        issuer: `${where.origin}/${entry.tenant.id}`,
        secure: where.secure,
        clientAddress: where.clientAddress,
      });
      try {
        return await serve(endpoint, allowed, ctx);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        server.logger.info(`tenant ${entry.tenant.id}: answered 503: ${error.message}`);
        return unavailable(endpoint.kind, ctx.corsHeaders);
      }
    });
  }

  app.notFound((c) => serverHome(c.req.raw, allTenants));
  app.onError((error) => {
    if (error instanceof ConnectionDropped) throw error;
    server.logger.error(`internal error: ${error instanceof Error ? `${error.name}: ${error.message}` : 'unknown'}`);
    return jsonResponse({ error: 'server_error', error_description: 'the server failed to handle the request' }, 500);
  });
  return app;
}
