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
    // Public clients enough to reach the server's total cap at 100 pushes each.
    const spa = demo.clients?.find((c) => c.client_id === 'spa');
    for (let i = 0; i < 10; i++) demo.clients?.push({ ...spa, client_id: `bulk-${i}` } as NonNullable<TenantConfig['clients']>[number]);
  });
});
afterAll(async () => {
  await s?.close();
});

function spaPush(tenant = 'demo', clientId = 'spa'): Promise<Response> {
  const { challenge } = pkce();
  const form = {
    response_type: 'code', client_id: clientId, redirect_uri: SPA_REDIRECT, scope: 'openid', state: 'st',
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

/** `count` anonymous pushes of a public client, a few at a time; their statuses. */
async function pushMany(clientId: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(Array.from({ length: Math.min(25, count - i) }, () => spaPush('demo', clientId)));
    for (const res of batch) {
      statuses.push(res.status);
      await res.body?.cancel();
    }
  }
  return statuses;
}

async function expectCapped(res: Response, whose: RegExp): Promise<void> {
  const body = await json(res);
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toBe('60');
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe('temporarily_unavailable');
  expect(String(body.error_description)).toMatch(whose);
}

// After I1's single push of the SPA.
describe('I2: anonymous pushes are capped', () => {
  it('a public client gets 100 pushes a minute, then 429; another client is not held up by it', async () => {
    const statuses = await pushMany('spa', 99);
    expect(statuses.every((status) => status === 201)).toBe(true);
    await expectCapped(await spaPush('demo', 'spa'), /this client has pushed 100 authorization requests within 60 seconds/);
    // Refused pushes are not counted or kept: still refused, and other clients push.
    await expectCapped(await spaPush('demo', 'spa'), /this client has pushed 100/);
    expect((await spaPush('demo', 'bulk-0')).status).toBe(201);
  });

  it('once the pushed requests have expired, the client may push again (timer: the server clock moves 61 s)', async () => {
    s.clock.advance(61);
    expect((await spaPush('demo', 'spa')).status).toBe(201);
  });

  it('in total the server keeps at most 1000 pushes a minute, whichever clients make them', async () => {
    s.clock.advance(61);
    for (let i = 0; i < 10; i++) {
      const statuses = await pushMany(`bulk-${i}`, 100);
      expect(statuses.filter((status) => status === 201)).toHaveLength(100);
    }
    await expectCapped(await spaPush('demo', 'spa'), /clients have pushed 1000 authorization requests/);
    s.clock.advance(61);
    expect((await spaPush('demo', 'spa')).status).toBe(201);
  });
});
