// Issue 22, trap (c), server side, over real HTTP: the login page warns before the attempt that
// would lock and says for how long; three wrong passwords and the lockout reach the client as
// access_denied "Too many failed sign-in attempts…", Cancel and Deny with their own
// descriptions; pages name the client by its client_name.
import { afterEach, describe, expect, it } from 'vitest';
import { CANCELLED_DESCRIPTION, DENIED_DESCRIPTION } from '../src/endpoints/descriptions';
import { createReferenceServer, demoConfig, type ReferenceServer } from '../src/index';
import { PAIR_FAILURE_LIMIT, THROTTLE_WINDOW_SECONDS } from '../src/oauth/throttle';
import { authorizeUrl, pkce, SPA_REDIRECT, spaParams } from './helpers';
import { browser, openLogin, redirectTo } from './support/http-browser';

let server: ReferenceServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(): Promise<string> {
  server = await createReferenceServer(demoConfig(), { logger: false });
  const { origin } = await server.listen({ port: 0 });
  return `${origin}/demo`;
}

async function signIn(issuer: string) {
  const b = browser();
  const page = await openLogin(b, authorizeUrl(spaParams(pkce().challenge), issuer));
  const post = (form: Record<string, string>) => b.go(page.action, { form: { interaction: page.interaction, csrf: page.csrf, ...form } });
  const guess = (password: string) => post({ username: 'alice', password, action: 'login' });
  return { b, page, post, guess };
}

function errorOf(res: Response): { error: string | null; description: string | null } {
  const location = redirectTo(res);
  expect(`${location.origin}${location.pathname}`).toBe(SPA_REDIRECT);
  return { error: location.searchParams.get('error'), description: location.searchParams.get('error_description') };
}

describe('honest sign-in failures', () => {
  it('warns before the attempt that locks, and for how long; the lockout reaches the client as too many attempts', async () => {
    const issuer = await start();
    const first = await signIn(issuer);
    expect(first.page.text).toContain('to continue to <strong>React example (SPA)</strong>');
    expect(await (await first.guess('wrong-1')).text()).toContain('Wrong username or password. 2 attempts left.');
    expect(await (await first.guess('wrong-2')).text()).toContain('Wrong username or password. 1 attempt left.');
    expect(errorOf(await first.guess('wrong-3'))).toEqual({ error: 'access_denied', description: expect.stringMatching(/^Too many failed sign-in attempts/) });

    // Three failures counted of five: the next sign-in's first typo leaves one before the lockout.
    const second = await signIn(issuer);
    const warned = await (await second.guess('wrong-4')).text();
    expect(PAIR_FAILURE_LIMIT).toBe(5);
    expect(warned).toContain(`1 attempt left before sign-in is locked for ${THROTTLE_WINDOW_SECONDS / 60} minutes.`);
    const locked = await second.guess('wrong-5');
    expect(locked.status).toBe(429);
    const lockedPage = await locked.text();
    expect(lockedPage).toContain('Too many failed sign-in attempts');
    expect(lockedPage).toContain('Back to React example (SPA)');
    expect(lockedPage).not.toContain('Back to spa<');
    const back = await second.post({ action: 'return' });
    expect(errorOf(back)).toEqual({ error: 'access_denied', description: expect.stringMatching(/^Too many failed sign-in attempts/) });
  });

  it('Cancel and Deny keep their own descriptions', async () => {
    const issuer = await start();
    const cancelled = await signIn(issuer);
    expect(errorOf(await cancelled.post({ action: 'cancel' }))).toEqual({ error: 'access_denied', description: CANCELLED_DESCRIPTION });

    const denied = await signIn(issuer);
    const toConsent = await denied.guess('wonderland');
    const consent = await denied.b.go(redirectTo(toConsent));
    const consentPage = await consent.text();
    expect(consentPage).toContain('<strong>React example (SPA)</strong> is asking to');
    const csrf = /name="csrf" value="([^"]+)"/.exec(consentPage)?.[1] ?? '';
    const deny = await denied.b.go(`${issuer}/oidc/consent`, { form: { interaction: denied.page.interaction, csrf, decision: 'deny' } });
    expect(errorOf(deny)).toEqual({ error: 'access_denied', description: DENIED_DESCRIPTION });
    expect(DENIED_DESCRIPTION).not.toBe(CANCELLED_DESCRIPTION);
  });

  it('every demo client has a client_name', () => {
    for (const client of demoConfig().tenants[0]?.clients ?? []) expect(client.client_name).toEqual(expect.any(String));
  });
});
