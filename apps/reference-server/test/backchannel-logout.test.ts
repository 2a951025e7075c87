// OpenID Connect Back-Channel Logout 1.0 from the provider's side: logout tokens POSTed over real
// HTTP to a receiver on 127.0.0.1 when a sign-in ends (RP-initiated logout, the sessions.end
// control call), with sid only for clients that registered backchannel_logout_session_required,
// bounded retries, each attempt in the journal, and the logout page answering in bounded time.
import { type IncomingMessage, type Server, createServer } from 'node:http';
import { once } from 'node:events';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlError, createReferenceServer, demoConfig, validateConfig } from '../src/index';
import { ATTEMPT_TIMEOUT_MS, LOGOUT_WAIT_MS, NO_BACKCHANNEL_URI, RETRY_DELAYS_MS } from '../src/backchannel/backchannel';
import { REDACTED } from '../src/control/journal';
import { createTestServer } from '../src/testing';
import { type Harness, CookieJar, ISSUER, authorizeUrl, demoClient, demoTenant, exchangeWebCode, refusal, setup, webCode, webParams } from './helpers';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

// The retries wait on the server's real timers. Each budget below is what the schedule takes
// (every attempt timing out, plus the pauses between them), with a margin for a loaded machine,
// instead of a guess.
const MARGIN_MS = 5_000;
const PAUSES_MS = RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0);
const ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Every attempt answered at once: the pauses alone. */
const RETRIES_MS = PAUSES_MS + MARGIN_MS;
/** Every attempt hanging until its timeout. */
const HANGING_RETRIES_MS = ATTEMPTS * ATTEMPT_TIMEOUT_MS + PAUSES_MS + MARGIN_MS;

interface Received {
  contentType: string | undefined;
  body: URLSearchParams;
}

/** A client's back-channel endpoint: records each POST and answers with the next status (200 when none is left; 'hang' never answers). */
interface Receiver {
  url: string;
  received: Received[];
  answers: Array<number | 'hang'>;
  close(): Promise<void>;
}

