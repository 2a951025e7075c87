// Every fault of the reference server, met by @oidc-rp/node over real HTTP: the login (or the
// step the fault breaks) fails with the fault's own OidcError code and hands the app nothing,
// and the same flow with a well-behaved client of the same server succeeds. The DPoP faults'
// rows log in with createNodeClient({ dpop }), the PAR faults' with par: true, the client
// assertion faults' with clientAuth: privateKeyJwt(key); their well-behaved counterparts too.
import { clearJwksCache, isOidcError } from '@oidc-rp/core';
import { FAULTS, createReferenceServer, type Listening, type ReferenceServer, type RequestInfo } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { MemorySessionStore, createNodeClient, createSessionAuth, dpop, privateKeyJwt, requestObjectSigner } from '@oidc-rp/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CASES, caseName, casesFor, requestTimeoutFor, testTimeoutFor, type FaultCase } from './support/catalogue';
import { CLIENT_PRIVATE_JWK, CLIENT_SECRET, NODE_INITIATE_LOGIN, NODE_REDIRECT, SCOPE, SIGNED_USERINFO_CLIENT, TENANT, clientId, conformanceConfig, tenantIds, tenantOf, wellBehavedTenantOf } from './support/config';
import { runNodeFlow, type NodeFlow } from './support/node-flow';
import { startSessionApp } from './support/session-app';

let server: ReferenceServer;
let listening: Listening;
const requests: RequestInfo[] = [];

beforeAll(async () => {
  server = await createReferenceServer(conformanceConfig(), { logger: false, developmentKeys: true, onRequest: (info) => requests.push(info) });
  listening = await server.listen({ port: 0, host: '127.0.0.1' });
  // Each tenant generates its RSA signing key in the background at start, and its first token
  // request waits for it: wait here (the JWKS publishes the key), or whichever case runs first
  // pays seconds of key generation on a busy machine inside its client's request timeout.
  for (const tenant of tenantIds()) {
    const response = await fetch(`${listening.origin}/${tenant}/oidc/jwks`);
    if (!response.ok) throw new Error(`the JWKS of tenant ${tenant} answered ${response.status}`);
  }
});
afterAll(() => listening.close());
// Each test starts with a cold JWKS cache, so no test's key refetch (and its cooldown) leaks into the next.
beforeEach(() => clearJwksCache());

const issuerOf = (c?: FaultCase) => `${listening.origin}/${tenantOf(c?.fault)}`;
/** The issuer of a row's well-behaved counterpart (the same algorithm's tenant). */
const wellIssuerOf = (c: FaultCase) => `${listening.origin}/${wellBehavedTenantOf(c.fault)}`;
const jwksRequests = () => requests.filter((r) => r.method === 'GET' && r.path === `/${TENANT}/oidc/jwks`).length;

async function flowOptions(c: FaultCase) {
  return {
    ...(c.responseType ? { responseType: c.responseType } : {}),
    userinfo: c.step === 'userinfo',
    ...(c.dpop ? { dpop: await dpop() } : {}),
    ...(c.par ? { par: true } : {}),
    ...(c.clientAssertion ? { clientAuth: privateKeyJwt(CLIENT_PRIVATE_JWK) } : {}),
    ...(c.signingAlgorithm ? { signingAlgorithm: c.signingAlgorithm } : {}),
    ...(c.jarm ? { responseMode: 'jwt' as const } : {}),
    ...(c.requestObject ? { requestObject: { signer: requestObjectSigner({ key: CLIENT_PRIVATE_JWK }) } } : {}),
    ...(c.signedUserinfo ? { userinfoSigningAlgorithm: 'RS256' } : {}),
  };
}

const faultyFlowOptions = async (c: FaultCase) => {
  const timeout = requestTimeoutFor(c);
  return { ...(await flowOptions(c)), ...(timeout ? { timeout } : {}) };
};

const tokenRequests = (flow: NodeFlow) => flow.sent.filter((s) => s.path.endsWith('/oidc/token'));

