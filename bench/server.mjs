/**
 * The reference server under load, next to oidc-provider 9 and a bare node:http server.
 *
 *   - Token endpoint: client_credentials with client_secret_post, loaded by autocannon (same
 *     settings for every target, interleaved rounds). Each target runs in its own child
 *     process on a loopback port; autocannon runs in this process (one core each).
 *       reference server: its real CLI (demo config, client `service`), POST /demo/oauth/token
 *       oidc-provider 9:  servers/oidc-provider.mjs, the same client, POST /token, opaque tokens
 *       bare node:http:   servers/bare-http.mjs, a fixed JSON answer (the platform ceiling)
 *   - Full code flow, in-process (server.fetch, no sockets): authorize → login form post →
 *     consent → code exchange with PKCE, one flow after another; flows/s and p50/p99.
 *   - Start-up: time from spawning the process to its first successful response (discovery
 *     document; `/` for the bare server), a few alternating repetitions, median.
 */

import { createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { startServer } from './lib/child-server.mjs';
import { emit } from './lib/emit.mjs';
import { median, percentile } from './lib/interleave.mjs';
import { num, ratio, table } from './lib/table.mjs';
import { FORM_HEADERS, REFERENCE_CLI, TOKEN_BODY, autocannonRun, autocannonRounds, ms, opSigningJwk } from './lib/token-load.mjs';

const here = dirname(fileURLToPath(import.meta.url));

async function targets() {
  const opJwk = await opSigningJwk();
  return [
    { id: 'bare', name: 'bare node:http (ceiling)', script: join(here, 'servers/bare-http.mjs'), args: [], token: '/token', probe: '/' },
    {
      id: 'ours',
      name: '@oidc-rp/reference-server',
      script: REFERENCE_CLI,
      args: ['--port', '0'],
      token: '/demo/oauth/token',
      probe: '/demo/.well-known/openid-configuration',
    },
    {
      id: 'op',
      name: 'oidc-provider 9',
      script: join(here, 'servers/oidc-provider.mjs'),
      args: [],
      env: { BENCH_OP_JWK: opJwk },
      token: '/token',
      probe: '/.well-known/openid-configuration',
    },
  ];
}

const start = (target) => startServer(target.script, target.args, target.env);

async function tokenRequest(origin, target) {
  const response = await fetch(origin + target.token, {
    method: 'POST',
    headers: FORM_HEADERS,
    body: TOKEN_BODY,
  });
  const body = await response.json();
  if (response.status !== 200 || typeof body.access_token !== 'string') {
    throw new Error(`${target.name} token endpoint answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body;
}

// Every target under the same load: a sample answer first, a 1 s warm-up, then the rounds.
function tokenEndpoint(list, { rounds, seconds }) {
  return autocannonRounds(list, {
    rounds,
    async prepare(target, server) {
      const sample = await tokenRequest(server.origin, target);
      target.sample = { token_type: sample.token_type, expires_in: sample.expires_in, scope: sample.scope };
      await autocannonRun(server.origin + target.token, { seconds: 1 }); // warm-up
    },
    load: (target, server) => autocannonRun(server.origin + target.token, { seconds }),
  });
}

async function startup(list, repetitions) {
  const times = list.map(() => []);
  const listening = list.map(() => []);
  for (let rep = 0; rep < repetitions; rep++) {
    for (let k = 0; k < list.length; k++) {
      const index = (k + rep) % list.length;
      const target = list[index];
      const server = await start(target);
      try {
        const response = await fetch(server.origin + target.probe);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${target.name} answered ${response.status} to ${target.probe}`);
        times[index].push(performance.now() - server.spawnedAt);
        listening[index].push(server.listeningAt - server.spawnedAt);
      } finally {
        await server.stop();
      }
    }
  }
  return list.map((target, i) => ({
    id: target.id,
    name: target.name,
    medianMs: median(times[i]),
    listeningMs: median(listening[i]),
    runs: times[i],
  }));
}