const receivers: Receiver[] = [];

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Array<number | 'hang'> = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ contentType: req.headers['content-type'], body: new URLSearchParams(Buffer.concat(chunks).toString('utf8')) });
    const answer = answers.shift() ?? 200;
    if (answer === 'hang') return;
    res.statusCode = answer;
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/backchannel-logout`,
    received,
    answers,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  receivers.push(receiver);
  return receiver;
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

let web: Receiver;
let other: Receiver;
let h: Harness;

beforeEach(async () => {
  [web, other] = await Promise.all([startReceiver(), startReceiver()]);
  h = await setup((config) => {
    Object.assign(demoClient(config, 'web'), { backchannel_logout_uri: web.url, backchannel_logout_session_required: true });
    demoTenant(config).clients?.push({
      client_id: 'other',
      client_secret: 'other-secret',
      redirect_uris: ['http://127.0.0.1:3001/callback'],
      scopes: ['openid'],
      skip_consent: true,
      backchannel_logout_uri: other.url,
    });
  });
});

/** Signs alice in for `web` (and `other` in the same sign-in when asked); returns the jar and web's ID token. */
async function signIn(options: { alsoOther?: boolean } = {}): Promise<{ jar: CookieJar; idToken: string }> {
  const jar = new CookieJar();
  const code = await webCode(h, {}, jar);
  const { id_token: idToken } = (await (await exchangeWebCode(h, code)).json()) as { id_token: string };
  if (options.alsoOther) {
    const response = await h.fetch(new Request(authorizeUrl({ response_type: 'code', client_id: 'other', redirect_uri: 'http://127.0.0.1:3001/callback', scope: 'openid', state: 's' }), { headers: { cookie: jar.header(authorizeUrl({})) ?? '' } }));
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:3001\/callback\?code=/);
  }
  return { jar, idToken };
}

async function rpLogout(jar: CookieJar, idToken: string): Promise<Response> {
  const url = new URL(`${ISSUER}/oidc/logout`);
  url.searchParams.set('id_token_hint', idToken);
  return h.fetch(new Request(url, { headers: { cookie: jar.header(url) ?? '' } }));
}

async function verifyLogoutToken(token: string, audience: string) {
  const jwks = (await (await h.get('/oidc/jwks')).json()) as { keys: [] };
  return jwtVerify(token, createLocalJWKSet(jwks), { issuer: ISSUER, audience, currentDate: new Date(h.clock.ms), typ: 'logout+jwt' });
}

async function ssoStillWorks(jar: CookieJar): Promise<boolean> {
  const url = authorizeUrl(webParams({ prompt: 'none' }));
  const response = await h.fetch(new Request(url, { headers: { cookie: jar.header(url) ?? '' } }));
  return new URL(response.headers.get('location') ?? '').searchParams.has('code');
}

describe('logout tokens on RP-initiated logout', () => {
  it('POSTs a signed logout token to each client of the sign-in: sid only where registered, never nonce', async () => {
    const { jar, idToken } = await signIn({ alsoOther: true });
    const idClaims = JSON.parse(Buffer.from(idToken.split('.')[1] as string, 'base64url').toString()) as { sid: string; nonce: string };
    expect(idClaims.nonce).toBe('n-1');

    const response = await rpLogout(jar, idToken);
    expect(response.status).toBe(200);
    expect(web.received).toHaveLength(1);
    expect(other.received).toHaveLength(1);

    const [toWeb] = web.received as [Received];
    expect(toWeb.contentType).toBe('application/x-www-form-urlencoded');
    expect([...toWeb.body.keys()]).toEqual(['logout_token']);
    const token = toWeb.body.get('logout_token') as string;
    expect(decodeProtectedHeader(token)).toMatchObject({ typ: 'logout+jwt', alg: 'RS256', kid: expect.any(String) });
    const { payload } = await verifyLogoutToken(token, 'web');
    expect(payload).toMatchObject({ iss: ISSUER, aud: 'web', sub: 'alice', sid: idClaims.sid, events: { [EVENT]: {} } });
    expect(payload.jti).toEqual(expect.any(String));
    expect((payload.exp as number) - (payload.iat as number)).toBeLessThanOrEqual(120);
    expect(payload.iat).toBe(Math.floor(h.clock.ms / 1000));
    expect(payload).not.toHaveProperty('nonce');

    const { payload: toOther } = await verifyLogoutToken(other.received[0]?.body.get('logout_token') as string, 'other');
    expect(toOther).toMatchObject({ sub: 'alice', aud: 'other' });
    expect(toOther).not.toHaveProperty('sid');
    expect(toOther.jti).not.toBe(payload.jti);

    // Each delivery is in the journal, the token itself redacted.
    const journal = h.server.requests({ path: web.url });
    expect(journal).toEqual([expect.objectContaining({ method: 'POST', tenant: 'demo', client_id: 'web', status: 200, params: { logout_token: REDACTED }, outbound: { attempt: 1 } })]);
    expect(JSON.stringify(h.server.requests())).not.toContain(token);
  });

  it('logout_token_wrong_alg: the logout token to that client only is signed ES256 by a published key; discovery lists ES256', async () => {
    await h.server.control.faults.set('web', 'logout_token_wrong_alg');
    const { jar, idToken } = await signIn({ alsoOther: true });
    expect(decodeProtectedHeader(idToken).alg).toBe('RS256'); // the ID tokens stay the tenant's
    const discovery = (await (await h.get('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    await rpLogout(jar, idToken);
    const token = web.received[0]?.body.get('logout_token') as string;
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'logout+jwt' });
    const published = ((await (await h.get('/oidc/jwks')).json()) as { keys: Array<{ kid: string; kty: string }> }).keys;
    expect(published.find((k) => k.kid === header.kid)?.kty).toBe('EC');
    expect((await verifyLogoutToken(token, 'web')).payload).toMatchObject({ aud: 'web', sub: 'alice' });
    expect(decodeProtectedHeader(other.received[0]?.body.get('logout_token') as string).alg).toBe('RS256');
    await h.server.control.faults.clear('web');
    const healthy = (await (await h.get('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(healthy.id_token_signing_alg_values_supported).toEqual(['RS256']);
  });

  // The certification harness's logout-token faults: each bends what it names, for its client only.
  const claimFaults = [
    ['logout_token_missing_events', (p: Record<string, unknown>) => expect(p).not.toHaveProperty('events')],
    ['logout_token_wrong_events', (p: Record<string, unknown>) => expect(p.events).toEqual({ 'http://schemas.openid.net/event/foobar': {} })],
    ['logout_token_with_nonce', (p: Record<string, unknown>) => expect(p.nonce).toEqual(expect.any(String))],
    ['logout_token_wrong_aud', (p: Record<string, unknown>) => expect(p.aud).toBe('webINVALID')],
    ['logout_token_wrong_iss', (p: Record<string, unknown>) => expect(p.iss).toBe(`${ISSUER}INVALID`)],
  ] as const;
  for (const [fault, check] of claimFaults) {
    it(`${fault}: the logout token to that client only is signed by the tenant's key with that change`, async () => {
      await h.server.control.faults.set('web', fault);
      const { jar, idToken } = await signIn({ alsoOther: true });
      await rpLogout(jar, idToken);
      const token = web.received[0]?.body.get('logout_token') as string;
      expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'logout+jwt' });
      const jwks = (await (await h.get('/oidc/jwks')).json()) as { keys: [] };
      const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { currentDate: new Date(h.clock.ms) });
      expect(payload).toMatchObject({ sub: 'alice', sid: expect.any(String) });
      check(payload);
      const { payload: toOther } = await verifyLogoutToken(other.received[0]?.body.get('logout_token') as string, 'other');
      expect(toOther).toMatchObject({ iss: ISSUER, aud: 'other', events: { [EVENT]: {} } });
      expect(toOther).not.toHaveProperty('nonce');
    });
  }

  it('logout_token_alg_none: the logout token to that client only is unsecured (alg none, empty signature)', async () => {
    await h.server.control.faults.set('web', 'logout_token_alg_none');
    const { jar, idToken } = await signIn({ alsoOther: true });
    await rpLogout(jar, idToken);
    const token = web.received[0]?.body.get('logout_token') as string;
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'none', typ: 'logout+jwt' });
    expect(token.endsWith('.')).toBe(true);
    const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: ISSUER, aud: 'web', sub: 'alice', events: { [EVENT]: {} } });
    expect(decodeProtectedHeader(other.received[0]?.body.get('logout_token') as string).alg).toBe('RS256');
  });

  it('tells only the clients of the sign-in that ended, once', async () => {
    const first = await signIn();
    const second = await signIn({ alsoOther: true });
    await rpLogout(first.jar, first.idToken);
    expect(web.received).toHaveLength(1);
    expect(other.received).toHaveLength(0);
    expect(await ssoStillWorks(second.jar)).toBe(true);
    // Logging out again (no session any more) sends nothing.
    await rpLogout(first.jar, first.idToken);
    expect(web.received).toHaveLength(1);
  });

  it('retries a failed delivery (no answer, 5xx) a bounded number of times; a 400 is not retried (timer: the pauses between attempts)', async () => {
    web.answers.push(503, 200);
    const a = await signIn();
    await rpLogout(a.jar, a.idToken);
    await expect.poll(() => h.server.requests({ path: web.url }).map((e) => [e.outbound?.attempt, e.status]), { timeout: RETRIES_MS }).toEqual([
      [1, 503],
      [2, 200],
    ]);
    expect(new Set(web.received.map((r) => r.body.get('logout_token'))).size).toBe(1); // the same token again

    await h.server.control.requests.clear();
    web.answers.push(400);
    const b = await signIn();
    await rpLogout(b.jar, b.idToken);
    expect(h.server.requests({ path: web.url }).map((e) => e.status)).toEqual([400]);

    await h.server.control.requests.clear();
    web.answers.push(500, 502, 504, 200);
    const c = await signIn();
    await rpLogout(c.jar, c.idToken);
    await expect.poll(() => h.server.requests({ path: web.url }).length, { timeout: RETRIES_MS }).toBe(3);
    expect(h.server.requests({ path: web.url }).map((e) => e.status)).toEqual([500, 502, 504]);
    expect(web.answers).toEqual([200]); // no fourth attempt
  });

  it('answers the logout page in bounded time when a client hangs, and journals the timeouts (timer: the logout wait and each attempt\u2019s timeout)', async () => {
    web.answers.push('hang', 'hang', 'hang');
    const { jar, idToken } = await signIn();
    const response = await rpLogout(jar, idToken);
    expect(response.status).toBe(200);
    // The page did not wait for the deliveries: it answered after its own wait (LOGOUT_WAIT_MS),
    // while the first attempt was still hanging. What was journaled says so, however slow the machine.
    expect(LOGOUT_WAIT_MS).toBeLessThan(ATTEMPT_TIMEOUT_MS * ATTEMPTS);
    expect(h.server.requests({ path: web.url }).length).toBeLessThan(ATTEMPTS);
    await expect.poll(() => h.server.requests({ path: web.url }).length, { timeout: HANGING_RETRIES_MS, interval: 200 }).toBe(3);
    expect(h.server.requests({ path: web.url })).toEqual(
      [1, 2, 3].map((attempt) => expect.objectContaining({ status: 0, outbound: { attempt, error: 'timeout' } })),
    );
  }, HANGING_RETRIES_MS + MARGIN_MS);

  it('journals an unreachable client as a network failure (timer: the pauses between attempts)', async () => {
    const gone = await startReceiver();
    await gone.close();
    await h.server.control.clients.update('web', { backchannel_logout_uri: gone.url });
    web.answers.length = 0;
    const { jar, idToken } = await signIn();
    await rpLogout(jar, idToken);
    await expect.poll(() => h.server.requests({ path: gone.url }).length, { timeout: RETRIES_MS }).toBe(3);
    expect(h.server.requests({ path: gone.url })[0]).toMatchObject({ status: 0, outbound: { attempt: 1, error: 'network' } });
  });
});

