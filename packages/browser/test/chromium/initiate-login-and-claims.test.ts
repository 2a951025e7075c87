// @vitest-environment node
/**
 * Third-party initiated login (`loginFromInitiation`) and claim sources (`resolveClaims`) in
 * real Chromium, against the reference server over real HTTP. The provider's
 * `/oidc/initiate-login` sends the browser to the client's `initiate_login_uri`, a page of the
 * app that calls `loginFromInitiation(client)`: a valid initiation logs alice in on the real
 * login form and returns to the target's path; a forged `iss` or an off-origin
 * `target_link_uri` starts no login. After a login, the provider's claim faults put aggregated
 * and distributed claims in userinfo: verified ones are used, the others are not (and an
 * untrusted or plain-http claims endpoint is never called).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient, ResolvedClaims } from '../../src/index';
import { type ChromiumApp, type Reference, startChromiumApp } from '../support/chromium-app';
import { signInOnLoginForm } from '../support/provider-pages';

declare global {
  interface Window {
    oidcRp: typeof import('../../src/index');
    client: BrowserClient;
    issuer: string;
    /** The initiation page's outcome: the error code when refused. */
    initiation: Promise<{ code?: string }>;
    /** The callback page's outcome: the login's appState, or the error code. */
    callback: Promise<{ appState?: unknown; code?: string }>;
  }
}

let env: ChromiumApp;
let appOrigin: string;
let reference: Reference;
let issuer: string;
const CLIENT = 'spa-initiated';

// The app: /initiate-login starts the initiated login, /callback finishes it, anything else inits.
const PAGE = `<!doctype html><title>app</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { createBrowserClient, discovery, loginFromInitiation } = window.oidcRp;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: ${JSON.stringify(CLIENT)},
    redirectUri: location.origin + '/callback',
    scope: 'openid profile email',
    tokenStorage: 'sessionStorage',
  });
  if (location.pathname === '/initiate-login') {
    window.initiation = loginFromInitiation(window.client).then(() => ({}), (error) => ({ code: error.code }));
  } else if (location.pathname === '/callback') {
    window.callback = window.client.handleRedirectCallback().then((r) => ({ appState: r.appState }), (error) => ({ code: error.code }));
  } else {
    void window.client.init();
  }
</script>`;

beforeAll(async () => {
  env = await startChromiumApp({
    page: PAGE,
    clients: (origin) => [
      {
        client_id: CLIENT,
        redirect_uris: [`${origin}/callback`],
        initiate_login_uri: `${origin}/initiate-login`,
        grant_types: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'email', 'offline_access'],
        skip_consent: true,
      },
    ],
  });
  ({ reference, issuer } = env);
  appOrigin = env.app.origin;
});

afterAll(() => env?.close());

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await env.profile();
  return { context, page: await context.newPage() };
}

const authorizeRequests = () => reference.requests().filter((entry) => entry.endpoint === '/oidc/authorize');
// GETs only: the cross-origin call with an Authorization header is preflighted (OPTIONS) first.
const claimsSourceCalls = () => reference.requests().filter((entry) => entry.endpoint === '/oidc/claims-source' && entry.method === 'GET').length;

/** The provider's initiation link for the client, as its "apps" page would show it. */
function initiationLink(params: Record<string, string>): string {
  return `${issuer}/oidc/initiate-login?${new URLSearchParams({ client_id: CLIENT, ...params })}`;
}

/**
 * Signs in on the provider's real login form, unless the demo tenant signs the hinted user in
 * at once (its `demo_login` takes a `login_hint` without a password); then waits for the
 * callback page's outcome.
 */
async function signInAndReturn(page: Page): Promise<{ appState?: unknown; code?: string }> {
  await signInOnLoginForm(page, appOrigin);
  await page.waitForFunction(() => window.callback !== undefined);
  return page.evaluate(() => window.callback);
}

/** The initiation page's refusal, once it has one; and no login was started. */
async function refusedInitiation(page: Page, link: string): Promise<string | undefined> {
  const before = authorizeRequests().length;
  await page.goto(link);
  await page.waitForURL((url) => url.origin === appOrigin && url.pathname === '/initiate-login');
  await page.waitForFunction(() => window.initiation !== undefined);
  const { code } = await page.evaluate(() => window.initiation);
  expect(authorizeRequests().length).toBe(before);
  expect(new URL(page.url()).origin).toBe(appOrigin);
  return code;
}

