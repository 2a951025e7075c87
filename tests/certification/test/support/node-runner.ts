/**
 * One module run through @oidc-rp/node over real HTTP against the reference server: the client
 * (or the session layer, for the logout modules) as a certifying RP configures it — its
 * registered response type and mode, `client_secret_basic` and RS256 pinned for OIDCC, `fapi2()`
 * (PAR, private_key_jwt, DPoP, ES256) for FAPI 2.0 — and the provider playing the module by its
 * fault. Judged by the outcome the app sees and by the provider's request journal.
 */
import { clearJwksCache, isOidcError } from '@oidc-rp/core';
import { MemorySessionStore, createNodeClient, createSessionAuth, dpop, fapi2, type NodeClientOptions } from '@oidc-rp/node';
import type { ClientConfig, ReferenceServer } from '@oidc-rp/reference-server';
import { CLIENT_PRIVATE_JWK, CLIENT_SECRET, NODE_REDIRECT, SCOPE } from '@oidc-rp/conformance/support/config';
import { runNodeFlow, type NodeFlow } from '@oidc-rp/conformance/support/node-flow';
import { startSessionApp, type SessionApp } from '@oidc-rp/conformance/support/session-app';
import { expect } from 'vitest';
import { tenantOf } from '../../src/modules';
import type { ModuleRun } from '../../src/runs';
import { runDynamic } from './dynamic-runner';
import { expectStoppedAfter, journalled, RunJournal } from './journal';
import { hasAccessToken, sdkResponseType } from './response-types';
import { MISMATCH_CLIENT, signingAlgorithmOf } from './server-config';
import { expectAccepted, expectChecks, rejectionPoint } from './verdict';

export interface NodeRunContext {
  server: ReferenceServer;
  origin: string;
}

const COOKIE_SECRET = 'certification-tx-Hq3vN8kLw2PzR6tYb9XcM4sJ';
const SESSION_SECRET = 'certification-session-Zt4qW8nRk2VbY7cLx5mJp3sD';
const { d: _private, ...CLIENT_PUBLIC_JWK } = CLIENT_PRIVATE_JWK;
let clients = 0;

const isFapi = (run: ModuleRun) => tenantOf(run.module).startsWith('fapi');
/** FAPI 2.0 Message Signing: the login pushed as a request object signed ES256 (JAR by PAR), the response a JARM JWT (query.jwt). */
const isMessageSigning = (run: ModuleRun) => run.variant.settings?.fapi_request_method === 'signed_non_repudiation';

/** Registers the run's client at the provider (a new one per run, with the module's fault) and returns its id. */
async function registerClient(run: ModuleRun, ctx: NodeRunContext, redirects?: Partial<ClientConfig>): Promise<string> {
  const tenant = tenantOf(run.module);
  if (tenant.endsWith('-mismatch')) return MISMATCH_CLIENT;
  const clientId = `node-${++clients}`;
  const implicit = !run.responseType.includes('code');
  await ctx.server.control.clients.add(
    {
      client_id: clientId,
      ...(isFapi(run)
        ? {
            jwks: { keys: [CLIENT_PUBLIC_JWK] },
            token_endpoint_auth_method: 'private_key_jwt',
            require_dpop: true,
            // Message Signing: signed request objects required, and JARM responses signed with the tenant's algorithm.
            ...(isMessageSigning(run)
              ? { require_signed_request_object: true, request_object_signing_alg: 'ES256', authorization_signed_response_alg: signingAlgorithmOf(tenant) }
              : {}),
          }
        : { client_secret: CLIENT_SECRET, token_endpoint_auth_method: 'client_secret_basic' }),
      redirect_uris: [NODE_REDIRECT],
      grant_types: implicit ? ['implicit'] : ['authorization_code', 'refresh_token', ...(run.responseType === 'code' ? [] : ['implicit' as const])],
      response_types: [sdkResponseType(run.responseType)],
      scopes: SCOPE.split(' '),
      skip_consent: true,
      ...(run.definition.fault && !tenant.endsWith('-mismatch') ? { fault: run.definition.fault as ClientConfig['fault'] } : {}),
      ...redirects,
    } as ClientConfig,
    { tenant },
  );
  return clientId;
}