describe('the sessions.end control call', () => {
  it('ends every sign-in of the user (SSO refused) and tells their clients; other users are untouched', async () => {
    const a = await signIn({ alsoOther: true });
    const b = await signIn();
    const result = await h.server.control.sessions.end('alice');
    expect(result.sessions).toBe(2);
    expect(result.deliveries).toEqual(
      expect.arrayContaining([
        { client_id: 'web', delivered: true, attempts: 1, status: 200 },
        { client_id: 'other', delivered: true, attempts: 1, status: 200 },
      ]),
    );
    expect(result.deliveries).toHaveLength(3);
    expect(web.received).toHaveLength(2);
    const sids = await Promise.all(web.received.map(async (r) => (await verifyLogoutToken(r.body.get('logout_token') as string, 'web')).payload.sid));
    expect(new Set(sids).size).toBe(2);
    expect(await ssoStillWorks(a.jar)).toBe(false);
    expect(await ssoStillWorks(b.jar)).toBe(false);
    // Nothing left to end, and the answer says why nothing was delivered.
    expect(await h.server.control.sessions.end('alice')).toEqual({
      sessions: 0,
      deliveries: [],
      hint: 'alice has no live sign-in on this server (none yet, all ended, or served by another instance): nothing to end or deliver',
    });
  });

  it('names each client of an ended sign-in that got no logout token, and why', async () => {
    const config = demoConfig();
    delete demoClient(config, 'web').backchannel_logout_uri; // as a client registered without one
    await using op = await createTestServer({ config });
    await op.loginAs('alice', { client: 'web' });
    const result = await op.server.control.sessions.end('alice');
    expect(result).toEqual({ sessions: 1, deliveries: [], not_notified: [{ client_id: 'web', reason: NO_BACKCHANNEL_URI }] });
    expect(result.not_notified?.[0]?.reason).toMatch(/^no backchannel_logout_uri is registered for this client: register one/);
  });

  it('refuses an unknown user with 404 unknown_user', async () => {
    const error = await h.server.control.sessions.end('nobody').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlError);
    expect(error).toMatchObject({ code: 'unknown_user', field: 'username', status: 404 });
  });
});

