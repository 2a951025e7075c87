// Third-party initiated login through the session layer's `routes.initiateLogin`, claim sources
// through `client.resolveClaimSources`, and userinfo with the token in the body, over real HTTP
// against the reference server (its `/oidc/initiate-login`, claim faults and claims source).
// The attacks: a forged `iss`, an open redirect through `target_link_uri`, an aggregated claim
// with a bad signature or none, a distributed-claims endpoint on another origin or plain http.
import { completeLogin } from '@oidc-rp/reference-server/testing';
import type { Fault } from '@oidc-rp/reference-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSet } from '../src/index';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;
const ROUTE = '/auth/initiate-login';

beforeAll(async () => {
  world = await startSessionWorld();
  await world.control.clients.update('web', { initiate_login_uri: `${world.appOrigin}${ROUTE}` });
});
afterAll(() => world.close());

/** Where the provider's initiation link for the web client sends the browser (a path of the app). */
async function providerInitiation(params: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${world.issuer}/oidc/initiate-login?${new URLSearchParams({ client_id: 'web', ...params })}`, { redirect: 'manual' });
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(`${world.appOrigin}${ROUTE}`);
  return `${location.pathname}${location.search}`;
}

const authorizeCalls = () => world.provider.requests({ path: '/demo/oidc/authorize' }).length;

/** The refusal page of the initiation route: 400 naming the code, no login started, no cookie. */
async function expectRefused(response: Response, code: string, authorizeBefore: number): Promise<void> {
  expect(response.status).toBe(400);
  expect(await response.text()).toContain(code);
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.getSetCookie()).toEqual([]);
  expect(authorizeCalls()).toBe(authorizeBefore);
}

describe('routes.initiateLogin (OIDC Core 4, oidcc-client-test-3rd-party-init-login)', () => {
  it('GET from the provider: a login with its login_hint, back at the target path once signed in', async () => {
    world.use({ routes: { initiateLogin: ROUTE } });
    const agent = new Agent(world.appOrigin);
    const start = await agent.request(await providerInitiation({ login_hint: 'alice', target_link_uri: `${world.appOrigin}/orders?page=2` }));
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location') as string);
    expect(authorize.searchParams.get('login_hint')).toBe('alice');
    const result = await completeLogin(authorize.href, { username: 'alice', password: 'wonderland' });
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    const callback = await agent.request(new URL(result.location).pathname + new URL(result.location).search);
    expect({ status: callback.status, location: callback.headers.get('location') }).toEqual({ status: 303, location: '/orders?page=2' });
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
  });

  it('POST (a form the provider auto-submits): the same login', async () => {
    world.use({ routes: { initiateLogin: ROUTE } });
    const body = new URLSearchParams({ iss: world.issuer, login_hint: 'alice' });
    const start = await new Agent(world.appOrigin).request(ROUTE, {
      method: 'POST',
      body: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(world.issuer).origin },
    });
    expect(start.status).toBe(302);
    expect(new URL(start.headers.get('location') as string).searchParams.get('login_hint')).toBe('alice');
  });

  it('a forged iss (initiate_login_wrong_iss, and a hand-made link): 400 initiate_login_iss_mismatch, no login started', async () => {
    world.use({ routes: { initiateLogin: ROUTE } });
    await world.control.faults.set('web', 'initiate_login_wrong_iss');
    try {
      const before = authorizeCalls();
      await expectRefused(await new Agent(world.appOrigin).request(await providerInitiation()), 'initiate_login_iss_mismatch', before);
    } finally {
      await world.control.faults.clear('web');
    }
    for (const iss of ['https://evil.example/demo', `${world.issuer}/`, world.issuer.replace('127.0.0.1', 'localhost')]) {
      const before = authorizeCalls();
      await expectRefused(await new Agent(world.appOrigin).request(`${ROUTE}?iss=${encodeURIComponent(iss)}`), 'initiate_login_iss_mismatch', before);
    }
  });

  it('an open redirect through target_link_uri: 400 initiate_login_target_not_allowed, no login started', async () => {
    world.use({ routes: { initiateLogin: ROUTE } });
    for (const target of ['https://evil.example/', '//evil.example/x', `http://user:pw@127.0.0.1:${new URL(world.appOrigin).port}/`, 'javascript:alert(1)']) {
      const before = authorizeCalls();
      const link = await providerInitiation({ target_link_uri: target });
      await expectRefused(await new Agent(world.appOrigin).request(link), 'initiate_login_target_not_allowed', before);
    }
  });

  it('without routes.initiateLogin the path is not an auth route (off by default)', async () => {
    const auth = world.use();
    expect(await auth.handle(new Request(`${world.appOrigin}${ROUTE}?iss=${encodeURIComponent(world.issuer)}`))).toBeUndefined();
  });
});