/** The client options of the run: fapi2() for FAPI 2.0; else the RP registered for client_secret_basic and RS256. */
async function clientOptions(run: ModuleRun, ctx: NodeRunContext, clientId: string, redirectUri = NODE_REDIRECT): Promise<NodeClientOptions> {
  const issuer = `${ctx.origin}/${tenantOf(run.module)}`;
  if (isFapi(run)) {
    return fapi2({ issuer, clientId, privateKey: CLIENT_PRIVATE_JWK, dpop: await dpop(), redirectUri, cookieSecret: COOKIE_SECRET, scope: SCOPE, ...(isMessageSigning(run) ? { messageSigning: true } : {}) });
  }
  return {
    issuer,
    clientId,
    clientSecret: CLIENT_SECRET,
    authMethod: 'client_secret_basic',
    redirectUri,
    scope: SCOPE,
    responseType: sdkResponseType(run.responseType),
    responseMode: run.responseMode,
    signingAlgorithm: signingAlgorithmOf(tenantOf(run.module)),
    cookieSecret: COOKIE_SECRET,
  };
}

async function login(run: ModuleRun, ctx: NodeRunContext, userinfo: boolean): Promise<NodeFlow> {
  const clientId = await registerClient(run, ctx);
  return runNodeFlow({ issuer: '', clientId, userinfo, clientOptions: await clientOptions(run, ctx, clientId) });
}

/** What the app saw: the error, the session (tokens) and userinfo. */
function verdictOf(flow: NodeFlow) {
  return {
    error: flow.error,
    signedIn: flow.tokens !== undefined,
    ...(flow.tokens ? { tokens: { idToken: flow.tokens.idToken, expiresAt: flow.tokens.expiresAt, claims: flow.tokens.claims } } : {}),
    ...(flow.userinfo ? { userinfo: flow.userinfo } : {}),
  };
}

/**
 * Runs one module run on node and asserts the suite's verdict.
 *
 * @example
 * await runOnNode(run, { server, origin });
 */
export async function runOnNode(run: ModuleRun, ctx: NodeRunContext): Promise<void> {
  clearJwksCache();
  switch (run.definition.step) {
    case 'login':
    case 'userinfo':
    case 'discovery':
      return loginRun(run, ctx);
    case 'refresh':
      return refreshRun(run, ctx);
    case 'keyRotation':
      return keyRotationRun(run, ctx);
    case 'backchannelLogout':
    case 'rpInitiatedLogout':
      return logoutRun(run, ctx);
    case 'thirdPartyLogin':
      return thirdPartyLoginRun(run, ctx);
    case 'frontChannelLogout':
      return frontChannelLogoutRun(run, ctx);
    case 'dynamic':
      return runDynamic(run, ctx);
    default:
      throw new Error(`${run.module}: no node runner for step ${run.definition.step}`);
  }
}

/** The claim modules' extra step: the app resolves the aggregated and distributed claims of its userinfo. */
type ClaimSourcesClient = { resolveClaimSources(claims: Record<string, unknown>): Promise<{ claims: Record<string, unknown> }> };

async function loginRun(run: ModuleRun, ctx: NodeRunContext): Promise<void> {
  const m = run.definition;
  const inBody = m.checks?.includes('bearerBody') === true;
  const claimSources = m.checks?.some((c) => c === 'aggregatedClaims' || c === 'distributedClaims') === true;
  const { value: flow, journal: loginJournal } = await journalled(ctx.server, async () => {
    const flow = await login(run, ctx, hasAccessToken(run.responseType) && !inBody);
    if (inBody && flow.tokens) {
      // RFC 6750 2.2: the access token as a form field of a POST, no Authorization header.
      flow.userinfo = await flow.client.getUserInfo(flow.tokens.accessToken, { expectedSubject: 'alice', tokenIn: 'body' } as never);
    }
    return flow;
  });
  if (isMessageSigning(run)) expectJarmResponse(run, flow);
  const verdict = verdictOf(flow);
  let journal = loginJournal;
  if (claimSources && flow.userinfo) {
    const { value, journal: sources } = await journalled(ctx.server, () => (flow.client as unknown as ClaimSourcesClient).resolveClaimSources(flow.userinfo as Record<string, unknown>));
    Object.assign(verdict, { resolved: value.claims });
    journal = new RunJournal([...loginJournal.entries, ...sources.entries]);
  }
  if (m.outcome === 'accept' || (m.outcome === 'either' && flow.error === undefined)) {
    expectAccepted(run, verdict, journal);
    expectChecks(run, verdict, journal);
    return;
  }
  expectRejected(run, flow, journal);
}

