/**
 * DPoP (RFC 9449), two measures in one run.
 *
 *   - Proof creation, ES256 (P-256), one key pair shared by every candidate, interleaved rounds
 *     in this process:
 *       WebCrypto subtle.sign    the ECDSA signature of a proof-sized input alone: the limit
 *       @oidc-rp/core            createDpopProof(handle, { htm, htu }) and with `accessToken` (ath)
 *       dpop (panva) 2.1.2       generateProof(keyPair, htu, htm) and with the access token (ath)
 *     Both libraries sign with WebCrypto. Each candidate's proof is first verified with jose
 *     (embedded jwk, `typ: dpop+jwt`, htm, htu, ath, a fresh jti each time).
 *   - Token endpoint with DPoP: client_credentials (client_secret_post) with a fresh proof per
 *     request, loaded by autocannon (10 connections, the same number of requests per target per
 *     round, interleaved rounds, medians). The proofs are made before each round (unique `jti`,
 *     `iat` seconds old), one per request, so the load generator does no signing while it
 *     measures. Each server runs in its own child process on a loopback port:
 *       reference server: its real CLI (demo config, client `service`), POST /demo/oauth/token
 *       oidc-provider 9:  servers/oidc-provider.mjs (DPoP on, as by default; no nonces), POST /token
 *     and, for what DPoP costs, the reference server without a proof (a Bearer token).
 *     Before timing, each server must answer a proof with `token_type: DPoP` and refuse the
 *     same proof replayed, so none is measured skipping its replay check.
 */

import { webcrypto } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDpopProof, dpop, generateDpopKeyPair } from '@oidc-rp/core';
import * as panva from 'dpop';
import { EmbeddedJWK, jwtVerify } from 'jose';
import { emit } from './lib/emit.mjs';
import { interleave, median, pairedRatio } from './lib/interleave.mjs';
import { num, ratio, table } from './lib/table.mjs';
import { FORM_HEADERS as FORM, REFERENCE_CLI, TOKEN_BODY, autocannonRun, autocannonRounds, ms, opSigningJwk } from './lib/token-load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const HTU = 'https://as.example/demo/oauth/token';
const RESOURCE = 'https://api.example/orders';
const ACCESS_TOKEN = 'eyJhbGciOiJFUzI1NiJ9.an-access-token-of-typical-length-for-a-resource-request.c2lnbmF0dXJl';

// --- Proof creation -------------------------------------------------------------------------

/** Checks a proof as a server would; throws what is wrong. */
async function checkProof(proof, { htm, htu, accessToken }, seen) {
  const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] });
  if (protectedHeader.jwk.d !== undefined) throw new Error('the proof carries the private key');
  if (payload.htm !== htm || payload.htu !== htu) throw new Error(`htm/htu ${payload.htm} ${payload.htu}`);
  if (typeof payload.iat !== 'number' || typeof payload.jti !== 'string' || seen.has(payload.jti)) throw new Error('iat or a fresh jti missing');
  seen.add(payload.jti);
  if (accessToken !== undefined) {
    const ath = Buffer.from(await webcrypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))).toString('base64url');
    if (payload.ath !== ath) throw new Error('ath missing or wrong');
  }
}

async function proofCreation({ rounds, sliceMs }) {
  const keyPair = await generateDpopKeyPair('ES256');
  const handle = await dpop({ keyPair });
  // The limit: the signature alone over an input of a proof's size (header with jwk, claims).
  const sample = await createDpopProof(handle, { htm: 'GET', htu: RESOURCE, accessToken: ACCESS_TOKEN });
  const input = new TextEncoder().encode(sample.slice(0, sample.lastIndexOf('.')));
  const ecdsa = { name: 'ECDSA', hash: 'SHA-256' };

  const token = { htm: 'POST', htu: HTU };
  const resource = { htm: 'GET', htu: RESOURCE, accessToken: ACCESS_TOKEN };
  const candidates = [
    { name: 'WebCrypto subtle.sign (limit)', fn: () => webcrypto.subtle.sign(ecdsa, keyPair.privateKey, input) },
    { name: '@oidc-rp/core, token request', fn: () => createDpopProof(handle, token), check: token },
    { name: 'dpop (panva), token request', fn: () => panva.generateProof(keyPair, HTU, 'POST'), check: token },
    { name: '@oidc-rp/core, with ath', fn: () => createDpopProof(handle, resource), check: resource },
    { name: 'dpop (panva), with ath', fn: () => panva.generateProof(keyPair, RESOURCE, 'GET', undefined, ACCESS_TOKEN), check: resource },
  ];
  for (const c of candidates.filter((entry) => entry.check)) {
    const seen = new Set();
    for (let i = 0; i < 3; i++) await checkProof(await c.fn(), c.check, seen);
  }
  const results = await interleave(candidates, { rounds, sliceMs });
  const limit = results[0];
  const find = (name) => results.find((r) => r.name === name);
  const vsPanva = {
    token: pairedRatio(find('@oidc-rp/core, token request'), find('dpop (panva), token request')),
    ath: pairedRatio(find('@oidc-rp/core, with ath'), find('dpop (panva), with ath')),
  };
  const rows = results.map((r) => {
    const panvaPeer = r.name.startsWith('@oidc-rp') ? find(r.name.replace('@oidc-rp/core', 'dpop (panva)')) : undefined;
    return [r.name, num(r.opsPerSec), num(r.usPerOp, 1), ratio(pairedRatio(r, limit)), panvaPeer ? ratio(pairedRatio(r, panvaPeer)) : ''];
  });
  return { results, vsPanva, table: table(['candidate', 'proofs/s', 'µs/proof', '× subtle.sign', '× dpop (panva)'], rows) };
}