// One full login per iteration against the in-process server; bounded by time and count.
async function codeFlow(seconds, maxFlows = 100_000) {
  const config = demoConfig();
  const server = await createReferenceServer(config, { logger: false });
  const fetchInProcess = (input, init) => server.fetch(new Request(input, init));
  const base = 'http://127.0.0.1:4000/demo';
  const redirectUri = 'http://127.0.0.1:3000/callback';

  async function oneFlow() {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const url = new URL(`${base}/oidc/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'web',
      redirect_uri: redirectUri,
      scope: 'openid profile',
      state,
      nonce: randomBytes(16).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const result = await completeLogin(url, { username: 'alice', password: 'wonderland', consent: 'allow', fetch: fetchInProcess });
    if (result.type !== 'redirect') throw new Error(`unexpected login result ${result.type}`);
    const params = new URL(result.location).searchParams;
    if (params.get('state') !== state || !params.get('code')) throw new Error(`login did not return a code: ${result.location}`);
    const response = await fetchInProcess(`${base}/oidc/token`, {
      method: 'POST',
      // A confidential client always authenticates (a stolen code plus PKCE is not enough): HTTP Basic beside the verifier.
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('web:web-secret-of-the-demo-Zq7Xk2Lm9Vb4').toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code'), redirect_uri: redirectUri, code_verifier: verifier }),
    });
    const tokens = await response.json();
    if (response.status !== 200 || !tokens.id_token) throw new Error(`code exchange answered ${response.status}`);
  }

  for (let i = 0; i < 20; i++) await oneFlow(); // warm-up
  const latencies = [];
  const startAt = performance.now();
  while (performance.now() - startAt < seconds * 1000 && latencies.length < maxFlows) {
    const t = performance.now();
    await oneFlow();
    latencies.push(performance.now() - t);
  }
  const elapsed = performance.now() - startAt;
  return { flows: latencies.length, perSecond: (latencies.length / elapsed) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

export async function run({ rounds = 3, seconds = 4, startupRepetitions = 5, flowSeconds = 4 } = {}) {
  const list = await targets();
  const token = await tokenEndpoint(list, { rounds, seconds });
  const flow = await codeFlow(flowSeconds);
  const boot = await startup(list, startupRepetitions);

  const by = (id) => token.find((t) => t.id === id);
  const [bare, ours, op] = [by('bare'), by('ours'), by('op')];
  const bootOf = (id) => boot.find((b) => b.id === id).medianMs;
  const tokenTable = table(
    ['target', 'req/s', 'p50 (ms)', 'p99 (ms)', '× bare node:http', '× oidc-provider'],
    token.map((t) => [t.name, num(t.rps), ms(t.p50), ms(t.p99), ratio(t.rps / bare.rps), ratio(t.rps / op.rps)]),
  );
  const bootTable = table(
    ['server', 'start-up, median (ms)', 'of which until "listening" (ms)', 'runs (ms)'],
    boot.map((b) => [b.name, num(b.medianMs), num(b.listeningMs), b.runs.map((ms) => num(ms)).join(', ')]),
  );
  const vsOp = ours.rps / op.rps;
  const markdown = [
    `**Token endpoint** (client_credentials, client_secret_post): autocannon, 10 connections, ${seconds} s per target per round, ` +
      `${rounds} interleaved rounds (medians), loopback, each server in its own process.`,
    '',
    tokenTable,
    '',
    `Target ≥ 2× oidc-provider: ${ratio(vsOp)} (${vsOp >= 2 ? 'met' : 'NOT met'}).`,
    '',
    `**Full code flow in-process** (authorize → login form post → consent → code exchange with PKCE; server.fetch, sequential): ` +
      `${num(flow.perSecond, 1)} flows/s, p50 ${num(flow.p50, 2)} ms, p99 ${num(flow.p99, 2)} ms (${num(flow.flows)} flows in ${flowSeconds} s).`,
    '',
    `**Start-up** (spawn → first successful response; ${startupRepetitions} alternating runs):`,
    '',
    bootTable,
    '',
    `Target < 200 ms for the reference server: ${num(bootOf('ours'))} ms (${bootOf('ours') < 200 ? 'met' : 'NOT met'}); ` +
      `Node itself (bare server) takes ${num(bootOf('bare'))} ms of that.`,
  ].join('\n');
  return { markdown, data: { rounds, seconds, token, flow, startup: boot, oursVsOidcProvider: vsOp } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown, data } = await run();
  emit('Reference server', markdown, data);
}