/**
 * Message Signing: the authorization response, when one reached the app, came as a JARM JWT
 * alone (`response`), signed with the tenant's algorithm (or `none` for the unsecured module).
 */
function expectJarmResponse(run: ModuleRun, flow: NodeFlow): void {
  if ([...flow.callback.keys()].length === 0) return; // stopped before the authorization response (discovery)
  expect([...flow.callback.keys()], 'the authorization response is one JARM `response` JWT').toEqual(['response']);
  const [header = ''] = (flow.callback.get('response') ?? '').split('.');
  const { alg } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
  expect(alg).toBe(run.definition.fault === 'jarm_alg_none' ? 'none' : signingAlgorithmOf(tenantOf(run.module)));
}

function expectRejected(run: ModuleRun, flow: NodeFlow, journal: RunJournal): void {
  const m = run.definition;
  expect(isOidcError(flow.error), `not a typed OidcError: ${String(flow.error)}`).toBe(true);
  if (m.code) expect(flow.error).toMatchObject({ code: m.code });
  if (m.step === 'userinfo') {
    expect(flow.tokens?.claims?.sub).toBe('alice');
    expect(flow.userinfo).toBeUndefined();
  } else {
    expect(flow.tokens).toBeUndefined();
    expect(flow.cacheWrites).toEqual([]);
  }
  expectStoppedAfter(rejectionPoint(run), journal);
}

async function refreshRun(run: ModuleRun, ctx: NodeRunContext): Promise<void> {
  const m = run.definition;
  const flow = await login(run, ctx, false);
  expect(flow.error).toBeUndefined();
  const refreshToken = flow.tokens?.refreshToken;
  expect(refreshToken).toEqual(expect.any(String));
  const { value: outcome, journal } = await journalled(ctx.server, async () => {
    try {
      const tokens = await flow.client.refresh(refreshToken as string, { expectedSubject: 'alice' });
      // The app goes on with what the refresh gave it.
      return { tokens, userinfo: await flow.client.getUserInfo(tokens.accessToken, { expectedSubject: 'alice' }) };
    } catch (error) {
      return { error };
    }
  });
  expect(journal.calls('token').map((c) => c.grant_type)).toEqual(['refresh_token']);
  if (m.outcome === 'accept') {
    expect('error' in outcome ? outcome.error : undefined).toBeUndefined();
    expect(outcome).toMatchObject({ userinfo: { sub: 'alice' } });
    expect(journal.calls('userinfo').map((c) => c.status)).toEqual([200]);
    return;
  }
  expect('error' in outcome && isOidcError(outcome.error)).toBe(true);
  expect(outcome).toMatchObject({ error: { code: m.code } });
  expect(journal.calls('userinfo'), 'a userinfo request after the refused refresh answer').toEqual([]);
}

async function keyRotationRun(run: ModuleRun, ctx: NodeRunContext): Promise<void> {
  const first = await login(run, ctx, true);
  expectAccepted(run, verdictOf(first), undefined);
  await ctx.server.control.keys.rotate({ tenant: tenantOf(run.module) });
  // The same RP (its JWKS cache kept) logs in again: the new kid sends it to the JWKS once more.
  const { value: second, journal } = await journalled(ctx.server, () => login(run, ctx, true));
  expectAccepted(run, verdictOf(second), journal);
  expect(journal.calls('jwks').map((c) => c.status)).toEqual([200]);
}

/**
 * The session app of the logout modules: sessions in memory, the post-logout and back-channel
 * logout routes, and the front-channel logout route when the registration names one. The run's
 * client is registered with the app's callback and post-logout URIs and `logoutFields` (the
 * logout channel the module exercises).
 */
async function startLogoutApp(
  run: ModuleRun,
  ctx: NodeRunContext,
  logoutFields: (origin: string) => Partial<ClientConfig>,
): Promise<{ app: SessionApp; clientId: string }> {
  let clientId = '';
  const app = await startSessionApp(async (origin) => {
    const fields = logoutFields(origin);
    clientId = await registerClient(run, ctx, { redirect_uris: [`${origin}/auth/callback`], post_logout_redirect_uris: [`${origin}/auth/post-logout`], ...fields });
    const client = createNodeClient(await clientOptions(run, ctx, clientId, `${origin}/auth/callback`));
    return createSessionAuth({
      client,
      secret: SESSION_SECRET,
      store: new MemorySessionStore(),
      routes: { postLogout: '/auth/post-logout' },
      backchannelLogout: { clientId },
      ...(fields.frontchannel_logout_uri ? { frontchannelLogout: { path: new URL(fields.frontchannel_logout_uri).pathname } } : {}),
    } as Parameters<typeof createSessionAuth>[0]);
  });
  return { app, clientId };
}

