/**
 * The par part's failures, each answer of the PAR endpoint mocked (msw): a refused push, a 5xx,
 * a body that is not JSON, no usable `request_uri` or `expires_in`, a dropped connection,
 * no answer at all, and a provider without the endpoint. What a user relies on: `login()`
 * rejects with the SDK's stable code (and the client emits it as `error`), the page goes
 * nowhere, no login transaction is left waiting, and no message repeats a value of the pushed
 * request (state, nonce, PKCE challenge). With `dpop()` the key's thumbprint is pushed, never
 * put in the URL. Real HTTP, real provider: par.test.ts and test/chromium/par.test.ts.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient, dpop, memoryStorage, par, serviceProvider, type BrowserClientOptions, type OidcError } from '../src/index';
import { PAGE, REDIRECT_URI } from './harness';

const ISSUER = 'https://login.example.com/acme';
const PAR = `${ISSUER}/oauth/par`;
const REQUEST_URI = 'urn:ietf:params:oauth:request_uri:d9f2c4';

const server = setupServer();
const pushed: URLSearchParams[] = [];
server.events.on('request:start', async ({ request }) => {
  if (request.url === PAR) pushed.push(new URLSearchParams(await request.clone().text()));
});
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  pushed.length = 0;
});
afterAll(() => server.close());

function app(options: Partial<BrowserClientOptions> = {}) {
  const redirects: string[] = [];
  const errors: OidcError[] = [];
  const transactions = memoryStorage();
  const client = createBrowserClient({
    provider: serviceProvider(ISSUER, { pushed_authorization_request_endpoint: PAR }),
    clientId: 'spa',
    redirectUri: REDIRECT_URI,
    transactionStorage: transactions,
    navigate: { currentUrl: () => PAGE, redirect: (url) => void redirects.push(url), replaceUrl: () => undefined },
    par: par(),
    ...options,
  });
  client.on('error', (error) => errors.push(error));
  return { client, redirects, errors, transactions };
}

function answer(resolver: () => Response | Promise<Response>) {
  server.use(http.post(PAR, resolver));
}

/** login() must fail: the error, after checking that nothing went on. */
async function failedLogin(page: ReturnType<typeof app>): Promise<OidcError & { status?: number; error?: string }> {
  const error = await page.client.login().then(
    () => {
      throw new Error('expected login() to reject');
    },
    (failure: OidcError) => failure,
  );
  expect(page.redirects).toEqual([]);
  expect(await page.transactions.keys()).toEqual([]);
  expect(page.errors).toEqual([error]);
  // Nothing of the pushed request in the message (development build: the full text).
  for (const form of pushed) {
    for (const name of ['state', 'nonce', 'code_challenge']) expect(error.message).not.toContain(form.get(name));
  }
  return error;
}

