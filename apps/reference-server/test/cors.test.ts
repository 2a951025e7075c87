import { beforeAll, describe, expect, it } from 'vitest';
import { ISSUER, setup, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await setup((config) => {
    config.tenants.push({
      id: 'other',
      clients: [{ client_id: 'x', client_secret: 's', redirect_uris: ['https://other.example/cb', 'com.example.app:/cb'] }],
    });
  });
});

const SPA_ORIGIN = 'http://127.0.0.1:5173';
const CORS_ENDPOINTS: [string, string][] = [
  ['/.well-known/openid-configuration', 'GET'],
  ['/oidc/jwks', 'GET'],
  ['/oidc/token', 'POST'],
  ['/oauth/token', 'POST'],
  ['/oidc/userinfo', 'GET'],
  ['/oauth/revoke', 'POST'],
];

function preflight(path: string, origin: string, method: string, tenant = 'demo'): Promise<Response> {
  return h.fetch(
    new Request(`http://localhost/${tenant}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type, authorization' },
    }),
  );
}

describe('CORS', () => {
  it.each(CORS_ENDPOINTS)('%s answers preflights from registered redirect URI origins', async (path, method) => {
    const res = await preflight(path, SPA_ORIGIN, method);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toContain(method);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it.each(CORS_ENDPOINTS)('%s gives other origins no CORS headers', async (path, method) => {
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:5174', 'https://other.example']) {
      const res = await preflight(path, origin, method);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
    }
  });

  it('actual responses carry the allowed origin, also on errors (so the SPA can read them)', async () => {
    const ok = await h.fetch(new Request(`${ISSUER}/.well-known/openid-configuration`, { headers: { origin: 'http://localhost:5173' } }));
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(ok.headers.get('vary')).toContain('Origin');
    const error = await h.fetch(new Request(`${ISSUER}/oidc/userinfo`, { headers: { origin: SPA_ORIGIN } }));
    expect(error.status).toBe(401);
    expect(error.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    expect(error.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    const token = await h.fetch(new Request(`${ISSUER}/oauth/token`, { method: 'POST', headers: { origin: SPA_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&client_id=spa' }));
    expect(token.status).toBe(400);
    expect(token.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
  });

  it('every kind of answer of a CORS endpoint carries them: JSON, empty body, 405', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: SPA_ORIGIN };
    const answers: [string, Response][] = [
      ['jwks', await h.fetch(new Request(`${ISSUER}/oidc/jwks`, { headers: { origin: SPA_ORIGIN } }))],
      ['token', await h.fetch(new Request(`${ISSUER}/oauth/token`, { method: 'POST', headers: form, body: 'grant_type=refresh_token&client_id=spa&refresh_token=unknown' }))],
      ['revoke', await h.fetch(new Request(`${ISSUER}/oauth/revoke`, { method: 'POST', headers: form, body: 'client_id=spa&token=unknown' }))],
      ['405', await h.fetch(new Request(`${ISSUER}/oauth/token`, { headers: { origin: SPA_ORIGIN } }))],
    ];
    const expected: Record<string, number> = { jwks: 200, token: 400, revoke: 200, '405': 405 };
    for (const [what, res] of answers) {
      expect(res.status, what).toBe(expected[what]);
      expect(res.headers.get('access-control-allow-origin'), what).toBe(SPA_ORIGIN);
      expect(res.headers.get('vary'), what).toBe('Origin');
    }
    expect(answers[3]?.[1].headers.get('allow')).toBe('POST');
  });

  it('never uses a wildcard and gives unknown origins nothing on actual responses', async () => {
    const res = await h.fetch(new Request(`${ISSUER}/oidc/jwks`, { headers: { origin: 'https://evil.example' } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('origins are per tenant; custom-scheme redirect URIs add no origin', async () => {
    const res = await preflight('/oidc/jwks', 'https://other.example', 'GET', 'other');
    expect(res.headers.get('access-control-allow-origin')).toBe('https://other.example');
    const spa = await preflight('/oidc/jwks', SPA_ORIGIN, 'GET', 'other');
    expect(spa.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('endpoints for top-level navigation have no CORS: OPTIONS on authorize → 405', async () => {
    const res = await preflight('/oidc/authorize', SPA_ORIGIN, 'GET');
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