/**
 * The logout modules through the session layer of an app on 127.0.0.1: sign in, log out through
 * the app (RP-initiated logout at the provider's end_session), the provider's back-channel
 * logout token meets the app's route, and the person comes back through the post-logout route.
 */
async function logoutRun(run: ModuleRun, ctx: NodeRunContext): Promise<void> {
  const m = run.definition;
  const { app, clientId } = await startLogoutApp(run, ctx, (origin) => ({
    backchannel_logout_uri: `${origin}/auth/backchannel-logout`,
    backchannel_logout_session_required: true,
  }));
  try {
    expect((await app.signIn()).status).toBe(303);
    const signedIn = await app.state();
    expect(signedIn.signedIn).toBe(true);

    const { value: back, journal } = await journalled(ctx.server, async () => {
      const logout = await app.logout();
      const endSession = new URL(logout.headers.get('location') ?? '');
      const atProvider = await fetch(endSession, { headers: { cookie: app.providerCookies.header(endSession) ?? '' }, redirect: 'manual' });
      const postLogout = new URL(atProvider.headers.get('location') ?? '', endSession);
      // The person's browser carries the provider's answer back to the app; for the state modules
      // the harness plays the provider that changes (or drops) the state.
      if (run.module.endsWith('-other-state')) postLogout.searchParams.set('state', 'not-the-state-the-rp-sent');
      if (run.module.endsWith('-no-state')) postLogout.searchParams.delete('state');
      return { endSession, atProvider, postLogout, answer: await app.get(postLogout.pathname + postLogout.search) };
    });
    expect((await app.state()).signedIn).toBe(false);
    expect([302, 303]).toContain(back.atProvider.status);
    expect(back.postLogout.href.startsWith(`${app.origin}/auth/post-logout`)).toBe(true);

    const [endSession] = journal.calls('logout');
    expect(endSession?.params).toMatchObject({ id_token_hint: '[redacted]', post_logout_redirect_uri: `${app.origin}/auth/post-logout` });
    if (m.checks?.includes('logoutState')) expect(endSession?.params.state).toBe('[redacted]');

    if (m.step === 'backchannelLogout') {
      expect(journal.backchannelDeliveries().map((d) => d.client_id)).toEqual([clientId]);
      expect(app.backchannelAnswers).toHaveLength(1);
      const [delivery] = app.backchannelAnswers;
      if (m.outcome === 'accept') expect(delivery?.status).toBe(200);
      else {
        expect(delivery).toMatchObject({ status: 400, cacheControl: 'no-store' });
        if (m.code) expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining(m.code) });
      }
      expect(back.answer.status).toBe(303);
      return;
    }
    if (m.outcome === 'accept') {
      expect(back.answer.status).toBe(303);
      expect(back.answer.headers.get('location')).toBe(`${app.origin}/`);
    } else {
      // A post-logout redirect without the state sent: the app goes nowhere on its word.
      expect(back.answer.status).toBe(400);
      expect(await back.answer.text()).toContain(m.code ?? '');
      expect(back.answer.headers.get('location')).toBeNull();
    }
  } finally {
    app.close();
  }
}

/**
 * Third-party initiated login (OIDC Core 4) through the session layer's initiation route: the
 * provider's `/oidc/initiate-login` sends the person to the client's `initiate_login_uri` with
 * `iss`, `login_hint` and `target_link_uri`; the app starts its login there, and after the
 * callback the person lands on the target. No authorization request before the initiation.
 */
