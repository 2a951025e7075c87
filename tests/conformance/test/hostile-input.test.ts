// Random and malformed requests at every endpoint of the reference server (fast-check, bounded
// runs): bad encodings, repeated and oversized parameters, wrong methods and content types,
// random cookies and credentials. Every answer is a 4xx (or the endpoint's normal 2xx / an
// internal redirect), never a 5xx, never a redirect or form_post to an unregistered URI, and
// a redirect to a client is a contract-shaped error; afterwards a valid login still works.
import { connect } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { createReferenceServer, demoConfig, type Listening, type ReferenceServer } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ORIGIN = 'http://localhost';
const ISSUER = `${ORIGIN}/demo`;
const config = demoConfig();
const clients = config.tenants[0]?.clients ?? [];
const REDIRECT_URIS = new Set(clients.flatMap((c) => c.redirect_uris ?? []));
const LOGOUT_URIS = new Set(clients.flatMap((c) => c.post_logout_redirect_uris ?? []));

const ENDPOINTS: Array<{ path: string; kind: 'json' | 'html'; methods: string[] }> = [
  { path: '/.well-known/openid-configuration', kind: 'json', methods: ['GET'] },
  { path: '/oidc/jwks', kind: 'json', methods: ['GET'] },
  { path: '/oidc/authorize', kind: 'html', methods: ['GET'] },
  { path: '/oidc/login', kind: 'html', methods: ['GET', 'POST'] },
  { path: '/oidc/consent', kind: 'html', methods: ['GET', 'POST'] },
  { path: '/oidc/token', kind: 'json', methods: ['POST'] },
  { path: '/oauth/token', kind: 'json', methods: ['POST'] },
  { path: '/oidc/userinfo', kind: 'json', methods: ['GET', 'POST'] },
  { path: '/oauth/revoke', kind: 'json', methods: ['POST'] },
  { path: '/oidc/logout', kind: 'html', methods: ['GET', 'POST'] },
];

let server: ReferenceServer;
beforeAll(async () => {
  server = await createReferenceServer(demoConfig(), { logger: false, developmentKeys: true });
});
afterAll(() => server.close());

// ---------------------------------------------------------------------------------------
// Arbitraries

const NAMES = [
  'client_id', 'redirect_uri', 'response_type', 'response_mode', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method',
  'prompt', 'max_age', 'login_hint', 'request', 'request_uri', 'grant_type', 'code', 'code_verifier', 'client_secret', 'refresh_token',
  'access_token', 'token', 'token_type_hint', 'interaction', 'csrf', 'username', 'password', 'action', 'decision', 'id_token_hint',
  'post_logout_redirect_uri',
];
const VALUES = [
  'spa', 'web', 'service', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', 'service-secret', 'code', 'token', 'id_token', 'id_token token', 'code id_token', 'code token id_token',
  'openid', 'openid profile email offline_access', 'api.read', 'query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt', 'S256', 'plain', 'none', 'login', 'consent',
  'authorization_code', 'refresh_token', 'client_credentials', 'alice', 'wonderland', 'allow', 'deny', 'cancel', '0', '-1', '99999999999',
  ...REDIRECT_URIS, ...LOGOUT_URIS,
  'http://127.0.0.1:5173/callback#frag', 'http://127.0.0.1:5173/callback?x=1', 'http://127.0.0.1:5173/callback/', 'HTTP://127.0.0.1:5173/callback',
  'http://evil.example/callback', 'https://evil.example/', '//evil.example/', 'javascript:alert(1)', 'data:text/html,hi', '/demo/oidc/token',
  'A'.repeat(43), createHash('sha256').update('verifier').digest('base64url'), 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.',
];
const BROKEN_ESCAPES = ['%', '%z', '%zz', '%E0%A4%A', '%C3%28', '%FF', '%00', '%ED%A0%80', '%F0%9F%98', '%%', '%2', '+%'];

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });

const value = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...VALUES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 4000, max: 6000 }).map((n) => 'x'.repeat(n)) }, // over the 4096-byte limit
);
const name = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });

