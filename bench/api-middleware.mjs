/**
 * The access-token middleware of @oidc-rp/node/api, in process, interleaved in one run:
 *
 *   - a bare Hono handler (`app.fetch(request)`: routing, the handler's JSON response);
 *   - the same handler behind `honoAccessToken(requireAccessToken(...))` with a verifier that
 *     accepts at once, so the difference is the middleware's own work (header checks, the URL
 *     from the configured origin, the ResourceRequest, the scope check, the context variable);
 *   - the same guard refusing a request without a token (the RFC 6750 challenge response);
 *   - introspectionVerifier answering from its cache (the SHA-256 of the token, the map lookup,
 *     the claim checks), the fetch stubbed so a miss would be counted.
 *
 * Hono is resolved from apps/node-example (bench/ does not depend on it).
 */

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { clientSecretBasic } from '@oidc-rp/core';
import { AccessTokenError, introspectionVerifier } from '@oidc-rp/core/api';
import { honoAccessToken, requireAccessToken } from '@oidc-rp/node/api';
import { emit } from './lib/emit.mjs';
import { interleave, pairedRatio } from './lib/interleave.mjs';
import { num, ratio, table } from './lib/table.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const fromExample = createRequire(join(here, '../apps/node-example/package.json'));
const { Hono } = await import(pathToFileURL(fromExample.resolve('hono')).href);

const ORIGIN = 'https://api.example.com';
const TOKEN = 'a'.repeat(43); // the length of the reference server's opaque tokens
const claims = { iss: 'https://id.example.com', sub: 'alice', aud: ORIGIN, exp: 4_000_000_000, client_id: 'spa', scope: 'orders.read' };

export async function run({ rounds = 5, sliceMs = 300 } = {}) {
  const accepted = { claims, scheme: 'Bearer', scopes: ['orders.read'] };
  const verifier = async (request) => {
    if (request.authorization === null) throw new AccessTokenError('access_token_missing', 'invalid_token', 'An access token is required.');
    return accepted;
  };
  const guard = requireAccessToken({ verifier, origin: ORIGIN, scope: 'orders.read', resourceMetadata: `${ORIGIN}/.well-known/oauth-protected-resource` });

  const bare = new Hono();
  bare.get('/orders', (c) => c.json({ sub: 'alice' }));
  // Hono composes middleware only when a route has some: a no-op middleware shows that cost apart.
  const noop = new Hono();
  noop.use('/orders', async (_c, next) => {
    await next();
  });
  noop.get('/orders', (c) => c.json({ sub: 'alice' }));
  const guarded = new Hono();
  guarded.use('/orders', honoAccessToken(guard));
  guarded.get('/orders', (c) => c.json({ sub: c.get('accessToken').claims.sub }));

  let introspections = 0;
  const cached = introspectionVerifier({
    provider: { issuer: 'https://id.example.com', authorization_endpoint: 'https://id.example.com/a', token_endpoint: 'https://id.example.com/t', introspection_endpoint: 'https://id.example.com/introspect' },
    client: { clientId: 'orders-api' },
    clientAuth: clientSecretBasic('orders-api-secret'),
    audience: ORIGIN,
    http: {
      fetch: async () => {
        introspections++;
        return Response.json({ active: true, ...claims, token_type: 'Bearer' });
      },
    },
  });

  const request = (authorization) => new Request(`${ORIGIN}/orders`, authorization ? { headers: { authorization } } : {});
  // Every candidate must answer as documented before it is measured.
  const ok = await guarded.fetch(request(`Bearer ${TOKEN}`));
  const refused = await guarded.fetch(request());
  if (ok.status !== 200 || refused.status !== 401 || !refused.headers.get('www-authenticate')?.startsWith('Bearer')) {
    throw new Error('the guarded app did not answer 200 / 401 as documented');
  }
  await cached({ method: 'GET', url: `${ORIGIN}/orders`, authorization: `Bearer ${TOKEN}`, dpop: null });

  const results = await interleave(
    [
      { name: 'bare Hono handler', fn: () => bare.fetch(request(`Bearer ${TOKEN}`)) },
      { name: 'Hono + a no-op middleware', fn: () => noop.fetch(request(`Bearer ${TOKEN}`)) },
      { name: 'Hono + requireAccessToken (accepted)', fn: () => guarded.fetch(request(`Bearer ${TOKEN}`)) },
      { name: 'Hono + requireAccessToken (401 challenge)', fn: () => guarded.fetch(request()) },
      { name: 'introspectionVerifier, cached answer', fn: () => cached({ method: 'GET', url: `${ORIGIN}/orders`, authorization: `Bearer ${TOKEN}`, dpop: null }) },
    ],
    { rounds, sliceMs },
  );
  const [b, n, g, , c] = results;
  const guardedVsBare = pairedRatio(g, b);
  const guardedVsNoop = pairedRatio(g, n);
  const overheadUs = g.usPerOp - b.usPerOp;
  const rows = results.map((x) => [x.name, num(x.opsPerSec), num(x.usPerOp, 2), x === c ? '' : ratio(pairedRatio(x, b)), x === c ? '' : ratio(pairedRatio(x, n))]);
  const markdown = [
    table(['candidate', 'ops/s', 'µs/op', '× bare Hono', '× no-op middleware'], rows),
    '',
    `The middleware costs ${num(overheadUs, 2)} µs per accepted request over the bare handler (guarded ÷ bare: ${ratio(guardedVsBare)}; ` +
      `÷ the same route with a no-op middleware, i.e. without Hono's own middleware cost: ${ratio(guardedVsNoop)}), ` +
      'with a verifier that accepts at once: verification itself (a JWT signature, or an introspection answer) comes on top. ' +
      `The cached introspection answer costs ${num(c.usPerOp, 2)} µs (${introspections} introspection request(s) in the whole run: the first).`,
  ].join('\n');
  emit('Access-token middleware (@oidc-rp/node/api)', markdown, {
    candidates: results.map(({ name, opsPerSec, usPerOp }) => ({ name, opsPerSec, usPerOp })),
    guardedVsBare,
    guardedVsNoop,
    overheadUs,
    cachedIntrospectionOpsPerSec: c.opsPerSec,
    introspections,
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