async function thirdPartyLoginRun(run: ModuleRun, ctx: NodeRunContext): Promise<void> {
  let clientId = '';
  const app = await startSessionApp(async (origin) => {
    clientId = await registerClient(run, ctx, { redirect_uris: [`${origin}/auth/callback`], initiate_login_uri: `${origin}/auth/initiate-login` } as Partial<ClientConfig>);
    const client = createNodeClient(await clientOptions(run, ctx, clientId, `${origin}/auth/callback`));
    return createSessionAuth({ client, secret: SESSION_SECRET, routes: { initiateLogin: '/auth/initiate-login' } } as Parameters<typeof createSessionAuth>[0]);
  });
  try {
    const issuer = `${ctx.origin}/${tenantOf(run.module)}`;
    const { value: landed, journal } = await journalled(ctx.server, async () => {
      const target = `${app.origin}/state`;
      const initiation = await fetch(`${issuer}/oidc/initiate-login?${new URLSearchParams({ client_id: clientId, login_hint: 'alice', target_link_uri: target })}`, { redirect: 'manual' });
      expect(initiation.status).toBe(303);
      const at = new URL(initiation.headers.get('location') ?? '');
      expect(`${at.origin}${at.pathname}`).toBe(`${app.origin}/auth/initiate-login`);
      expect(at.searchParams.get('iss')).toBe(issuer);
      return app.signIn(`${at.pathname}${at.search}`);
    });
    expect(landed.status).toBe(303);
    // The app sends the person on to the target (its own origin: a path will do).
    expect(new URL(landed.headers.get('location') ?? '', app.origin).href).toBe(`${app.origin}/state`);
    expect((await app.state()).signedIn).toBe(true);
    const [initiate] = journal.entries.filter((e) => e.endpoint === '/oidc/initiate-login');
    expect(initiate?.seq).toBeLessThan(journal.first('authorize'));
    expect(journal.calls('authorize')[0]?.params.login_hint).toBe('alice');
    expect(journal.calls('token').map((c) => c.status)).toEqual([200]);
  } finally {
    app.close();
  }
}

/**
 * Front-Channel Logout 1.0 through the session layer's front-channel route: at logout the
 * provider's page frames each client's `frontchannel_logout_uri` (with `iss` and `sid`); the
 * person's browser loads the frame (a third-party frame: no app cookie goes with it) and the app
 * ends the sessions of that `sid`. RP-initiated: the app's own logout goes to end_session, then
 * the person comes back to the post-logout route. OP-initiated: the logout starts at the
 * provider, and only the frame can end the app's session.
 */
async function frontChannelLogoutRun(run: ModuleRun, ctx: NodeRunContext): Promise<void> {
  const opInitiated = run.module.endsWith('-opinitlogout');
  const { app } = await startLogoutApp(run, ctx, (origin) => ({
    frontchannel_logout_uri: `${origin}/auth/frontchannel-logout`,
    frontchannel_logout_session_required: true,
  }));
  try {
    expect((await app.signIn()).status).toBe(303);
    const { idToken } = await app.state();
    const issuer = `${ctx.origin}/${tenantOf(run.module)}`;
    const { value, journal } = await journalled(ctx.server, async () => {
      let endSession: URL;
      if (opInitiated) {
        endSession = new URL(`${issuer}/oidc/logout`);
        endSession.searchParams.set('id_token_hint', idToken ?? '');
      } else endSession = new URL((await app.logout()).headers.get('location') ?? '');
      const page = await fetch(endSession, { headers: { cookie: app.providerCookies.header(endSession) ?? '' }, redirect: 'manual' });
      const html = await page.text();
      const data = JSON.parse(/<script type="application\/json" id="frontchannel">([^<]*)<\/script>/.exec(html)?.[1] ?? '{}') as { frames?: string[]; next?: string };
      const frames = await Promise.all((data.frames ?? []).map((src) => fetch(src, { redirect: 'manual' })));
      const afterFrames = await app.state();
      const next = data.next === undefined ? undefined : new URL(data.next);
      return { page, data, frames: frames.map((f) => f.status), afterFrames, back: next ? await app.get(`${next.pathname}${next.search}`) : undefined };
    });
    expect(value.page.status).toBe(200);
    expect(value.data.frames).toHaveLength(1);
    const frame = new URL(value.data.frames?.[0] ?? '');
    expect(`${frame.origin}${frame.pathname}`).toBe(`${app.origin}/auth/frontchannel-logout`);
    expect(frame.searchParams.get('iss')).toBe(issuer);
    expect(frame.searchParams.get('sid')).toEqual(expect.any(String));
    expect(value.frames).toEqual([200]);
    expect(value.afterFrames.signedIn).toBe(false);
    expect(journal.calls('logout')).toHaveLength(1);
    if (opInitiated) {
      expect(value.back).toBeUndefined();
      return;
    }
    expect(value.back?.status).toBe(303);
    expect(value.back?.headers.get('location')).toBe(`${app.origin}/`);
  } finally {
    app.close();
  }
}