/** Percent-encodes the UTF-8 of `text` (lone surrogates become U+FFFD, as a browser sends them). */
function encode(text: string): string {
  return Array.from(Buffer.from(text, 'utf8'), (byte) =>
    /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

/** One `name=value` piece: percent-encoded, raw, or with a broken escape spliced in. */
const piece = fc
  .tuple(name, value, fc.constantFrom('encoded', 'raw', 'broken'), fc.constantFrom(...BROKEN_ESCAPES))
  .map(([n, v, how, broken]) => {
    if (how === 'encoded') return `${encode(n)}=${encode(v)}`;
    if (how === 'broken') return `${encode(n)}=${encode(v.slice(0, 10))}${broken}`;
    return `${n.replace(/[#&]/g, '')}=${v.replace(/[#&]/g, '')}`;
  });

/** A query or form string: a few parameters, sometimes with repeats, sometimes over 64 of them. */
const paramString = fc.oneof(
  { weight: 6, arbitrary: fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join('&')) },
  { weight: 1, arbitrary: fc.tuple(piece, fc.integer({ min: 2, max: 4 })).map(([p, n]) => Array(n).fill(p).join('&')) },
  { weight: 1, arbitrary: fc.integer({ min: 65, max: 80 }).map((n) => Array.from({ length: n }, (_, i) => `p${i}=v`).join('&')) },
);

const body = fc.oneof(
  { weight: 5, arbitrary: paramString },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.constant('{"grant_type":"client_credentials"}') },
  { weight: 1, arbitrary: fc.integer({ min: 65 * 1024, max: 70 * 1024 }).map((n) => `a=${'b'.repeat(n)}`) }, // over the 64 KB limit
);

