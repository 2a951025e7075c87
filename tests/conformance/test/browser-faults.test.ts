// @vitest-environment happy-dom
// Every fault of the reference server, met by @oidc-rp/browser in a DOM environment over
// real HTTP (cross-origin, so the provider's CORS answers count): the login (or the step the
// fault breaks) fails with the fault's own OidcError code, nothing is stored and the snapshot
// is not authenticated; the same flow with a well-behaved client succeeds.
import { createBrowserClient, discovery, loginFromInitiation, memoryStorage, serviceProvider, type BrowserClientOptions } from '@oidc-rp/browser';
import { get } from 'node:http';
import { clearJwksCache, isOidcError } from '@oidc-rp/core';
import { CLIENT_ASSERTION_FAULTS, DPOP_FAULTS, FAULTS, JARM_FAULTS, PAR_FAULTS } from '@oidc-rp/reference-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runBrowserFlow, storedSessions, type BrowserFlow } from './support/browser-flow';
import { CASES, caseName, casesFor, requestTimeoutFor, testTimeoutFor, type FaultCase } from './support/catalogue';
import { SPA_INITIATE_LOGIN, SPA_ORIGIN, SPA_REDIRECT, TENANT, clientId, conformanceConfig, tenantIds, tenantOf, wellBehavedTenantOf } from './support/config';
import { startServerProcess, type ServerProcess } from '@oidc-rp/reference-server/testing';

let provider: ServerProcess;
beforeAll(async () => {
  provider = await startServerProcess(conformanceConfig());
  // Each tenant generates its RSA signing key in the background at start; its first token
  // request waits for it. Wait here (the JWKS publishes the key), so no case pays for it.
  for (const tenant of tenantIds()) {
    const response = await fetch(`${provider.origin}/${tenant}/oidc/jwks`);
    if (!response.ok) throw new Error(`the JWKS of tenant ${tenant} answered ${response.status}`);
  }
});

const timeoutOf = (c: FaultCase) => {
  const timeout = requestTimeoutFor(c);
  return timeout ? { timeout } : {};
};
afterAll(() => provider.stop());
beforeEach(() => {
  clearJwksCache();
  sessionStorage.clear();
});

const issuerOf = (c?: FaultCase) => `${provider.origin}/${tenantOf(c?.fault)}`;
/** The issuer of a row's well-behaved counterpart (the same algorithm's tenant). */
const wellIssuerOf = (c: FaultCase) => `${provider.origin}/${wellBehavedTenantOf(c.fault)}`;
const jwksRequests = async () => (await provider.requests()).filter((entry) => entry === `GET /${TENANT}/oidc/jwks`).length;

async function expectLoggedIn(flow: BrowserFlow, c: FaultCase): Promise<void> {
  expect(flow.error).toBeUndefined();
  expect(flow.client.getSnapshot()).toMatchObject({ status: 'authenticated', user: { sub: 'alice', email: 'alice@example.com' } });
  expect(await flow.client.getAccessToken()).toEqual(expect.any(String));
  expect(storedSessions()).toHaveLength(1);
  if (c.step === 'userinfo') expect(flow.userinfo).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
}

/** Nothing kept: no session in memory or storage, not authenticated, no secret in the message. */
async function expectNothingKept(flow: BrowserFlow, c: FaultCase): Promise<void> {
  const { client } = flow;
  if (c.step === 'userinfo') {
    // The login itself was fine: the session stays, and the foreign claims are not used.
    expect(flow.userinfo).toBeUndefined();
    expect(client.getUser()?.sub).toBe('alice');
    return;
  }
  expect(client.getSnapshot().status).not.toBe('authenticated');
  expect(client.getUser()).toBeUndefined();
  await expect(client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });
  expect(storedSessions()).toEqual([]);
  const message = (flow.error as Error).message;
  if (flow.nonce) expect(message).not.toContain(flow.nonce);
  if (flow.callbackUrl) {
    const url = new URL(flow.callbackUrl);
    const callback = url.hash ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
    for (const name of ['code', 'state', 'access_token', 'id_token']) {
      const value = callback.get(name);
      if (value) {
        expect(message).not.toContain(value);
        for (const key of Object.keys(sessionStorage)) expect(sessionStorage.getItem(key)).not.toContain(value);
      }
    }
  }
}