function expectLoggedIn(flow: NodeFlow, c: FaultCase): void {
  expect(flow.error).toBeUndefined();
  expect(flow.tokens?.claims).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  expect(flow.tokens?.accessToken).toEqual(expect.any(String));
  if (c.step === 'userinfo') expect(flow.userinfo).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  if (c.par) expect(flow.sent.filter((s) => s.path.endsWith('/oauth/par')).map((s) => s.status)).toEqual([201]);
  if (c.clientAssertion) expect(tokenRequests(flow).map((s) => s.status)).toEqual([200]);
  if (c.dpop) {
    // Bound tokens, every token request and userinfo call with a proof, userinfo with the DPoP scheme.
    expect(flow.tokens?.tokenType).toBe('DPoP');
    expect(tokenRequests(flow).every((s) => s.proof)).toBe(true);
    for (const s of flow.sent.filter((entry) => entry.path.endsWith('/oidc/userinfo'))) expect(s).toMatchObject({ proof: true, scheme: 'DPoP' });
  }
}

/** Nothing reached the app: no tokens (or no userinfo claims), nothing cached, no secret in the message. */
function expectNothingKept(flow: NodeFlow, c: FaultCase): void {
  if (c.step === 'userinfo') expect(flow.userinfo).toBeUndefined();
  else expect(flow.tokens).toBeUndefined();
  expect(flow.cacheWrites).toEqual([]);
  const message = (flow.error as Error).message;
  for (const name of ['code', 'state', 'id_token', 'access_token']) {
    const value = flow.callback.get(name);
    if (value) expect(message).not.toContain(value);
  }
  if (flow.nonce) expect(message).not.toContain(flow.nonce);
  if (flow.tokens) expect(message).not.toContain(flow.tokens.accessToken);
}

