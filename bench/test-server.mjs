/**
 * The reference server as a test provider: how long from a new server to its first ID token
 * (in-process), and from spawning the command line to being ready to sign (JWKS served), next
 * to oauth2-mock-server 8 and oidc-provider 9 in the same run.
 *
 *   - First ID token: a new server, then one login that ends with an ID token.
 *       ours, test preset: createTestServer() + loginAs() in-process (fixed development keys)
 *       ours, default: the same with developmentKeys: false (an RS256 key is generated)
 *       oauth2-mock-server 8: new OAuth2Server, key added, start on port 0, GET /authorize
 *         (it redirects at once with a code), POST /token with the code → id_token
 *       oidc-provider 9: new Provider with dev interactions on port 0, authorize → its login
 *         form → its consent form → code → POST /token → id_token
 *     Both anchors get a pre-generated key (neither generates one in the measured time) and
 *     need a port: they cannot answer in-process. Alternating runs after a warm-up, median.
 *   - Command line ready to sign: spawn → first JWKS answered with a key. Ours as users run
 *     it (the package's `bin`) with `--dev-keys` and without, and `node dist/cli.js --dev-keys`;
 *     the anchors as small scripts around their libraries; a bare node:http server as the floor
 *     of any Node process.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { exportJWK, generateKeyPair } from 'jose';
import { OAuth2Server } from 'oauth2-mock-server';
import Provider from 'oidc-provider';
import { createTestServer, CookieJar } from '@oidc-rp/reference-server/testing';
import { startServer } from './lib/child-server.mjs';
import { emit } from './lib/emit.mjs';
import { median } from './lib/interleave.mjs';
import { num, ratio, table } from './lib/table.mjs';
import { REFERENCE_CLI, REFERENCE_CLI_MODULE } from './lib/token-load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const REDIRECT = 'http://127.0.0.1:3000/callback';

async function preset(developmentKeys) {
  const op = await createTestServer({ developmentKeys });
  const { tokens } = await op.loginAs('alice', { client: 'web', scope: 'openid' });
  await op.close();
  return tokens.id_token;
}

function listen(handler) {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const closeServer = (server) => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });

async function mockServer(jwk) {
  const server = new OAuth2Server();
  await server.issuer.keys.add(jwk);
  await server.start(0, '127.0.0.1');
  try {
    const issuer = server.issuer.url;
    const authorize = new URL(`${issuer}/authorize`);
    authorize.search = new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: REDIRECT, scope: 'openid', state: 's', nonce: 'n' }).toString();
    const redirect = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(redirect.headers.get('location')).searchParams.get('code');
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'web' }),
    });
    const body = await response.json();
    if (typeof body.id_token !== 'string') throw new Error(`oauth2-mock-server: no id_token (${response.status})`);
    return body.id_token;
  } finally {
    await server.stop();
  }
}

/** Fills in oidc-provider's dev interaction forms (any login, then consent) until the redirect to the client. */
async function oidcProvider(jwk) {
  const server = await listen();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(origin, {
    clients: [{ client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' }],
    jwks: { keys: [jwk] },
    cookies: { keys: ['bench-cookie-key-0123456789abcdef'] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  server.on('request', provider.callback());
  try {
    const jar = new CookieJar();
    const start = new URL(`${origin}/auth`);
    start.search = new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: REDIRECT, scope: 'openid', state: 's', nonce: 'n' }).toString();
    let next = { url: start, method: 'GET' };
    let code;
    for (let step = 0; step < 12 && !code; step++) {
      const headers = { ...(jar.header(next.url) ? { cookie: jar.header(next.url) } : {}), ...(next.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) };
      const response = await fetch(next.url, { method: next.method, headers, body: next.body, redirect: 'manual' });
      jar.store(next.url, response);
      if (response.status >= 300 && response.status < 400) {
        const target = new URL(response.headers.get('location'), next.url);
        if (target.href.startsWith(REDIRECT)) code = target.searchParams.get('code');
        else next = { url: target, method: 'GET' };
        continue;
      }
      const page = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      if (!action) throw new Error(`oidc-provider: no form at ${next.url.pathname} (${response.status})`);
      const form = new URLSearchParams([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      if (page.includes('name="login"')) {
        form.set('login', 'alice');
        form.set('password', 'any');
      }
      next = { url: new URL(action, next.url), method: 'POST', body: form.toString() };
    }
    if (!code) throw new Error('oidc-provider: the login did not end with a code');
    const response = await fetch(`${origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }),
    });
    const body = await response.json();
    if (typeof body.id_token !== 'string') throw new Error(`oidc-provider: no id_token (${response.status})`);
    return body.id_token;
  } finally {
    await closeServer(server);
  }
}

async function firstToken(candidates, repetitions) {
  for (const c of candidates) await c.run(); // warm-up: module loading and JIT are not a new server's cost
  const times = candidates.map(() => []);
  for (let rep = 0; rep < repetitions; rep++) {
    for (let k = 0; k < candidates.length; k++) {
      const index = (k + rep) % candidates.length;
      const t = performance.now();
      await candidates[index].run();
      times[index].push(performance.now() - t);
    }
  }
  return candidates.map((c, i) => ({ id: c.id, name: c.name, medianMs: median(times[i]), runs: times[i] }));
}

/**
 * CPU time (ms, user + system, every thread) a process has used so far, from Linux's schedstat;
 * undefined elsewhere. Wall time on a busy machine mostly measures the wait for a core; the CPU a
 * start costs does not depend on the load.
 */
function cpuMs(pid) {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

async function readyToSign(list, repetitions) {
  // A warm-up round: the first spawns also fill the OS file cache.
  for (const target of list) {
    const server = await startServer(target.script, target.args, target.env);
    await fetch(server.origin + target.jwks).then((r) => r.arrayBuffer());
    await server.stop();
  }
  const times = list.map(() => []);
  const cpu = list.map(() => []);
  for (let rep = 0; rep < repetitions; rep++) {
    for (let k = 0; k < list.length; k++) {
      const index = (k + rep) % list.length;
      const target = list[index];
      const server = await startServer(target.script, target.args, target.env);
      try {
        const response = await fetch(server.origin + target.jwks);
        const jwks = await response.json();
        if (!response.ok || (!target.floor && !jwks.keys?.length)) throw new Error(`${target.name} served no key at ${target.jwks}`);
        times[index].push(performance.now() - server.spawnedAt);
        const used = cpuMs(server.pid);
        if (used !== undefined) cpu[index].push(used);
      } finally {
        await server.stop();
      }
    }
  }
  return list.map((t, i) => ({ id: t.id, name: t.name, medianMs: median(times[i]), runs: times[i], ...(cpu[i].length ? { cpuMs: median(cpu[i]) } : {}) }));
}

export async function run({ repetitions = 15, cliRepetitions = 15 } = {}) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'anchor-1', alg: 'RS256', use: 'sig' };
  const tokens = await firstToken(
    [
      { id: 'preset', name: '@oidc-rp/reference-server createTestServer (in-process)', run: () => preset(true) },
      { id: 'generated', name: '@oidc-rp/reference-server, key generated (in-process)', run: () => preset(false) },
      { id: 'mock', name: 'oauth2-mock-server 8.2.3 (port)', run: () => mockServer(jwk) },
      { id: 'op', name: 'oidc-provider 9 dev interactions (port)', run: () => oidcProvider(jwk) },
    ],
    repetitions,
  );
  const env = { BENCH_OP_JWK: JSON.stringify(jwk) };
  const cli = await readyToSign(
    [
      { id: 'dev', name: '@oidc-rp/reference-server --dev-keys', script: REFERENCE_CLI, args: ['--port', '0', '--dev-keys'], jwks: '/demo/oidc/jwks' },
      { id: 'dev-module', name: '@oidc-rp/reference-server --dev-keys, as `node dist/cli.js` (an ES module)', script: REFERENCE_CLI_MODULE, args: ['--port', '0', '--dev-keys'], jwks: '/demo/oidc/jwks' },
      { id: 'generated', name: '@oidc-rp/reference-server (key generated)', script: REFERENCE_CLI, args: ['--port', '0'], jwks: '/demo/oidc/jwks' },
      { id: 'mock', name: 'oauth2-mock-server 8.2.3', script: join(here, 'servers/oauth2-mock-server.mjs'), args: [], env, jwks: '/jwks' },
      { id: 'op', name: 'oidc-provider 9', script: join(here, 'servers/oidc-provider.mjs'), args: [], env, jwks: '/jwks' },
      { id: 'bare', name: 'bare node:http (the Node floor, no keys)', script: join(here, 'servers/bare-http.mjs'), args: [], jwks: '/', floor: true },
    ],
    cliRepetitions,
  );
  const of = (list, id) => list.find((r) => r.id === id).medianMs;
  const rows = (list, ours) =>
    list.map((r) => [r.name, num(r.medianMs, 1), ratio(r.medianMs / of(list, ours)), r.runs.map((ms) => num(ms, 0)).join(', ')]);
  const firstMs = of(tokens, 'preset');
  const cliMs = of(cli, 'dev');
  // The goal is relative to Node itself, measured in the same alternating rounds: a busy machine
  // stretches both, the ratio much less than either time.
  const vsBare = cliMs / of(cli, 'bare');
  const cpuOf = (id) => cli.find((r) => r.id === id).cpuMs;
  const cpuVsBare = cpuOf('dev') === undefined ? undefined : cpuOf('dev') / cpuOf('bare');
  const load = loadavg().map((n) => n.toFixed(2)).join(' / ');
  const markdown = [
    `**New server → first ID token** (${repetitions} alternating runs after a warm-up, median). Ours in-process through ` +
      '`loginAs` (authorize with PKCE, login form, code exchange, ID token verified); the anchors over loopback with a ' +
      'pre-generated key (oidc-provider through its dev login and consent forms; oauth2-mock-server redirects at once).',
    '',
    table(['server', 'median (ms)', '× test preset', 'runs (ms)'], rows(tokens, 'preset')),
    '',
    `Target ≤ 20 ms in-process: ${num(firstMs, 1)} ms (${firstMs <= 20 ? 'met' : 'NOT met'}).`,
    '',
    `**Command line ready to sign** (spawn → JWKS served with a key; ${cliRepetitions} alternating runs after a warm-up round, median; CPU time of the server process until the JWKS was served, from /proc):`,
    '',
    table(
      ['server', 'median (ms)', '× --dev-keys', 'CPU until served (ms)', 'runs (ms)'],
      cli.map((r) => [r.name, num(r.medianMs, 1), ratio(r.medianMs / cliMs), r.cpuMs === undefined ? 'n/a' : num(r.cpuMs, 1), r.runs.map((ms) => num(ms, 0)).join(', ')]),
    ),
    '',
    `Ready to sign ÷ bare node:http: **${ratio(vsBare)}** (target ≤ 1.25×: ${vsBare <= 1.25 ? 'met' : 'NOT met'}); ${num(cliMs, 0)} ms against Node's own ${num(of(cli, 'bare'), 0)} ms (target ≤ 150 ms: ${cliMs <= 150 ? 'met' : 'NOT met'}). CPU time until served (median, user + system, all threads): ${cpuVsBare === undefined ? 'not measured (no /proc)' : `${num(cpuOf('dev'), 0)} ms against ${num(cpuOf('bare'), 0)} ms, ${ratio(cpuVsBare)}`}. Load average (1/5/15 min) at the end of these rounds: ${load}.`,
  ].join('\n');
  return { markdown, data: { firstToken: tokens, readyToSign: cli, firstTokenMs: firstMs, readyToSignMs: cliMs, readyToSignVsBare: vsBare, readyToSignCpuVsBare: cpuVsBare } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown, data } = await run();
  emit('Reference server as a test provider', markdown, data);
}