describe('the par part, when the push goes wrong', () => {
  it('pushes the whole request and redirects with client_id and request_uri only (the baseline of the cases below)', async () => {
    answer(() => HttpResponse.json({ request_uri: REQUEST_URI, expires_in: 60 }, { status: 201 }));
    const page = app();
    await page.client.login({ appState: 'x', loginHint: 'alice', extra: { ui_locales: 'fr' } });
    expect(pushed).toHaveLength(1);
    const form = Object.fromEntries(pushed[0]!);
    expect(form).toMatchObject({
      client_id: 'spa',
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email offline_access',
      code_challenge_method: 'S256',
      login_hint: 'alice',
      ui_locales: 'fr',
    });
    expect(form).not.toHaveProperty('prompt'); // the service asks for consent only when not yet given
    for (const name of ['state', 'nonce', 'code_challenge']) expect(form[name]).toMatch(/^[\w-]{22,}$/);
    expect(page.redirects).toHaveLength(1);
    const url = new URL(page.redirects[0]!);
    expect(`${url.origin}${url.pathname}`).toBe(`${ISSUER}/oidc/authorize`);
    expect([...url.searchParams]).toEqual([
      ['client_id', 'spa'],
      ['request_uri', REQUEST_URI],
    ]);
    // The transaction kept for the callback is the pushed request's.
    const [key] = await page.transactions.keys();
    expect(JSON.parse((await page.transactions.get(key!))!)).toMatchObject({ state: form.state, nonce: form.nonce });
  });

  it('a provider error (400) is token_endpoint_error with the provider error value', async () => {
    answer(() => HttpResponse.json({ error: 'invalid_request', error_description: 'redirect_uri not registered' }, { status: 400 }));
    const error = await failedLogin(app());
    expect(error).toMatchObject({ code: 'token_endpoint_error', status: 400, error: 'invalid_request' });
    expect(error.message).toContain('redirect_uri not registered');
  });

  it('a refused client (401 invalid_client) and a 5xx are token_endpoint_error too', async () => {
    answer(() => HttpResponse.json({ error: 'invalid_client' }, { status: 401 }));
    expect(await failedLogin(app())).toMatchObject({ code: 'token_endpoint_error', status: 401, error: 'invalid_client' });
    pushed.length = 0;
    answer(() => new HttpResponse('<h1>Bad gateway</h1>', { status: 502, headers: { 'content-type': 'text/html' } }));
    expect(await failedLogin(app())).toMatchObject({ code: 'token_endpoint_error', status: 502, error: 'server_error' });
  });

  it('an answer that is not JSON, or has no usable request_uri, is par_response_invalid', async () => {
    const bodies: [string, string][] = [
      ['{"request_uri": "urn:x", ', 'application/json'],
      ['request_uri=urn:x', 'application/x-www-form-urlencoded'],
      ['{"expires_in": 60}', 'application/json'],
      ['{"request_uri": "", "expires_in": 60}', 'application/json'],
      ['{"request_uri": 42, "expires_in": 60}', 'application/json'],
      [`{"request_uri": "${'u'.repeat(2049)}", "expires_in": 60}`, 'application/json'],
      ['["urn:x"]', 'application/json'],
    ];
    for (const [body, type] of bodies) {
      pushed.length = 0;
      answer(() => new HttpResponse(body, { status: 201, headers: { 'content-type': type } }));
      expect((await failedLogin(app())).code).toBe('par_response_invalid');
    }
  });

  it('an answer without a positive numeric expires_in is par_response_invalid (RFC 9126 2.2 requires it)', async () => {
    for (const extra of [{}, { expires_in: -5 }, { expires_in: 0 }, { expires_in: 'soon' }, { expires_in: null }]) {
      pushed.length = 0;
      answer(() => HttpResponse.json({ request_uri: REQUEST_URI, ...extra }, { status: 201 }));
      expect((await failedLogin(app())).code).toBe('par_response_invalid');
    }
    // ...and a valid one starts the login.
    answer(() => HttpResponse.json({ request_uri: REQUEST_URI, expires_in: 60 }, { status: 201 }));
    const page = app();
    await page.client.login();
    expect(new URL(page.redirects[0]!).searchParams.get('request_uri')).toBe(REQUEST_URI);
  });

  it('a dropped connection is network_error, no answer in time request_timeout', async () => {
    answer(() => HttpResponse.error());
    expect((await failedLogin(app())).code).toBe('network_error');
    pushed.length = 0;
    answer(() => new Promise<never>(() => {}));
    expect((await failedLogin(app({ http: { timeout: 50 } }))).code).toBe('request_timeout');
  });

  it('a provider without a pushed_authorization_request_endpoint is invalid_options, before anything is sent', async () => {
    const error = await failedLogin(app({ provider: serviceProvider(ISSUER) }));
    expect(error.code).toBe('invalid_options');
    expect(error.message).toMatch(/pushed_authorization_request_endpoint/);
    expect(pushed).toEqual([]);
  });

  it('with dpop(), the key’s thumbprint is pushed (dpop_jkt), not put in the URL', async () => {
    answer(() => HttpResponse.json({ request_uri: REQUEST_URI, expires_in: 60 }, { status: 201 }));
    const page = app({ dpop: dpop() });
    await page.client.login();
    const jkt = (await page.client.dpop!.handle()).jkt;
    expect(pushed[0]!.get('dpop_jkt')).toBe(jkt);
    expect([...new URL(page.redirects[0]!).searchParams.keys()]).toEqual(['client_id', 'request_uri']);
  });
});
