// Issue 22, trap (e), over real HTTP: a browser opening the server's root or a path that does
// not exist gets a small HTML page (the server's page shell and CSP) linking to each tenant's
// start page and discovery; programs get the JSON 404 in the contract's shape, as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type ReferenceServer } from '../src/index';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const NOT_FOUND = { error: 'invalid_request', error_description: 'There is no such endpoint on this server.' };
let server: ReferenceServer;
let origin: string;

beforeAll(async () => {
  const config = demoConfig();
  const demo = config.tenants[0];
  if (demo) config.tenants.push({ ...demo, id: 'acme', name: 'Acme <Test>', demo_login: false });
  server = await createReferenceServer(config, { logger: false });
  ({ origin } = await server.listen({ port: 0 }));
});
afterAll(() => server.close());

const get = (path: string, accept?: string) => fetch(`${origin}${path}`, { headers: accept ? { accept } : {} });

describe('the server root and unknown paths', () => {
  it('a browser on / gets a page linking to every tenant: start page and discovery, names escaped', async () => {
    const res = await get('/', BROWSER_ACCEPT);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain('<a href="/demo/">oidc-rp demo</a>');
    expect(page).toContain('<a href="/demo/.well-known/openid-configuration">discovery</a>');
    expect(page).toContain('<a href="/acme/">Acme &#60;Test&#62;</a>');
    expect(page).not.toContain('Acme <Test>');
    // The links work.
    expect((await get('/demo/', BROWSER_ACCEPT)).status).toBe(200);
    expect(((await (await get('/acme/.well-known/openid-configuration')).json()) as { issuer: string }).issuer).toBe(`${origin}/acme`);
  });

  it.each(['/nothing-here', '/demo/nothing-here', '/nope/', '/demo/oidc/nothing'])('a browser on %s gets a 404 page with the same links', async (path) => {
    const res = await get(path, BROWSER_ACCEPT);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await res.text();
    expect(page).toContain('Page not found');
    expect(page).toContain('<a href="/demo/">oidc-rp demo</a>');
  });

  it.each([
    ['no Accept', undefined],
    ['Accept: application/json', 'application/json'],
    ['Accept: */*', '*/*'],
    ['text/html refused with q=0', 'application/json, text/html;q=0'],
  ])('a program (%s) gets the JSON 404 in the contract shape on / and unknown paths', async (_name, accept) => {
    // (A single segment such as /nothing-here names a tenant's start page: an unknown tenant is answered in that endpoint's shape.)
    for (const path of ['/', '/demo/nothing-here', '/demo/oidc/nothing', '/a/b/c/d']) {
      const res = await get(path, accept);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual(NOT_FOUND);
    }
  });

  it('an unknown tenant on a JSON endpoint stays JSON for programs', async () => {
    const res = await get('/nope/.well-known/openid-configuration');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', error_description: 'There is no such tenant on this server.' });
  });

  it('a POST to / is JSON even from a browser-like Accept', async () => {
    const res = await fetch(`${origin}/`, { method: 'POST', headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(NOT_FOUND);
  });
});
