// RFC 8707 resource indicators over real HTTP: a client asks tokens only for the resources
// registered for it (the attack: the public SPA minting a token for an API that never trusted
// it, at authorize, PAR, the code exchange, refresh and client credentials), several resources
// at authorize with a token per resource, and refreshes that narrow to one granted resource.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLogin, CookieJar } from '../src/testing';
import { basic, pkce, SPA_REDIRECT } from './helpers';
import { type DpopServer, json, spaExchange, startDpopServer, webExchange } from './support/dpop-server';

const ORDERS = 'https://orders.example/api';
const FILES = 'https://files.example/';
const PAYROLL = 'https://payroll.example/'; // registered for no client: the attacker's target

let s: DpopServer;
beforeAll(async () => {
  s = await startDpopServer((config) => {
    const demo = config.tenants[0];
    if (!demo) throw new Error('no demo tenant');
    demo.access_token_format = 'jwt';
    for (const client of demo.clients ?? []) client.resources = [ORDERS, FILES];
  });
});
afterAll(async () => {
  await s?.close();
});

const aud = (token: unknown) => decodeJwt(String(token)).aud;

async function refusedAtAuthorize(params: Record<string, string | string[]>): Promise<URL> {
  const url = new URL(`${s.listening.origin}/demo/oidc/authorize`);
  for (const [k, v] of Object.entries(params)) for (const value of [v].flat()) url.searchParams.append(k, value);
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location') ?? '');
}

function spaAuthorize(resource: string | string[], challenge = pkce().challenge): Record<string, string | string[]> {
  return {
    response_type: 'code', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid offline_access', state: 'st',
    code_challenge: challenge, code_challenge_method: 'S256', resource,
  };
}

async function spaLogin(resource: string | string[]): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const url = new URL(`${s.listening.origin}/demo/oidc/authorize`);
  for (const [k, v] of Object.entries(spaAuthorize(resource, challenge))) for (const value of [v].flat()) url.searchParams.append(k, value);
  const result = await completeLogin(url, { fetch: (r) => fetch(r), cookies: new CookieJar() });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const code = new URL(result.location).searchParams.get('code');
  if (!code) throw new Error(`no code: ${result.location}`);
  return { code, verifier };
}

async function expectInvalidTarget(res: Response, mentions?: string): Promise<void> {
  expect(res.status).toBe(400);
  const body = await json(res);
  expect(body.error).toBe('invalid_target');
  expect(typeof body.error_description).toBe('string');
  if (mentions) expect(body.error_description).toContain(mentions);
}

describe('a per-client resource allow-list (RFC 8707 2)', () => {
  it('the public SPA asking for an API not registered for it is refused at authorize with invalid_target, naming the resource', async () => {
    const location = await refusedAtAuthorize(spaAuthorize(PAYROLL));
    expect(`${location.origin}${location.pathname}`).toBe(SPA_REDIRECT);
    expect(location.searchParams.get('error')).toBe('invalid_target');
    expect(location.searchParams.get('error_description')).toContain(PAYROLL);
    expect(location.searchParams.get('code')).toBeNull();
    // One unregistered resource among registered ones refuses the whole request.
    const mixed = await refusedAtAuthorize(spaAuthorize([ORDERS, PAYROLL]));
    expect(mixed.searchParams.get('error')).toBe('invalid_target');
  });

  it('is refused at PAR, in JSON, never redirected', async () => {
    const { challenge } = pkce();
    const form = new URLSearchParams({ response_type: 'code', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256', resource: ORDERS });
    form.append('resource', PAYROLL);
    const res = await fetch(`${s.listening.origin}/demo/oauth/par`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    expect(res.headers.get('location')).toBeNull();
    await expectInvalidTarget(res, PAYROLL);
  });

  it('is refused at the code exchange of a grant that named no resource, and the code stays usable', async () => {
    const { code, verifier } = await spaLogin([]);
    await expectInvalidTarget(await s.token('/oidc/token', { ...spaExchange(code, verifier), resource: PAYROLL }), PAYROLL);
    const honest = await s.token('/oidc/token', { ...spaExchange(code, verifier), resource: ORDERS });
    expect(honest.status).toBe(200);
    expect(aud((await json(honest)).access_token)).toBe(ORDERS);
  });

  it('is refused for client credentials', async () => {
    const form = { grant_type: 'client_credentials', scope: 'api.read', resource: PAYROLL };
    await expectInvalidTarget(await s.token('/oauth/token', form, { authorization: basic('service', 'service-secret') }), PAYROLL);
    const honest = await s.token('/oauth/token', { ...form, resource: FILES }, { authorization: basic('service', 'service-secret') });
    expect(aud((await json(honest)).access_token)).toBe(FILES);
  });

  it('the confidential web client is refused an unregistered API even with its secret', async () => {
    const res = await s.token('/oidc/token', { ...webExchange(await s.webCode()), resource: PAYROLL });
    await expectInvalidTarget(res);
  });
});

describe('several resources at authorize, a token per resource', () => {
  it('exchanges the code for one of them, refreshes for the other, and never for one outside the grant', async () => {
    const { code, verifier } = await spaLogin([ORDERS, FILES]);
    const first = await json(await s.token('/oidc/token', { ...spaExchange(code, verifier), resource: ORDERS }));
    expect(aud(first.access_token)).toBe(ORDERS);

    const files = await json(await s.token('/oauth/token', { grant_type: 'refresh_token', client_id: 'spa', refresh_token: String(first.refresh_token), resource: FILES }));
    expect(aud(files.access_token)).toBe(FILES);

    // Without resource: a token for every granted resource.
    const both = await json(await s.token('/oauth/token', { grant_type: 'refresh_token', client_id: 'spa', refresh_token: String(files.refresh_token) }));
    expect(aud(both.access_token)).toEqual([ORDERS, FILES]);

    // Two resources in one token request: a token is for one API at a time.
    const two = new URLSearchParams({ grant_type: 'refresh_token', client_id: 'spa', refresh_token: String(both.refresh_token), resource: ORDERS });
    two.append('resource', FILES);
    const twoRes = await fetch(`${s.listening.origin}/demo/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: two });
    await expectInvalidTarget(twoRes);

    // A resource outside the grant is refused, and the refresh token is not spent by the refusal.
    await expectInvalidTarget(await s.token('/oauth/token', { grant_type: 'refresh_token', client_id: 'spa', refresh_token: String(both.refresh_token), resource: PAYROLL }));
    const still = await s.token('/oauth/token', { grant_type: 'refresh_token', client_id: 'spa', refresh_token: String(both.refresh_token), resource: ORDERS });
    expect(still.status).toBe(200);
    expect(aud((await json(still)).access_token)).toBe(ORDERS);
  });

  it('a grant for one resource does not stretch to another registered one at refresh', async () => {
    const { code, verifier } = await spaLogin(ORDERS);
    const tokens = await json(await s.token('/oidc/token', spaExchange(code, verifier)));
    expect(aud(tokens.access_token)).toBe(ORDERS);
    const res = await s.token('/oauth/token', { grant_type: 'refresh_token', client_id: 'spa', refresh_token: String(tokens.refresh_token), resource: FILES });
    await expectInvalidTarget(res, 'log in again');
  });
});