describe('@oidc-rp/node against the misbehaving reference server', () => {
  it('the catalogue covers every fault the server offers', () => {
    expect(CASES.map((c) => c.fault).sort()).toEqual([...FAULTS].sort());
  });

  it('runs every row of the catalogue', () => {
    expect(casesFor('node')).toEqual(CASES);
  });

  for (const c of casesFor('node')) {
    if (c.step === 'backchannelLogout') {
      it(caseName(c, c.node), () => runBackchannelCase(c));
      continue;
    }
    if (c.step === 'initiateLogin') {
      it(caseName(c, c.node), () => runInitiateLoginCase(c));
      continue;
    }
    if (c.step === 'refresh') {
      it(caseName(c, c.node), async () => {
        // The login is untouched; the refresh answers with an ID token the client must refuse.
        const flow = await runNodeFlow({ issuer: issuerOf(c), clientId: clientId('node', c.fault), ...(await faultyFlowOptions(c)) });
        expectLoggedIn(flow, c);
        const refreshToken = flow.tokens?.refreshToken as string;
        expect(refreshToken).toEqual(expect.any(String));
        await expect(flow.client.refresh(refreshToken, { expectedSubject: 'alice' })).rejects.toMatchObject({ code: c.node });
      });
      continue;
    }
    if (c.node === 'accepted') {
      it(caseName(c, 'accepted'), async () => {
        // A well-behaved login first: the JWKS is cached before the faulty client's token comes.
        expectLoggedIn(await runNodeFlow({ issuer: wellIssuerOf(c), clientId: clientId('node'), ...(await flowOptions(c)) }), c);
        const before = jwksRequests();
        const flow = await runNodeFlow({ issuer: issuerOf(c), clientId: clientId('node', c.fault), ...(await faultyFlowOptions(c)) });
        expectLoggedIn(flow, c);
        if (c.fault === 'jwks_key_rotated') expect(jwksRequests() - before).toBe(1); // one refetch found the new key
        if (c.fault === 'token_response_token_type_lowercase') expect(flow.tokens?.tokenType.toLowerCase()).toBe('bearer');
        if (c.fault === 'userinfo_dpop_challenge_odd_case') {
          // The `dPoP` challenge is read as DPoP: one 401 use_dpop_nonce at userinfo, one retry with the nonce.
          expect(flow.sent.filter((s) => s.path.endsWith('/oidc/userinfo')).map((s) => s.status)).toEqual([401, 200]);
        }
        if (c.fault === 'dpop_nonce_required') {
          // The demanded nonce: one 400 use_dpop_nonce, one retry with it; userinfo then needs no retry.
          expect(tokenRequests(flow).map((s) => s.status)).toEqual([400, 200]);
          expect(flow.sent.filter((s) => s.path.endsWith('/oidc/userinfo')).map((s) => s.status)).toEqual([200]);
        }
      }, testTimeoutFor(c));
      continue;
    }
    it(caseName(c, c.node), async () => {
      const flow = await runNodeFlow({ issuer: issuerOf(c), clientId: clientId('node', c.fault), ...(await faultyFlowOptions(c)) });
      expect(isOidcError(flow.error)).toBe(true);
      expect(flow.error).toMatchObject({ code: c.node, ...(c.oauthError ? { error: c.oauthError } : {}) });
      expectNothingKept(flow, c);
      // A refused proof is not retried (a new request would get a new proof): one token request.
      if (c.dpop) expect(tokenRequests(flow)).toEqual([expect.objectContaining({ proof: true })]);
      // The login was pushed, once; a refused push or request_uri is not retried.
      if (c.par) expect(flow.sent.filter((s) => s.path.endsWith('/oauth/par'))).toHaveLength(1);
      // A refused assertion is not retried (a new request would get a new assertion): one token request.
      if (c.clientAssertion) expect(tokenRequests(flow)).toEqual([expect.objectContaining({ status: 401 })]);
      // The FAPI 2.0 Message Signing plan's pass rule: no token request after a refused JARM response.
      if (c.jarm) expect(tokenRequests(flow)).toEqual([]);

      const wellBehaved = await runNodeFlow({ issuer: wellIssuerOf(c), clientId: c.signedUserinfo ? SIGNED_USERINFO_CLIENT : clientId('node'), ...(await flowOptions(c)) });
      expectLoggedIn(wellBehaved, c);
    }, testTimeoutFor(c));
  }

  it('dpop_nonce_required mid-session at userinfo: once the nonce the client holds expires, getUserInfo retries once with the new one', async () => {
    const flow = await runNodeFlow({ issuer: issuerOf(), clientId: clientId('node', 'dpop_nonce_required'), dpop: await dpop() });
    expect(flow.error).toBeUndefined();
    await server.control.dpop.expireNonce();
    const before = flow.sent.length;
    const accessToken = flow.tokens?.accessToken ?? '';
    await expect(flow.client.getUserInfo(accessToken, { expectedSubject: 'alice' })).resolves.toMatchObject({ sub: 'alice' });
    expect(flow.sent.slice(before)).toEqual([
      expect.objectContaining({ path: `/${TENANT}/oidc/userinfo`, status: 401, proof: true, scheme: 'DPoP' }),
      expect.objectContaining({ path: `/${TENANT}/oidc/userinfo`, status: 200, proof: true, scheme: 'DPoP' }),
    ]);
  });

  it('redirect_wrong_state through finishLogin (the app keeps the transaction itself) → state_mismatch', async () => {
    const client = createNodeClient({
      issuer: issuerOf(),
      clientId: clientId('node', 'redirect_wrong_state'),
      clientSecret: CLIENT_SECRET,
      redirectUri: NODE_REDIRECT,
      scope: SCOPE,
    });
    const { url, transaction } = await client.startLogin();
    const result = await completeLogin(url);
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    const tokenCalls = requests.filter((r) => r.path.endsWith('/oidc/token')).length;
    await expect(client.finishLogin(result.location, transaction)).rejects.toMatchObject({ code: 'state_mismatch' });
    expect(requests.filter((r) => r.path.endsWith('/oidc/token')).length).toBe(tokenCalls); // the code was never redeemed
  });
});