describe('@oidc-rp/browser against the misbehaving reference server', () => {
  it('the catalogue covers every fault the server offers', () => {
    expect(CASES.map((c) => c.fault).sort()).toEqual([...FAULTS].sort());
  });

  it('runs every row but the DPoP ones (proven in Chromium: browser-dpop-interop and the browser package), the client assertion ones (confidential clients only), the JARM ones (no browser part) and the back-channel logout ones (a server route)', () => {
    const skipped = CASES.filter((c) => !casesFor('browser').includes(c));
    const logoutTokenFaults = FAULTS.filter((f) => f.startsWith('logout_token_'));
    // And the request-object and signed-userinfo ones: the browser client sends no request objects and asks for no signed userinfo.
    const confidentialOnly = ['request_object_refused', 'userinfo_signed_wrong_alg', 'userinfo_signed_unknown_key', 'userinfo_signed_wrong_iss', 'userinfo_signed_wrong_aud', 'userinfo_signed_alg_none', 'userinfo_encrypted'];
    const dpopOddCase = ['token_response_token_type_inverted_case', 'userinfo_dpop_challenge_odd_case'];
    expect(skipped.map((c) => c.fault).sort()).toEqual([...DPOP_FAULTS, ...dpopOddCase, ...CLIENT_ASSERTION_FAULTS, ...JARM_FAULTS, ...logoutTokenFaults, ...confidentialOnly].sort());
    // The PAR rows run with the par() part.
    for (const fault of PAR_FAULTS) expect(casesFor('browser').find((c) => c.fault === fault)?.par).toBe(true);
  });

  for (const c of casesFor('browser')) {
    const outcome = c.browser;
    if (outcome === undefined) throw new Error(`the catalogue row ${c.fault} runs through the browser wrapper but says nothing of its outcome`);
    if (typeof outcome === 'object') {
      it(`${c.fault} cannot reach the browser client: ${outcome.notApplicable}`, async () => {
        // An untyped responseType is not an option and never reaches the request (front-channel flows are parts).
        const redirects: string[] = [];
        const hybrid = {
          provider: serviceProvider(issuerOf(c)),
          clientId: clientId('spa', c.fault),
          redirectUri: SPA_REDIRECT,
          responseType: 'code id_token',
          transactionStorage: memoryStorage(),
          navigate: { currentUrl: () => SPA_REDIRECT, redirect: (url: string) => void redirects.push(url), replaceUrl: () => undefined },
        };
        await createBrowserClient(hybrid as BrowserClientOptions).login();
        expect(new URL(redirects[0]!).searchParams.get('response_type')).toBe('code');
      });
      continue;
    }
    if (c.step === 'initiateLogin') {
      it(caseName(c, outcome), async () => {
        // The faulty client's initiation is refused before any navigation; the well-behaved one's starts the login with its hint.
        const faulty = await initiateAt(issuerOf(c), clientId('spa', c.fault));
        await expect(faulty.started).rejects.toMatchObject({ code: outcome });
        expect(faulty.redirects).toEqual([]);
        const wellBehaved = await initiateAt(wellIssuerOf(c), clientId('spa'));
        await expect(wellBehaved.started).resolves.toEqual({ loginHint: 'alice' });
        expect(wellBehaved.redirects.map((url) => new URL(url).searchParams.get('login_hint'))).toEqual(['alice']);
      });
      continue;
    }
    if (c.step === 'refresh') {
      it(caseName(c, outcome), async () => {
        // The login is untouched; the refreshed ID token is refused and the session ends.
        const flow = await runBrowserFlow(provider, { issuer: issuerOf(c), clientId: clientId('spa', c.fault) });
        await expectLoggedIn(flow, c);
        await expect(flow.client.getAccessToken({ forceRefresh: true })).rejects.toMatchObject({ code: outcome });
        expect(flow.client.getSnapshot()).toMatchObject({ status: 'unauthenticated', error: { code: outcome } });
        await expect(flow.client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });
        expect(storedSessions()).toEqual([]);
      });
      continue;
    }
    if (outcome === 'accepted') {
      it(caseName(c, outcome), async () => {
        // A well-behaved login first: the JWKS is cached before the faulty client's token comes.
        await expectLoggedIn(await runBrowserFlow(provider, { issuer: wellIssuerOf(c), clientId: clientId('spa'), userinfo: c.step === 'userinfo' }), c);
        sessionStorage.clear();
        const before = await jwksRequests();
        const flow = await runBrowserFlow(provider, { issuer: issuerOf(c), clientId: clientId('spa', c.fault), userinfo: c.step === 'userinfo', par: c.par, signingAlgorithm: c.signingAlgorithm, ...timeoutOf(c) });
        await expectLoggedIn(flow, c);
        if (c.fault === 'jwks_key_rotated') expect((await jwksRequests()) - before).toBe(1); // one refetch found the new key
      }, testTimeoutFor(c));
      continue;
    }
    it(caseName(c, outcome), async () => {
      const flow = await runBrowserFlow(provider, { issuer: issuerOf(c), clientId: clientId('spa', c.fault), userinfo: c.step === 'userinfo', par: c.par, signingAlgorithm: c.signingAlgorithm, ...(c.responseType ? { responseType: c.responseType } : {}), ...timeoutOf(c) });
      expect(isOidcError(flow.error)).toBe(true);
      expect(flow.error).toMatchObject({ code: outcome, ...(c.oauthError ? { error: c.oauthError } : {}) });
      await expectNothingKept(flow, c);

      sessionStorage.clear();
      const wellBehaved = await runBrowserFlow(provider, { issuer: wellIssuerOf(c), clientId: clientId('spa'), userinfo: c.step === 'userinfo', signingAlgorithm: c.signingAlgorithm });
      await expectLoggedIn(wellBehaved, c);
    }, testTimeoutFor(c));
  }
});

