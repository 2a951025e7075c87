/**
 * Cold JWKS: 1,000 concurrent ID-token validations start with an empty key cache
 * (clearJwksCache) against a JWKS served over loopback HTTP by a counting node:http server.
 * Measures how many JWKS requests reach the server (must be 1: concurrent callers share
 * one fetch), the time until the first validation resolves and until all have.
 * jose's createRemoteJWKSet + jwtVerify runs the same burst as a reference.
 */

import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { SignJWT, createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { clearJwksCache, validateIdToken } from '@oidc-rp/core';
import { emit } from './lib/emit.mjs';
import { median } from './lib/interleave.mjs';
import { num, table } from './lib/table.mjs';

const CALLERS = 1000;
const CLIENT_ID = 'bench-client';

async function startJwksServer(jwks) {
  let requests = 0;
  const body = JSON.stringify(jwks);
  const server = createServer((_request, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    take: () => {
      const n = requests;
      requests = 0;
      return n;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// Starts `CALLERS` validations at once; resolves the timings once all have settled.
async function burst(validate) {
  const start = performance.now();
  let first;
  const results = await Promise.allSettled(
    Array.from({ length: CALLERS }, () =>
      validate().then((value) => {
        first ??= performance.now() - start;
        return value;
      }),
    ),
  );
  const all = performance.now() - start;
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length) throw new Error(`${failed.length} of ${CALLERS} validations failed: ${failed[0].reason?.message}`);
  return { firstMs: first, allMs: all };
}

export async function run({ repetitions = 5 } = {}) {
  const alg = 'RS256';
  const { publicKey, privateKey } = await generateKeyPair(alg);
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg, use: 'sig' };
  const server = await startJwksServer({ keys: [jwk] });
  const issuer = `${server.origin}/demo`;
  const jwksUri = `${server.origin}/demo/oidc/jwks`;
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ nonce: 'n' })
    .setProtectedHeader({ alg, kid: 'k1' })
    .setIssuer(issuer)
    .setSubject('alice')
    .setAudience(CLIENT_ID)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
  const provider = { issuer, jwks_uri: jwksUri, id_token_signing_alg_values_supported: [alg] };

  const candidates = [
    {
      name: '@oidc-rp/core validateIdToken',
      fresh: () => {
        clearJwksCache();
        return () => validateIdToken(token, { provider, clientId: CLIENT_ID, nonce: 'n' });
      },
    },
    {
      name: 'jose createRemoteJWKSet + jwtVerify',
      fresh: () => {
        const keys = createRemoteJWKSet(new URL(jwksUri));
        return () => jwtVerify(token, keys, { issuer, audience: CLIENT_ID, algorithms: [alg] });
      },
    },
  ];
  const runs = candidates.map(() => []);
  try {
    // One unmeasured burst each (JIT, sockets), then alternating measured bursts.
    for (const c of candidates) {
      await burst(c.fresh());
      server.take();
    }
    for (let i = 0; i < repetitions; i++) {
      for (let k = 0; k < candidates.length; k++) {
        const index = (k + i) % candidates.length;
        const timing = await burst(candidates[index].fresh());
        runs[index].push({ ...timing, jwksRequests: server.take() });
      }
    }
  } finally {
    await server.close();
  }
  const data = candidates.map((c, i) => ({
    name: c.name,
    jwksRequests: Math.max(...runs[i].map((r) => r.jwksRequests)),
    firstMs: median(runs[i].map((r) => r.firstMs)),
    allMs: median(runs[i].map((r) => r.allMs)),
    runs: runs[i],
  }));
  const rows = data.map((d) => [d.name, d.jwksRequests, num(d.firstMs, 1), num(d.allMs, 1)]);
  const core = data[0];
  const markdown = [
    table(['candidate', 'JWKS requests (max of runs)', 'first validation (ms)', `all ${num(CALLERS)} (ms)`], rows),
    '',
    `${num(CALLERS)} concurrent ${alg} validations on an empty cache, JWKS over loopback HTTP; median of ${repetitions} alternating bursts after one warm-up burst each. ` +
      `@oidc-rp/core made ${core.jwksRequests} JWKS request${core.jwksRequests === 1 ? '' : 's'} per burst (required: 1: ${core.jwksRequests === 1 ? 'met' : 'NOT met'}).`,
  ].join('\n');
  return { markdown, data: { callers: CALLERS, repetitions, candidates: data } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown, data } = await run();
  emit('Cold JWKS cache', markdown, data);
}