/**
 * A third-party login initiation row: the provider's `/oidc/initiate-login` sends the browser to
 * the row's client's `initiate_login_uri`; `readInitiateLogin` refuses what the faulty client
 * gets with the row's code, and accepts the well-behaved client's (its `login_hint` passed on).
 */
async function runInitiateLoginCase(c: FaultCase): Promise<void> {
  const initiation = async (issuer: string, id: string) => {
    const response = await fetch(`${issuer}/oidc/initiate-login?client_id=${encodeURIComponent(id)}&login_hint=alice`, { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(NODE_INITIATE_LOGIN);
    const client = createNodeClient({ issuer, clientId: id, clientSecret: CLIENT_SECRET, redirectUri: NODE_REDIRECT, scope: SCOPE });
    return () => client.readInitiateLogin(location.searchParams, { targetOrigins: [new URL(NODE_REDIRECT).origin] });
  };
  const faulty = await initiation(issuerOf(c), clientId('node', c.fault));
  let refusal: unknown;
  try {
    faulty();
  } catch (error) {
    refusal = error;
  }
  expect(isOidcError(refusal)).toBe(true);
  expect(refusal).toMatchObject({ code: c.node });
  const wellBehaved = await initiation(wellIssuerOf(c), clientId('node'));
  expect(wellBehaved()).toEqual({ loginHint: 'alice' });
}

/**
 * A back-channel row: the row's client, as an app on 127.0.0.1 with the session layer and its
 * back-channel route (registered at the provider through the control API), signs alice in; she
 * logs out at the provider (RP-initiated logout), which POSTs its logout token to the route.
 * The route answers 400 with `Cache-Control: no-store` naming the row's code, and the session
 * goes on; the provider, told no, does not retry.
 */
async function runBackchannelCase(c: FaultCase): Promise<void> {
  const id = clientId('node', c.fault);
  const app = await startSessionApp(async (origin) => {
    await server.control.clients.update(
      id,
      { redirect_uris: [`${origin}/auth/callback`], post_logout_redirect_uris: [`${origin}/`], backchannel_logout_uri: `${origin}/auth/backchannel-logout` },
      { tenant: TENANT },
    );
    const client = createNodeClient({
      issuer: issuerOf(c),
      clientId: id,
      clientSecret: CLIENT_SECRET,
      redirectUri: `${origin}/auth/callback`,
      scope: 'openid',
      cookieSecret: 'conformance-tx-Hq3vN8kLw2PzR6tYb9XcM4sJ',
      ...(c.signingAlgorithm ? { signingAlgorithm: c.signingAlgorithm } : {}),
    });
    return createSessionAuth({ client, secret: 'conformance-session-Zt4qW8nRk2VbY7cLx5mJp3sD', store: new MemorySessionStore(), backchannelLogout: { clientId: id } });
  });
  try {
    // Sign in: the app's login route, the provider's form (its cookies kept for the logout), the callback.
    expect((await app.signIn()).status).toBe(303);
    const signedIn = await app.state();
    expect(signedIn.signedIn).toBe(true);

    const logout = new URL(`${issuerOf(c)}/oidc/logout`);
    logout.searchParams.set('id_token_hint', signedIn.idToken as string);
    expect((await fetch(logout, { headers: { cookie: app.providerCookies.header(logout) ?? '' }, redirect: 'manual' })).status).toBe(200);

    expect(app.backchannelAnswers).toHaveLength(1);
    expect(app.backchannelAnswers[0]).toMatchObject({ status: 400, cacheControl: 'no-store' });
    expect(JSON.parse(app.backchannelAnswers[0]?.body ?? '')).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining(c.node) });
    expect((await app.state()).signedIn).toBe(true);
  } finally {
    app.close();
  }
}