/** Where the provider's `/oidc/initiate-login` sends the browser for `id` (read with node:http: no CORS there). */
function initiationRedirect(issuer: string, id: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`${issuer}/oidc/initiate-login?client_id=${encodeURIComponent(id)}&login_hint=alice`, (response) => {
      response.resume();
      if (response.statusCode === 303 && response.headers.location) resolve(response.headers.location);
      else reject(new Error(`initiate-login answered ${response.statusCode}`));
    }).on('error', reject);
  });
}

/** `loginFromInitiation` on the SPA's initiate_login_uri page, the navigations it made recorded. */
async function initiateAt(issuer: string, id: string): Promise<{ started: Promise<unknown>; redirects: string[] }> {
  const location = await initiationRedirect(issuer, id);
  expect(`${new URL(location).origin}${new URL(location).pathname}`).toBe(SPA_INITIATE_LOGIN);
  const redirects: string[] = [];
  const client = createBrowserClient({
    provider: discovery(issuer),
    clientId: id,
    redirectUri: SPA_REDIRECT,
    transactionStorage: memoryStorage(),
    navigate: { currentUrl: () => location, replaceUrl: () => undefined, redirect: (url) => void redirects.push(url), openPopup: () => null },
  });
  const started = loginFromInitiation(client, { url: location, targetOrigins: [SPA_ORIGIN] });
  await started.catch(() => undefined);
  return { started, redirects };
}

// The deprecated implicit flow: the ID token and access token come in the fragment, so the
// front-channel checks (at_hash required and matching) are the ones that hold the line.
describe('@oidc-rp/browser, implicit flow (id_token token), against the misbehaving reference server', () => {
  const FRONT_CHANNEL = new Set([
    'id_token_bad_signature', 'id_token_alg_none', 'id_token_wrong_iss', 'id_token_wrong_aud', 'id_token_expired',
    'id_token_nonce_mismatch', 'id_token_missing_nonce', 'id_token_bad_at_hash', 'redirect_missing_state', 'redirect_wrong_iss', 'redirect_missing_iss',
    'id_token_missing_at_hash', 'id_token_missing_iat', 'id_token_missing_aud', 'id_token_missing_iss', 'id_token_missing_exp',
  ]);
  for (const c of CASES.filter((entry) => FRONT_CHANNEL.has(entry.fault))) {
    const outcome = c.implicit ?? c.browser;
    if (typeof outcome !== 'string') continue;
    if (outcome === 'accepted') {
      it(caseName(c, outcome), async () => {
        const flow = await runBrowserFlow(provider, { issuer: issuerOf(c), clientId: clientId('spa', c.fault), responseType: 'id_token token' });
        await expectLoggedIn(flow, c);
      });
      continue;
    }
    it(caseName(c, outcome), async () => {
      const flow = await runBrowserFlow(provider, { issuer: issuerOf(c), clientId: clientId('spa', c.fault), responseType: 'id_token token' });
      expect(isOidcError(flow.error)).toBe(true);
      expect(flow.error).toMatchObject({ code: outcome });
      await expectNothingKept(flow, c);

      sessionStorage.clear();
      await expectLoggedIn(await runBrowserFlow(provider, { issuer: issuerOf(), clientId: clientId('spa'), responseType: 'id_token token' }), c);
    });
  }
});
