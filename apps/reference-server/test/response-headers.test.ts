// The review's informational findings, over real HTTP: CSP form-action on the pages, a charset
// on every JSON response, and token responses readable cross-origin only by their own client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type ReferenceServer } from '../src/index';
import { authorizeUrl, pkce, spaParams, webParams } from './helpers';
import { body, signIn, WEB_REDIRECT } from './support/fleet-client';
import type { Fleet } from './support/fleet';
import { browser, hiddenFields, openLogin } from './support/http-browser';
import { completeLogin } from '../src/testing';

let server: ReferenceServer;
let issuer: string;
const logs: string[] = [];
beforeAll(async () => {
  const log = (m: string) => logs.push(m);
  server = await createReferenceServer(demoConfig(), { logger: { info: log, warn: log, error: log }, developmentKeys: true });
  const { origin } = await server.listen({ port: 0 });
  issuer = `${origin}/demo`;
});
afterAll(async () => {
  await server.close();
  for (const line of logs) expect(line).not.toMatch(/wonderland|secret|[A-Za-z0-9_-]{43}/);
});

const fleet = () => ({ issuer }) as Fleet;
const form = (fields: Record<string, string>, origin?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
  body: new URLSearchParams(fields).toString(),
});

describe('CSP form-action', () => {
  it("the login page's forms may reach only the server and the client's redirect origin", async () => {
    const b = browser();
    const start = await b.go(authorizeUrl(webParams(), issuer));
    const page = await b.go(start.headers.get('location') ?? '');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:3000;");
  });

  it('error pages allow posting nowhere but the server', async () => {
    const res = await fetch(`${issuer}/oidc/authorize?client_id=nobody`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self';");
  });

  it('the form_post page may post to the client', async () => {
    const b = browser();
    const { interaction, csrf, action } = await openLogin(b, authorizeUrl(webParams({ response_mode: 'form_post' }), issuer));
    const signedIn = await b.go(action, { form: { interaction, csrf, username: 'alice', password: 'wonderland', action: 'login' } });
    const consent = await b.go(signedIn.headers.get('location') ?? '');
    const fields = hiddenFields(await consent.text());
    const page = await b.go(`${issuer}/oidc/consent`, { form: { ...fields, decision: 'allow' } });
    expect(await page.text()).toContain(`<form method="post" action="${WEB_REDIRECT}">`);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:3000;");
  });
});

describe('JSON responses say charset=utf-8', () => {
  it.each([
    ['discovery', () => fetch(`${issuer}/.well-known/openid-configuration`)],
    ['jwks', () => fetch(`${issuer}/oidc/jwks`)],
    ['token error', () => fetch(`${issuer}/oidc/token`, form({ grant_type: 'authorization_code' }))],
    ['client credentials', () => fetch(`${issuer}/oauth/token`, form({ grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' }))],
    ['userinfo error', () => fetch(`${issuer}/oidc/userinfo`)],
    ['unknown path', () => fetch(`${issuer}/nothing-here`)],
    ['wrong method', () => fetch(`${issuer}/oidc/token`)],
  ])('%s', async (_name, call) => {
    const res = await call();
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('CORS on token responses is per client', () => {
  it("a page on another client's origin cannot read the web client's tokens; its own origin can", async () => {
    const code = await signIn(fleet(), undefined);
    const request = { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' };
    // http://127.0.0.1:5173 is the spa client's origin: allowed by the tenant, not for web's tokens.
    const foreign = await fetch(`${issuer}/oidc/token`, form(request, 'http://127.0.0.1:5173'));
    expect(foreign.status).toBe(200);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('vary')).toBe('Origin');
    const tokens = await body(foreign);
    const own = await fetch(`${issuer}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }, 'http://127.0.0.1:3000'));
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:3000');
  });

  it('the SPA reads its own tokens from its origin', async () => {
    const { verifier, challenge } = pkce();
    const result = await completeLogin(authorizeUrl(spaParams(challenge), issuer), {});
    if (result.type !== 'redirect') throw new Error('no redirect');
    const code = new URL(result.location).searchParams.get('code') ?? '';
    const res = await fetch(`${issuer}/oidc/token`, form({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:5173/callback', client_id: 'spa', code_verifier: verifier }, 'http://127.0.0.1:5173'));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
  });
});