describe('over the HTTP control API', () => {
  it('DELETE /_control/sessions/{username} needs X-Control-Request and answers the deliveries', async () => {
    const config = demoConfig();
    Object.assign(demoClient(config, 'web'), { backchannel_logout_uri: web.url });
    const server = await createReferenceServer(config, { logger: false, developmentKeys: true, controlApi: true });
    const { origin, close } = await server.listen({ port: 0 });
    try {
      const url = `${origin}/_control/sessions/alice`;
      expect((await fetch(url, { method: 'DELETE' })).status).toBe(403);
      const response = await fetch(url, { method: 'DELETE', headers: { 'X-Control-Request': '1' } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ sessions: 0, deliveries: [], hint: expect.stringMatching(/^alice has no live sign-in/) });
      expect((await fetch(`${origin}/_control/sessions/nobody`, { method: 'DELETE', headers: { 'X-Control-Request': '1' } })).status).toBe(404);
    } finally {
      await close();
    }
  });
});

describe('discovery and registration', () => {
  it('advertises back-channel logout with sid', async () => {
    const metadata = (await (await h.get('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
  });

  it('takes https, or http on loopback in a development tenant; refuses the rest', () => {
    const withUri = (uri: unknown, development = true) => {
      const config = demoConfig();
      demoTenant(config).development = development;
      if (!development) demoTenant(config).demo_login = false;
      Object.assign(demoClient(config, 'web'), { backchannel_logout_uri: uri, redirect_uris: ['https://app.example/cb'], post_logout_redirect_uris: [] });
      return config;
    };
    expect(() => validateConfig(withUri('https://app.example/bcl', false))).not.toThrow();
    expect(() => validateConfig(withUri('http://localhost:3000/bcl'))).not.toThrow();
    for (const uri of ['http://app.example/bcl', 'https://app.example/bcl#x', 'not a uri', '/relative']) {
      expect(refusal(withUri(uri)).field, uri).toBe('tenants[0].clients[1].backchannel_logout_uri');
    }
    expect(refusal(withUri('http://127.0.0.1:3000/bcl', false)).field).toBe('tenants[0].clients[1].backchannel_logout_uri');
    expect(refusal(withUri(7)).field).toBe('tenants[0].clients[1].backchannel_logout_uri');
    const session = demoConfig();
    Object.assign(demoClient(session, 'web'), { backchannel_logout_session_required: 'yes' });
    expect(refusal(session).field).toBe('tenants[0].clients[1].backchannel_logout_session_required');
  });
});