// --- Token endpoint with DPoP ----------------------------------------------------------------

async function targets() {
  const opJwk = await opSigningJwk();
  const ours = { script: REFERENCE_CLI, args: ['--port', '0'], token: '/demo/oauth/token' };
  return [
    { id: 'ours', name: '@oidc-rp/reference-server, DPoP', proofs: true, ...ours },
    { id: 'op', name: 'oidc-provider 9, DPoP', proofs: true, script: join(here, 'servers/oidc-provider.mjs'), args: [], env: { BENCH_OP_JWK: opJwk }, token: '/token' },
    { id: 'ours-bearer', name: '@oidc-rp/reference-server, Bearer (no proof)', proofs: false, ...ours },
  ];
}

async function tokenRequest(url, proof) {
  const response = await fetch(url, { method: 'POST', headers: { ...FORM, ...(proof ? { dpop: proof } : {}) }, body: TOKEN_BODY });
  return { status: response.status, body: await response.json() };
}

/** Proofs for `count` requests to `url`, each with its own jti. */
async function makeProofs(handle, url, count) {
  const proofs = [];
  for (let i = 0; i < count; i++) proofs.push(await createDpopProof(handle, { htm: 'POST', htu: url }));
  return proofs;
}

function load(url, amount, proofs) {
  const request = { method: 'POST', headers: FORM, body: TOKEN_BODY };
  if (proofs) {
    // Called for every request autocannon builds: each takes a proof of its own.
    request.setupRequest = (req) => {
      const proof = proofs.pop();
      if (proof === undefined) throw new Error('out of proofs: make more per round');
      return { ...req, headers: { ...FORM, dpop: proof } };
    };
  }
  return autocannonRun(url, { request, amount });
}

async function tokenEndpoint({ rounds, amount }) {
  const handle = await dpop({ keyPair: await generateDpopKeyPair('ES256') });
  return autocannonRounds(await targets(), {
    rounds,
    async prepare(target, server) {
      const url = server.origin + target.token;
      const proof = target.proofs ? await createDpopProof(handle, { htm: 'POST', htu: url }) : undefined;
      const first = await tokenRequest(url, proof);
      const expected = target.proofs ? 'dpop' : 'bearer';
      if (first.status !== 200 || typeof first.body.access_token !== 'string' || String(first.body.token_type).toLowerCase() !== expected) {
        throw new Error(`${target.name} answered ${first.status} ${JSON.stringify(first.body)}`);
      }
      if (proof) {
        const replayed = await tokenRequest(url, proof);
        if (replayed.status !== 400) throw new Error(`${target.name} took a replayed proof (${replayed.status})`);
      }
      target.sample = { token_type: first.body.token_type, expires_in: first.body.expires_in };
      await load(url, 500, target.proofs ? await makeProofs(handle, url, 600) : undefined); // warm-up
    },
    async load(target, server) {
      const url = server.origin + target.token;
      // Each connection builds its first request twice (autocannon), hence the margin.
      const proofs = target.proofs ? await makeProofs(handle, url, amount + 100) : undefined;
      return load(url, amount, proofs);
    },
  });
}

export async function run({ rounds = 11, sliceMs = 250, loadRounds = 3, amount = 2000 } = {}) {
  const loadAtStart = loadavg()[0];
  const proofs = await proofCreation({ rounds, sliceMs });
  const endpoint = await tokenEndpoint({ rounds: loadRounds, amount });
  const by = (id) => endpoint.find((t) => t.id === id);
  const roundRatio = (a, b) => median(a.rounds.map((r, i) => r.rps / b.rounds[i].rps));
  const oursVsOp = roundRatio(by('ours'), by('op'));
  const dpopVsBearer = roundRatio(by('ours'), by('ours-bearer'));
  const endpointTable = table(
    ['target', 'req/s', 'p50 (ms)', 'p99 (ms)', '× oidc-provider, DPoP'],
    endpoint.map((t) => [t.name, num(t.rps), ms(t.p50), ms(t.p99), ratio(roundRatio(t, by('op')))]),
  );
  const markdown = [
    `**Proof creation** (ES256, one key pair for all; median of ${rounds} interleaved rounds of ${sliceMs} ms; ratios: medians of per-round ratios):`,
    '',
    proofs.table,
    '',
    `Ours ÷ dpop (panva): ${ratio(proofs.vsPanva.token)} for a token request's proof, ${ratio(proofs.vsPanva.ath)} with \`ath\`.`,
    '',
    `**Token endpoint with DPoP** (client_credentials, client_secret_post, a fresh ES256 proof per request): autocannon, 10 connections, ` +
      `${num(amount)} requests per target per round, ${loadRounds} interleaved rounds (medians), loopback, each server in its own process.`,
    '',
    endpointTable,
    '',
    // The machine is shared: a load far above its core count makes the absolute figures noise.
    `Ours ÷ oidc-provider with DPoP: ${ratio(oursVsOp)}. DPoP costs ours ${ratio(dpopVsBearer)} of its Bearer throughput (the proof's ES256 verify and the jti replay cache). ` +
      `Load average (1 min) when this benchmark started: ${loadAtStart.toFixed(2)} on ${cpus().length} cores.`,
  ].join('\n');
  return {
    markdown,
    data: {
      proofCreation: proofs.results.map((r) => ({ name: r.name, opsPerSec: r.opsPerSec, rounds: r.rounds })),
      proofsVsPanva: proofs.vsPanva,
      tokenEndpoint: endpoint,
      oursVsOidcProvider: oursVsOp,
      dpopVsBearer,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown, data } = await run();
  emit('DPoP', markdown, data);
}
