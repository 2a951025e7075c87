// OpenID Connect Core 11 against a certified provider: oidc-provider with its own refresh-token
// policy grants `offline_access` (a refresh token) only on a request that carries
// `prompt=consent`. The browser client's default login() asks for offline_access and so sends
// prompt=consent, and gets a refresh token; a session that got none says why when its access
// token expires. Over real HTTP on 127.0.0.1; the client runs with its injected clock.
import { createBrowserClient, discovery, memoryStorage, type BrowserClient, type BrowserClientOptions } from '@oidc-rp/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const PAGE = 'http://127.0.0.1:5173/';
const REDIRECT = 'http://127.0.0.1:5173/callback';

let op: RunningOidcProvider;
beforeAll(async () => {
  op = await startOidcProvider(
    [{ client_id: 'spa', token_endpoint_auth_method: 'none', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'] }],
    { standardRefreshTokens: true },
  );
});
afterAll(() => op.close());

/** A page of the app: its address bar, the pages it was sent to, and a clock the test moves. */
function app(options: Partial<BrowserClientOptions> = {}) {
  const page = { url: PAGE, redirects: [] as string[], seconds: Math.floor(Date.now() / 1000) };
  const client = createBrowserClient({
    provider: discovery(op.issuer),
    clientId: 'spa',
    redirectUri: REDIRECT,
    transactionStorage: memoryStorage(),
    navigate: {
      currentUrl: () => page.url,
      redirect: (url) => void page.redirects.push(url),
      replaceUrl: (url) => {
        page.url = url;
      },
    },
    now: () => page.seconds,
    ...options,
  });
  return { client, page };
}

/** login() → the person signs in and consents at oidc-provider → the callback; the authorize URL sent. */
async function logIn(client: BrowserClient, page: ReturnType<typeof app>['page'], login?: Parameters<BrowserClient['login']>[0]): Promise<URL> {
  await client.login(login);
  const authorize = new URL(page.redirects.at(-1)!);
  const callback = await op.signIn(authorize);
  if (callback.type !== 'redirect') throw new Error(`expected a redirect, got ${callback.type}`);
  page.url = callback.location;
  await client.handleRedirectCallback();
  expect(client.getSnapshot().status).toBe('authenticated');
  return authorize;
}

describe('offline_access with oidc-provider (OpenID Connect Core 11)', () => {
  it('the default login() sends prompt=consent with offline_access, gets a refresh token, and renews the session past expiry', async () => {
    const { client, page } = app();
    const authorize = await logIn(client, page);
    expect(authorize.searchParams.get('scope')!.split(' ')).toContain('offline_access');
    expect(authorize.searchParams.get('prompt')).toBe('consent');

    const first = await client.getAccessToken();
    page.seconds += 3601; // past the access token's expiry (oidc-provider: 3600 s here)
    const renewed = await client.getAccessToken();
    expect(renewed).not.toBe(first);
    expect(client.getSnapshot().status).toBe('authenticated');
  });

  it('without prompt=consent the provider drops offline_access: no refresh token, and getAccessToken past expiry says so', async () => {
    const { client, page } = app();
    // A prompt the app chose is sent as is: oidc-provider then ignores offline_access.
    const authorize = await logIn(client, page, { prompt: 'login' });
    expect(authorize.searchParams.get('prompt')).toBe('login');
    await client.getAccessToken();

    page.seconds += 3601;
    const error = (await client.getAccessToken().catch((e: unknown) => e)) as Error & { code?: string };
    expect(error).toMatchObject({ code: 'login_required' });
    expect(error.message).toMatch(/no refresh token/);
    expect(error.message).toMatch(/offline_access/);
    expect(client.getSnapshot().status).toBe('unauthenticated');
  });

  it('a scope without offline_access sends no prompt and gets no refresh token; the same clear login_required', async () => {
    const { client, page } = app({ scope: 'openid profile', tokenStorage: memoryStorage() });
    const authorize = await logIn(client, page);
    expect(authorize.searchParams.has('prompt')).toBe(false);
    page.seconds += 3601;
    await expect(client.getAccessToken()).rejects.toMatchObject({ code: 'login_required', message: expect.stringMatching(/no refresh token/) });
  });
});