describe('client.resolveClaimSources (OIDC Core 5.6.2) and getUserInfo({ tokenIn: "body" })', () => {
  let tokens: TokenSet;

  beforeAll(async () => {
    const { url, transaction } = await world.client.startLogin();
    const result = await completeLogin(url.href, { username: 'alice', password: 'wonderland' });
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    tokens = await world.client.finishLogin(result.location, transaction);
  });

  async function resolvedWith(fault: Fault, options?: Parameters<SessionWorld['client']['resolveClaimSources']>[1]) {
    await world.control.faults.set('web', fault);
    try {
      const userinfo = await world.client.getUserInfo(tokens.accessToken, { expectedSubject: 'alice' });
      const { claims, unresolved } = await world.client.resolveClaimSources(userinfo, options);
      return { claims, unresolved: unresolved.map((u) => `${u.claim}:${u.error.code}`), messages: unresolved.map((u) => u.error.message) };
    } finally {
      await world.control.faults.clear('web');
    }
  }
  const claimsSourceCalls = () => world.count('GET', '/oidc/claims-source');

  it('aggregated claims signed by the provider are used; _claim_names and _claim_sources are gone', async () => {
    const { claims, unresolved } = await resolvedWith('userinfo_aggregated_claims');
    expect(unresolved).toEqual([]);
    expect(claims).toMatchObject({ sub: 'alice', phone_number: '+1 (310) 123-4567', address: { postal_code: '90210' } });
    expect(Object.keys(claims)).not.toContain('_claim_names');
  });

  it('an aggregated JWT with a bad signature, or unsigned (as the certification suite sends it): its claims are not used', async () => {
    const bad = await resolvedWith('userinfo_aggregated_claims_bad_signature');
    expect(bad.unresolved).toEqual(['address:claims_signature_invalid', 'phone_number:claims_signature_invalid']);
    expect(bad.claims).not.toHaveProperty('address');
    const unsigned = await resolvedWith('userinfo_aggregated_claims_unsigned');
    expect(unsigned.unresolved).toEqual(['address:claims_source_unsigned', 'phone_number:claims_source_unsigned']);
    expect(unsigned.claims).not.toHaveProperty('phone_number');
    expect(unsigned.claims).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  });

  it('distributed claims at the provider: one GET with the source token, verified, credit_score used; the token is in no message', async () => {
    const before = claimsSourceCalls();
    const { claims, unresolved } = await resolvedWith('userinfo_distributed_claims');
    expect(unresolved).toEqual([]);
    expect(claims).toMatchObject({ sub: 'alice', credit_score: 650 });
    expect(claimsSourceCalls()).toBe(before + 1);
    expect(world.provider.requests({ path: '/demo/oidc/claims-source' }).at(-1)).toMatchObject({ authorization: 'bearer', status: 200 });
  });

  it('a distributed endpoint on another origin or over plain http is never called', async () => {
    const before = claimsSourceCalls();
    const other = await resolvedWith('userinfo_distributed_claims_other_origin');
    expect(other.unresolved).toEqual(['credit_score:claims_source_not_trusted']);
    expect(other.claims).not.toHaveProperty('credit_score');
    const insecure = await resolvedWith('userinfo_distributed_claims_insecure_endpoint');
    expect(insecure.unresolved).toEqual(['credit_score:claims_source_insecure']);
    expect(claimsSourceCalls()).toBe(before);
    for (const message of [...other.messages, ...insecure.messages]) expect(message).not.toContain(tokens.accessToken);
  });

  it('another origin named in claimsProviders is trusted: fetched there and verified with its keys', async () => {
    const otherIssuer = world.issuer.replace('127.0.0.1', 'localhost');
    const { claims, unresolved } = await resolvedWith('userinfo_distributed_claims_other_origin', {
      claimsProviders: [{ issuer: otherIssuer, jwksUri: `${otherIssuer}/oidc/jwks` }],
    });
    expect(unresolved).toEqual([]);
    expect(claims).toMatchObject({ credit_score: 650 });
  });

  it('tokenIn "body": userinfo as a form POST with access_token, no Authorization header (RFC 6750 2.2, oidcc-client-test-userinfo-bearer-body)', async () => {
    const userinfo = await world.client.getUserInfo(tokens.accessToken, { expectedSubject: 'alice', tokenIn: 'body' });
    expect(userinfo).toMatchObject({ sub: 'alice' });
    const last = world.provider.requests({ path: '/demo/oidc/userinfo' }).at(-1);
    expect(last).toMatchObject({ method: 'POST', status: 200, params: { access_token: '[redacted]' } });
    expect(last?.authorization).toBeUndefined();
  });
});