const cookie = fc
  .array(fc.tuple(fc.constantFrom('rs_browser', 'rs_session', 'session', printable.map((s) => s.replace(/[=; ,"]/g, '') || 'c')), printable), { maxLength: 4 })
  .map((pairs) => pairs.map(([n, v]) => `${n}=${v.replace(/[;]/g, '')}`).join('; '));

const authorization = fc.oneof(
  printable.map((t) => `Bearer ${t}`),
  fc.tuple(printable, printable).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`),
  fc.constantFrom(`Basic ${Buffer.from('web:web-secret-of-the-demo-Zq7Xk2Lm9Vb4').toString('base64')}`, 'Basic !!!', 'Bearer', 'Negotiate abc'),
  printable,
);

const contentType = fc.constantFrom(
  'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8', 'application/x-www-form-urlencoded;charset=latin1',
  'application/json', 'text/plain', 'multipart/form-data; boundary=x', 'APPLICATION/X-WWW-FORM-URLENCODED', 'garbage',
);

const endpoint = fc.oneof(
  { weight: 9, arbitrary: fc.constantFrom(...ENDPOINTS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<(typeof ENDPOINTS)[number]>({ path: '/oidc/unknown', kind: 'json', methods: [] }, { path: '/%zz/../oidc/token', kind: 'json', methods: [] }),
  },
);

/** Mostly a method the endpoint serves, so requests get past routing; sometimes any other. */
const endpointAndMethod = endpoint.chain((e) =>
  fc
    .oneof(
      { weight: 4, arbitrary: e.methods.length ? fc.constantFrom(...e.methods) : fc.constant('GET') },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
    )
    .map((method) => ({ endpoint: e, method })),
);

const hostileRequest = fc.record(
  {
    target: endpointAndMethod,
    query: paramString,
    body,
    contentType,
    cookie,
    authorization,
    origin: fc.constantFrom('http://127.0.0.1:5173', 'http://evil.example', 'null'),
  },
  { requiredKeys: ['target', 'query'] },
);

type Hostile = typeof hostileRequest extends fc.Arbitrary<infer T> ? T : never;

function toRequest(r: Hostile): Request {
  const { endpoint: e, method } = r.target;
  const headers = new Headers();
  if (r.cookie) headers.set('cookie', r.cookie);
  if (r.authorization) headers.set('authorization', r.authorization);
  if (r.origin) headers.set('origin', r.origin);
  const hasBody = r.body !== undefined && method !== 'GET' && method !== 'HEAD';
  if (hasBody && r.contentType) headers.set('content-type', r.contentType);
  return new Request(`${ISSUER}${e.path}${r.query ? `?${r.query}` : ''}`, {
    method,
    headers,
    ...(hasBody ? { body: r.body } : {}),
  });
}

// ---------------------------------------------------------------------------------------
// What every answer must look like

/** Where a URL the server sends the browser to may point: this tenant, or a registered URI. */
function destination(target: URL): 'internal' | 'redirect_uri' | 'post_logout' | 'unregistered' {
  if (target.origin === ORIGIN && target.pathname.startsWith('/demo/')) return 'internal';
  const base = `${target.origin}${target.pathname}`;
  if (REDIRECT_URIS.has(base)) return 'redirect_uri';
  if (LOGOUT_URIS.has(base)) return 'post_logout';
  return 'unregistered';
}

/** A JARM response's parameters (its JWT's claims, read without verification: only their shape is checked here); plain ones as they are. */
function jarmOpened(params: URLSearchParams): URLSearchParams {
  const response = params.get('response');
  if (response === null) return params;
  const claims = JSON.parse(Buffer.from(response.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
  return new URLSearchParams(Object.entries(claims).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

async function checkAnswer(request: Request, kind: 'json' | 'html', response: Response): Promise<void> {
  const what = `${request.method} ${new URL(request.url).pathname} → ${response.status}`;
  expect(response.status, what).toBeLessThan(500);
  const type = response.headers.get('content-type') ?? '';
  const text = request.method === 'HEAD' ? '' : await response.text();

  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    expect(location, what).toEqual(expect.any(String));
    const target = new URL(location ?? '', request.url);
    const where = destination(target);
    expect(where, `${what} to ${target.origin}${target.pathname}`).not.toBe('unregistered');
    if (where === 'redirect_uri') {
      // Only a signed-in user could get a code; everything else is an error for the client.
      const params = jarmOpened(new URLSearchParams(target.hash ? target.hash.slice(1) : target.search));
      expect(params.get('error'), what).toMatch(/^[a-z_]+$/);
      expect(params.get('iss'), what).toBe(ISSUER);
    }
  }
  for (const [, action] of text.matchAll(/<form[^>]*action="([^"]*)"/g)) {
    const target = new URL((action ?? '').replace(/&amp;/g, '&'), request.url);
    expect(destination(target), `${what}: form to ${target.href}`).not.toBe('unregistered');
    if (destination(target) === 'redirect_uri') expect(text, what).toMatch(/name="(error" value="[a-z_]+|response" value="ey[\w.-]+)"/);
  }
  if (response.status >= 400 && request.method !== 'HEAD') {
    if (kind === 'json') {
      expect(type, what).toMatch(/^application\/json/);
      expect((JSON.parse(text) as { error?: unknown }).error, what).toEqual(expect.any(String));
    } else {
      expect(type, what).toMatch(/^text\/html/);
    }
  }
}

/** A public client's whole login and code exchange: the server still serves valid flows. */
async function validLoginWorks(fetchFn: (request: Request) => Promise<Response>, issuer: string): Promise<void> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${issuer}/oidc/authorize`);
  const params = {
    response_type: 'code', client_id: 'spa', redirect_uri: 'http://127.0.0.1:5173/callback', scope: 'openid', state: 's', nonce: 'n',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const result = await completeLogin(url, { fetch: fetchFn });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const code = new URL(result.location).searchParams.get('code') ?? '';
  const exchange = await fetchFn(
    new Request(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: params.redirect_uri, client_id: 'spa', code_verifier: verifier }),
    }),
  );
  expect(exchange.status).toBe(200);
  expect((await exchange.json()) as object).toHaveProperty('id_token');
}

describe('hostile requests at every endpoint of the reference server', () => {
  it('never a 5xx, never a redirect or form_post to an unregistered URI, errors in the endpoint’s shape', async () => {
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (r) => {
        const request = toRequest(r);
        await checkAnswer(request, r.target.endpoint.kind, await server.fetch(request.clone()));
      }),
      { numRuns: 1000 },
    );
    await validLoginWorks((request) => server.fetch(request), ISSUER);
  });

  it('refuses a body over 64 KB even when the caller keeps a copy of the request (a tee’d stream)', async () => {
    for (const e of ENDPOINTS.filter((entry) => entry.methods.includes('POST'))) {
      const request = new Request(`${ISSUER}${e.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `a=${'b'.repeat(70 * 1024)}`,
      });
      const response = await server.fetch(request.clone());
      expect(response.status, e.path).toBeGreaterThanOrEqual(400);
      await checkAnswer(request, e.kind, response);
    }
  });

  it('authorize with random redirect URIs and parameters: no open redirect', async () => {
    const otherUri = fc.oneof(
      fc.constantFrom(...REDIRECT_URIS, ...LOGOUT_URIS, 'http://127.0.0.1:5173/callback/../callback', 'http://127.0.0.1:5173/callback%23x'),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.constantFrom(...REDIRECT_URIS).chain((uri) => fc.string({ maxLength: 6 }).map((suffix) => `${uri}${suffix}`)),
    );
    // Half the time the client's own registered URI, so validation goes on to error redirects.
    const clientAndUri = fc.constantFrom('spa', 'web', 'service', 'nobody').chain((clientId) => {
      const own = clients.find((c) => c.client_id === clientId)?.redirect_uris ?? [];
      return fc.tuple(fc.constant(clientId), own.length ? fc.oneof(fc.constantFrom(...own), otherUri) : otherUri);
    });
    await fc.assert(
      fc.asyncProperty(clientAndUri, fc.array(piece, { maxLength: 6 }), fc.nat(4).map((n) => n === 0), async ([clientId, uri], extra, twice) => {
        const query = [`client_id=${clientId}`, `redirect_uri=${encode(uri)}`, ...(twice ? [`redirect_uri=${encode(uri)}`] : []), ...extra];
        const request = new Request(`${ISSUER}/oidc/authorize?${query.join('&')}`);
        await checkAnswer(request, 'html', await server.fetch(request.clone()));
      }),
      { numRuns: 500 },
    );
  });
});

describe('malformed HTTP on the wire', () => {
  let listening: Listening;
  beforeAll(async () => {
    listening = await server.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => listening.close());

  /** Sends raw bytes; resolves with the status code of the answer, or undefined when the connection closed without one. */
  function raw(bytes: Uint8Array): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      const socket = connect(listening.port, '127.0.0.1');
      let answer = '';
      socket.setTimeout(2000, () => socket.destroy());
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
        if (answer.includes('\r\n')) socket.destroy();
      });
      // The server may close on the garbage while the rest is still being written: a reset, or on
      // a loaded machine EPIPE (the write side of the same close). Both are a closed connection.
      socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
      socket.on('close', () => {
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1];
        resolve(status === undefined ? undefined : Number(status));
      });
      socket.end(bytes);
    });
  }

  const requestLine = fc.tuple(
    fc.constantFrom('GET', 'POST', 'PUT', 'G\u00e9T', ''),
    fc.oneof(fc.constantFrom(...ENDPOINTS.map((e) => `/demo${e.path}`)), printable.map((p) => `/demo/${p}`), fc.string({ unit: 'binary', maxLength: 30 })),
    fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/9.9', ''),
  );
  const header = fc.oneof(
    fc.tuple(printable, printable).map(([n, v]) => `${n}: ${v}`),
    fc.constantFrom('Content-Length: -1', 'Content-Length: 99999999999', 'Transfer-Encoding: chunked', 'Cookie: rs_browser=%zz', 'Host:'),
    fc.string({ unit: 'binary', maxLength: 30 }),
  );

  it('answers garbage with a 4xx or closes the connection, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(requestLine, fc.array(header, { maxLength: 5 }), fc.uint8Array({ maxLength: 64 }), async ([method, target, version], headers, tail) => {
        const head = Buffer.from([`${method} ${target} ${version}`, 'Host: 127.0.0.1', ...headers, '', ''].join('\r\n'), 'utf8');
        const status = await raw(new Uint8Array([...head, ...tail]));
        if (status !== undefined) expect(status).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
    await validLoginWorks((request) => fetch(request), `${listening.origin}/demo`);
  });
});
