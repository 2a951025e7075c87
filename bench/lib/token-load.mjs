/**
 * What the token-endpoint load benchmarks (server.mjs, dpop.mjs) share: the targets' common
 * settings (the reference server's CLI, oidc-provider's signing key, the client_credentials
 * request), one autocannon run with the same settings for every target, and the interleaved
 * rounds over servers each in its own child process, with medians per target.
 */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair } from 'jose';
import { startServer } from './child-server.mjs';
import { median } from './interleave.mjs';
import { num } from './table.mjs';

const REFERENCE_PACKAGE = fileURLToPath(import.meta.resolve('@oidc-rp/reference-server/package.json'));
/** The reference server's real CLI as users run it: the package's `bin` (demo config: client `service`). */
export const REFERENCE_CLI = join(dirname(REFERENCE_PACKAGE), JSON.parse(readFileSync(REFERENCE_PACKAGE, 'utf8')).bin['oidc-rp-reference-server']);
/** `node dist/cli.js`, the documented path to the same CLI: an ES module that loads the same bundle. */
export const REFERENCE_CLI_MODULE = join(dirname(REFERENCE_PACKAGE), 'dist/cli.js');
/** The same client_credentials request (client_secret_post) to every target. */
export const TOKEN_BODY = 'grant_type=client_credentials&client_id=service&client_secret=service-secret&scope=api.read';
export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };

/** oidc-provider's signing key for servers/oidc-provider.mjs (`BENCH_OP_JWK`): RS256, as the reference server signs. */
export async function opSigningJwk() {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'op-1', alg: 'RS256', use: 'sig' });
}

/** autocannon latencies have 1 ms resolution: below it, say so. */
export const ms = (value) => (value < 1 ? '<1' : num(value, Number.isInteger(value) ? 0 : 1));

/**
 * One autocannon run against `url`, 10 connections without pipelining: `amount` requests, or
 * `seconds` of load. Resolves autocannon's result with `rps`: for `amount`, the requests over the
 * run's time (autocannon notices the end at its next sample tick, so it samples every 10 ms to
 * keep that padding out of short runs); for `seconds`, autocannon's mean per second.
 * @param {string} url
 * @param {{ request?: object, amount?: number, seconds?: number }} options  request: autocannon's (method, headers, body, setupRequest)
 */
export async function autocannonRun(url, { request = { method: 'POST', headers: FORM_HEADERS, body: TOKEN_BODY }, amount, seconds }) {
  const base = { url, requests: [request], connections: 10, pipelining: 1 };
  const result = await autocannon(amount !== undefined ? { ...base, amount, sampleInt: 10 } : { ...base, duration: seconds });
  return { ...result, rps: amount !== undefined ? result.requests.total / result.duration : result.requests.average };
}

/**
 * Starts a child-process server per target (`target.script`, `args`, `env`), lets `prepare`
 * check and warm each, then runs `rounds` rounds in which every target is loaded once by
 * `load(target, server)` (an {@link autocannonRun}) in a rotated order; a non-2xx answer, an
 * error or a timeout under load fails the run. Stops every server. Resolves per target its
 * `id`, `name`, `sample` (as `prepare` set it), medians of req/s, p50 and p99, and the rounds.
 */
export async function autocannonRounds(targets, { rounds, prepare, load }) {
  const running = [];
  try {
    for (const target of targets) running.push({ target, server: await startServer(target.script, target.args, target.env) });
    for (const { target, server } of running) await prepare(target, server);
    const perRound = running.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < running.length; k++) {
        const index = (k + round) % running.length; // rotate who goes first
        const { target, server } = running[index];
        const r = await load(target, server);
        if (r.non2xx || r.errors || r.timeouts) {
          throw new Error(`${target.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts under load`);
        }
        perRound[index].push({ rps: r.rps, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total });
      }
    }
    return running.map(({ target }, i) => ({
      id: target.id,
      name: target.name,
      sample: target.sample,
      rps: median(perRound[i].map((r) => r.rps)),
      p50: median(perRound[i].map((r) => r.p50)),
      p99: median(perRound[i].map((r) => r.p99)),
      // Ratios within a round, medians over rounds, as everywhere in bench/.
      rounds: perRound[i],
    }));
  } finally {
    await Promise.all(running.map(({ server }) => server.stop()));
  }
}
