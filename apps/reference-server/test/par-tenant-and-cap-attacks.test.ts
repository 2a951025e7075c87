// Pushed authorization requests across tenants and in bulk, over real HTTP: a request_uri tried
// at another tenant (with a client of the same client_id) misses there and stays usable at its
// own tenant; anonymous pushes of a public client are capped per client and in total, with a 429
// in the token endpoint's error shape, and room comes back once the pushed requests expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantConfig } from '../src/index';
import { SPA_REDIRECT, pkce } from './helpers';
import { type DpopServer, json, startDpopServer } from './support/dpop-server';

let s: DpopServer;

beforeAll(async () => {
  s = await startDpopServer((config) => {
    const demo = config.tenants[0] as TenantConfig;
    // A second tenant whose public client has the same client_id as the demo's SPA.
    config.tenants.push({ id: 'other', development: true, users: demo.users ?? [], clients: (demo.clients ?? []).filter((c) => c.client_id === 'spa') });
  });
});
afterAll(async () => {
  await s?.close();
});

function spaPush(tenant = 'demo'): Promise<Response> {
  const { challenge } = pkce();
  const form = {
    response_type: 'code', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid', state: 'st',
    code_challenge: challenge, code_challenge_method: 'S256',
  };
  return fetch(`${s.listening.origin}/${tenant}/oauth/par`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

function authorizeAt(tenant: string, requestUri: string): Promise<Response> {
  const url = new URL(`${s.listening.origin}/${tenant}/oidc/authorize`);
  url.searchParams.set('client_id', 'spa');
  url.searchParams.set('request_uri', requestUri);
  return fetch(url, { redirect: 'manual' });
}

describe('I1: a request_uri belongs to the tenant it was pushed at', () => {
  it('tried at another tenant it is unknown there, and its owner can still use it', async () => {
    const pushed = await spaPush('demo');
    expect(pushed.status).toBe(201);
    const { request_uri } = await json(pushed);
    const elsewhere = await authorizeAt('other', String(request_uri));
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toMatch(/request_uri is unknown/);
    // Not spent by the miss: the owner's browser goes on to the login page.
    const own = await authorizeAt('demo', String(request_uri));
    expect(own.status).toBe(302);
    expect(own.headers.get('location')).toMatch(/\/demo\/oidc\/login\?interaction=/);
  });
});