describe('loginFromInitiation in Chromium (OIDC Core 4, oidcc-client-test-3rd-party-init-login)', () => {
  it('the provider initiates: the page at initiate_login_uri logs alice in with the login_hint and returns to the target path', async () => {
    const { context, page } = await newPage();
    await page.goto(initiationLink({ login_hint: 'alice', target_link_uri: `${appOrigin}/orders?page=2` }));
    const outcome = await signInAndReturn(page);
    expect(outcome).toEqual({ appState: { returnTo: '/orders?page=2' } });
    expect(await page.evaluate(() => window.client.getUser()?.sub)).toBe('alice');
    expect(authorizeRequests().at(-1)?.params).toMatchObject({ client_id: CLIENT, login_hint: 'alice' });
    await context.close();
  });

  it('a forged iss (initiate_login_wrong_iss): initiate_login_iss_mismatch, no authorization request', async () => {
    await reference.control.faults.set(CLIENT, 'initiate_login_wrong_iss');
    const { context, page } = await newPage();
    expect(await refusedInitiation(page, initiationLink({ login_hint: 'alice' }))).toBe('initiate_login_iss_mismatch');
    await reference.control.faults.clear(CLIENT);
    await context.close();
  });

  it('an open redirect through target_link_uri (another origin): initiate_login_target_not_allowed, no authorization request', async () => {
    const { context, page } = await newPage();
    for (const target of ['https://evil.example/phish', `${appOrigin.replace('127.0.0.1', 'localhost')}/`, 'javascript:alert(1)']) {
      expect(await refusedInitiation(page, initiationLink({ target_link_uri: target }))).toBe('initiate_login_target_not_allowed');
    }
    await context.close();
  });
});

describe('resolveClaims in Chromium (OIDC Core 5.6.2): aggregated and distributed claims', () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ({ context, page } = await newPage());
    await page.goto(initiationLink({}));
    expect(await signInAndReturn(page)).toEqual({});
  });
  afterAll(() => context.close());

  /** Userinfo with the fault's claim sources, resolved in the page. */
  async function resolvedWith(fault: Parameters<Reference['control']['faults']['set']>[1]): Promise<{ claims: ResolvedClaims['claims']; unresolved: string[] }> {
    await reference.control.faults.set(CLIENT, fault);
    try {
      return await page.evaluate(async () => {
        const { getUserInfo, resolveClaims } = window.oidcRp;
        const { claims, unresolved } = await resolveClaims(window.client, await getUserInfo(window.client));
        return { claims, unresolved: unresolved.map((u) => `${u.claim}:${u.error.code}`) };
      });
    } finally {
      await reference.control.faults.clear(CLIENT);
    }
  }

  it('aggregated, signed by the provider: address and phone_number are used', async () => {
    const { claims, unresolved } = await resolvedWith('userinfo_aggregated_claims');
    expect(unresolved).toEqual([]);
    expect(claims).toMatchObject({ sub: 'alice', phone_number: '+1 (310) 123-4567', address: { locality: 'Los Angeles' } });
    expect(claims).not.toHaveProperty('_claim_sources');
  });

  it('aggregated with a bad signature, or unsigned (alg none, as the suite sends): not used', async () => {
    for (const [fault, code] of [
      ['userinfo_aggregated_claims_bad_signature', 'claims_signature_invalid'],
      ['userinfo_aggregated_claims_unsigned', 'claims_source_unsigned'],
    ] as const) {
      const { claims, unresolved } = await resolvedWith(fault);
      expect(unresolved).toEqual([`address:${code}`, `phone_number:${code}`]);
      expect(claims).not.toHaveProperty('address');
      expect(claims).not.toHaveProperty('phone_number');
      expect(claims).toMatchObject({ sub: 'alice' });
    }
  });

  it('distributed at the provider: fetched with its access token, verified, credit_score used', async () => {
    const before = claimsSourceCalls();
    const { claims, unresolved } = await resolvedWith('userinfo_distributed_claims');
    expect(unresolved).toEqual([]);
    expect(claims).toMatchObject({ sub: 'alice', credit_score: 650 });
    expect(claimsSourceCalls()).toBe(before + 1);
  });

  it('distributed at another origin or over plain http: never called, not used', async () => {
    const before = claimsSourceCalls();
    expect(await resolvedWith('userinfo_distributed_claims_other_origin')).toMatchObject({ unresolved: ['credit_score:claims_source_not_trusted'] });
    expect(await resolvedWith('userinfo_distributed_claims_insecure_endpoint')).toMatchObject({ unresolved: ['credit_score:claims_source_insecure'] });
    expect(claimsSourceCalls()).toBe(before);
  });
});
