// The Next.js example in real Chromium: login through the reference server's form, a server
// component showing the session's claims, a route handler protected by the session, the client
// component from the root layout's <AuthProvider>, a refused cross-site logout, and logout.
import { describe, expect, it } from 'vitest';
import { logInAsAlice, setUpHarnessPage } from './harness';

const e2e = setUpHarnessPage({}, { viewport: { width: 1100, height: 800 } });

const status = () => e2e.page.getByTestId('status');

describe('Next.js example', () => {
  it('a signed-out visitor of the protected route handler is sent to login; an API call gets 401', async () => {
    const api = await fetch(`${e2e.harness.appOrigin}/api/me`);
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: 'login_required', reason: 'no_session' });

    // A browser navigation to it goes to the login form, with the way back remembered.
    await e2e.page.goto(`${e2e.harness.appOrigin}/api/me`);
    await e2e.page.getByLabel('Password').waitFor();
    expect(e2e.page.url().startsWith(e2e.harness.issuer)).toBe(true);

    await e2e.page.goto(`${e2e.harness.appOrigin}/`);
    await expect(status().getAttribute('data-status')).resolves.toBe('unauthenticated');
  });

  it('logs in through the login form and the server component shows the session\u2019s claims', async () => {
    await e2e.page.getByTestId('login-link').click();
    await e2e.page.waitForURL((url) => url.href.startsWith(e2e.harness.issuer));
    await logInAsAlice(e2e.page);
    await e2e.page.waitForURL(`${e2e.harness.appOrigin}/`);
    await expect(status().getAttribute('data-status')).resolves.toBe('authenticated');
    await expect(e2e.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Hello, Alice Liddell');
    await expect(e2e.page.getByTestId('claim-sub').textContent()).resolves.toBe('alice');
    await expect(e2e.page.getByTestId('claim-email').textContent()).resolves.toBe('alice@example.com');
    await expect(e2e.page.getByTestId('claim-iss').textContent()).resolves.toBe(e2e.harness.issuer);
    expect(await e2e.page.getByTestId('claim-nonce').count()).toBe(0);

    const cookies = await e2e.context.cookies(e2e.harness.appOrigin);
    const session = cookies.find((c) => c.name === 'oidc-rp.session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(await e2e.page.evaluate(() => document.cookie)).not.toContain('oidc-rp.session'); // HttpOnly
  });

  it('the route handler answers with the session\u2019s user', async () => {
    const response = await e2e.page.goto(`${e2e.harness.appOrigin}/api/me`);
    expect(response?.status()).toBe(200);
    expect(await response?.json()).toMatchObject({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com' });
  });

  it('the client component under the root layout\u2019s <AuthProvider> logs in in the browser (SSO at the provider)', async () => {
    await e2e.page.goto(`${e2e.harness.appOrigin}/client`);
    const clientStatus = e2e.page.getByTestId('client-status');
    await e2e.page.locator('[data-testid="client-status"]:not([data-status="loading"])').waitFor();
    await expect(clientStatus.getAttribute('data-status')).resolves.toBe('unauthenticated');
    await e2e.page.getByTestId('client-login').click();
    // The provider remembers alice from the server-side login: it may still ask for consent.
    const allow = e2e.page.getByRole('button', { name: 'Allow' });
    await allow.or(e2e.page.locator('[data-testid="client-status"][data-status="authenticated"]')).first().waitFor();
    if (await allow.isVisible()) await allow.click();
    await e2e.page.locator('[data-testid="client-status"][data-status="authenticated"]').waitFor();
    await expect(e2e.page.getByTestId('client-user').textContent()).resolves.toBe('Alice Liddell');
    expect(new URL(e2e.page.url()).searchParams.has('code')).toBe(false); // the callback parameters are gone
  });

  it('refuses a logout posted from another origin; the session survives', async () => {
    // A page on another origin (the provider's) submits a form to the app's logout route.
    await e2e.page.goto(`${e2e.harness.issuer}/.well-known/openid-configuration`);
    const refused = e2e.page.waitForResponse(`${e2e.harness.appOrigin}/auth/logout`);
    const landed = e2e.page.waitForURL(`${e2e.harness.appOrigin}/auth/logout`, { waitUntil: 'load' });
    await e2e.page.evaluate((action) => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = action;
      const input = document.createElement('input');
      input.name = 'csrf_token';
      input.value = 'guessed';
      form.append(input);
      document.body.append(form);
      form.submit();
    }, `${e2e.harness.appOrigin}/auth/logout`);
    expect((await refused).status()).toBe(403);
    await landed;
    await expect(e2e.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign-out refused');
    await e2e.page.goto(`${e2e.harness.appOrigin}/`);
    await expect(status().getAttribute('data-status')).resolves.toBe('authenticated');
  });

  it('logs out with the button: session ended here and at the provider, back to the signed-out page', async () => {
    await e2e.page.getByTestId('logout-button').click();
    await e2e.page.waitForURL(`${e2e.harness.appOrigin}/`);
    await expect(status().getAttribute('data-status')).resolves.toBe('unauthenticated');
    const cookies = await e2e.context.cookies(e2e.harness.appOrigin);
    expect(cookies.some((c) => c.name.startsWith('oidc-rp.session'))).toBe(false);
    expect((await e2e.page.request.get(`${e2e.harness.appOrigin}/api/me`)).status()).toBe(401);
    // The provider's session is over too: logging in asks for the password again.
    await e2e.page.getByTestId('login-link').click();
    await e2e.page.getByLabel('Password').waitFor();
  });
});
