/**
 * Client credentials with @oidc-rp/node against the reference server on loopback:
 *
 *   - cache hit: ops/s of getClientCredentialsToken once a token is cached, interleaved with
 *     a plain `await map.get()` (the floor of any async cache) and with an uncached token
 *     request over HTTP (core clientCredentials: what every call would cost without the cache);
 *   - cold burst: 1,000 concurrent callers on a fresh client → token requests counted at the
 *     server with its onRequest option (must be 1: single flight).
 */

import { performance } from 'node:perf_hooks';
import { clientCredentials, clientSecretPost, serviceProvider } from '@oidc-rp/core';
import { createNodeClient } from '@oidc-rp/node';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { emit } from './lib/emit.mjs';
import { interleave, median, pairedRatio } from './lib/interleave.mjs';
import { num, ratio, table } from './lib/table.mjs';

const CALLERS = 1000;
const CLIENT = { clientId: 'service', clientSecret: 'service-secret' };

export async function run({ rounds = 5, sliceMs = 300, bursts = 3 } = {}) {
  let tokenRequests = 0;
  const server = await createReferenceServer(demoConfig(), {
    logger: false,
    onRequest: ({ method, path }) => {
      if (method === 'POST' && path.endsWith('/oauth/token')) tokenRequests++;
    },
  });
  const { origin, close } = await server.listen({ port: 0, host: '127.0.0.1' });
  const provider = serviceProvider(`${origin}/demo`);
  const newClient = () => createNodeClient({ provider, ...CLIENT, grants: ['client_credentials'] });

  try {
    // Cold bursts: each on a fresh client (empty cache).
    const burstRuns = [];
    for (let i = 0; i < bursts; i++) {
      const client = newClient();
      tokenRequests = 0;
      const start = performance.now();
      const tokens = await Promise.all(
        Array.from({ length: CALLERS }, () => client.getClientCredentialsToken({ scope: 'api.read' })),
      );
      const ms = performance.now() - start;
      const distinct = new Set(tokens.map((t) => t.accessToken)).size;
      burstRuns.push({ requests: tokenRequests, ms, distinctTokens: distinct });
    }

    // Cache hits, next to an async Map lookup and an uncached request.
    const client = newClient();
    await client.getClientCredentialsToken({ scope: 'api.read' });
    const map = new Map([['k', { accessToken: 'x' }]]);
    const asyncGet = async (key) => map.get(key);
    const results = await interleave(
      [
        { name: 'await (async) Map.get: floor', fn: () => asyncGet('k') },
        { name: '@oidc-rp/node getClientCredentialsToken (cache hit)', fn: () => client.getClientCredentialsToken({ scope: 'api.read' }) },
        {
          name: 'uncached: core clientCredentials over loopback HTTP',
          fn: () => clientCredentials({ provider, client: { clientId: CLIENT.clientId }, clientAuth: clientSecretPost(CLIENT.clientSecret), scope: 'api.read' }),
        },
      ],
      { rounds, sliceMs, warmupMs: 150 },
    );
    const [floor, hit, uncached] = results;
    const rows = results.map((r) => [r.name, num(r.opsPerSec), num(r.usPerOp, 2), ratio(pairedRatio(r, hit))]);
    const maxRequests = Math.max(...burstRuns.map((b) => b.requests));
    const markdown = [
      table(['candidate', 'ops/s', 'µs/op', '× cache hit'], rows),
      '',
      `Cold burst: ${num(CALLERS)} concurrent getClientCredentialsToken calls on a fresh client → ` +
        `${burstRuns.map((b) => b.requests).join(', ')} token request(s) at the server in ${bursts} bursts ` +
        `(required: 1: ${maxRequests === 1 ? 'met' : 'NOT met'}); every caller got the same token: ` +
        `${burstRuns.every((b) => b.distinctTokens === 1) ? 'yes' : 'NO'}; burst settled in ${num(median(burstRuns.map((b) => b.ms)), 1)} ms (median).`,
      `A cache hit takes ${num(hit.usPerOp, 2)} µs (the bare async Map lookup is ${num(pairedRatio(floor, hit), 1)}× faster: ` +
        `scope normalisation, single-flight bookkeeping and the expiry check are the rest) and is ` +
        `${num(pairedRatio(hit, uncached))}× faster than asking the server.`,
    ].join('\n');
    return {
      markdown,
      data: { callers: CALLERS, bursts: burstRuns, results, cacheHitOpsPerSec: hit.opsPerSec, maxBurstRequests: maxRequests },
    };
  } finally {
    await close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown, data } = await run();
  emit('Client credentials (@oidc-rp/node)', markdown, data);
}
