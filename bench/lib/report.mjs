/**
 * BENCHMARKS.md from the results of one `pnpm bench` run: machine, a summary of every target,
 * then per benchmark what it measures, how to run it alone, the tables, what the ratios mean,
 * and, where a target is missed, the causes found by profiling.
 */

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { num, ratio, table } from './table.mjs';

const ABOUT = {
  'id-token': {
    heading: '1. ID-token validation (Node, warm JWKS cache)',
    what:
      'One signed ID token per algorithm (RS256 2048-bit, ES256 P-256; typical claims) validated over and over by each ' +
      'candidate, in interleaved rounds in one process. `crypto.verify` on the precomputed signing input is the limit; ' +
      '`crypto.subtle.verify` is shown because WebCrypto is what jose (and so every library below it) runs on in Node. ' +
      'jose `jwtVerify` gets a local CryptoKey (issuer, audience and algorithm checks). `validateIdToken` does the full ' +
      'OIDC validation: JWKS lookup in its cache, signature, iss, aud, azp, exp, iat, nbf, sub, nonce. oauth4webapi: ' +
      '`processAuthorizationCodeResponse` (claims + nonce) over a synthetic token Response, then ' +
      '`validateApplicationLevelSignature` with its JWKS cache: its only way to check an ID token signature, so it also ' +
      'pays for the Response object and the JSON body parse. openid-client: `implicitAuthentication` ' +
      '(response_type=id_token), its public path that validates an ID token with its signature and no token request. ' +
      'JWKS come from an in-process fetch stub; each library must fetch them once and then hit its own cache (the table ' +
      'header counts them). Before measuring, every candidate must accept the token and ' +
      'reject one with a flipped signature byte.',
    command: 'node bench/id-token.mjs',
    meaning:
      '"× crypto.verify" is the share of the platform limit a candidate reaches (1.00× = no overhead at all). ' +
      '"× jose jwtVerify" compares with the usual hand-rolled solution; the target is ≥ 0.95× for `validateIdToken`, ' +
      'although it checks more claims and looks the key up. Ratios are medians of per-round ratios, so a slow moment of ' +
      'the machine hits both sides of a ratio alike. With RSA the verify itself is cheap (~25–40 µs), so a few µs of ' +
      'JavaScript per call show; with ES256 the verify dominates and everyone converges.',
  },
  'cold-jwks': {
    heading: '2. Cold JWKS cache',
    what:
      '1,000 concurrent `validateIdToken` calls on an empty cache (`clearJwksCache()`), the JWKS served over loopback ' +
      'HTTP by a node:http server that counts requests; time until the first validation resolves and until all have. ' +
      "jose's `createRemoteJWKSet` + `jwtVerify` runs the same burst for reference. One unmeasured burst each first, " +
      'then alternating bursts.',
    command: 'node bench/cold-jwks.mjs',
    meaning: 'JWKS requests must be 1 per burst (concurrent callers share one fetch). The times show what the burst costs after the fetch.',
  },
  'bundle-size': {
    heading: '3. Bundle size (SPA usage)',
    what:
      'The same SPA usage (login, callback handling, getAccessToken, logout) written once per library in ' +
      '`bench/bundle-entries/`, bundled in the same run with esbuild (bundle, minify, tree-shake, platform browser, ' +
      'ESM, target es2022, `process.env.NODE_ENV` = production, legal comments dropped; react, react-dom and ' +
      'react/jsx-runtime external for every variant, so only the auth library is counted). min+gzip is zlib level 9 of ' +
      'the whole bundle. The React baseline row is the same App and root with no auth library: subtract it from the ' +
      'React rows to see the library alone. Shares come from the esbuild metafile (minified bytes per input). ' +
      "There is no MSAL React row: @azure/msal-react is not a dependency of bench/. Bundles are left in `bench/.out/bundles/`.",
    command: 'node bench/bundle-size.mjs',
    meaning:
      '"gzip vs ours" is a library\'s min+gzip size divided by ours in the same group (browser or React): above 1.00× we ' +
      'are smaller. Aims (issues 5 and 14): ≤ 9,216 B min+gzip for the default @oidc-rp/browser usage, ≤ 1,536 B more for React. The opt-in table shows what each optional part of the browser client adds; the source-module table lists every module of the default bundle.',
  },
  'client-credentials': {
    heading: '4. Client credentials (@oidc-rp/node)',
    what:
      'Against the reference server on loopback (client `service`): ops/s of `getClientCredentialsToken` once its ' +
      'token is cached, interleaved with a bare `await` of an async Map lookup (the floor of any async cache) and with ' +
      "an uncached token request (core `clientCredentials`, what each call would cost without the cache). Cold burst: " +
      "1,000 concurrent callers on a fresh client; token requests counted at the server with its `onRequest` option.",
    command: 'node bench/client-credentials.mjs',
    meaning: 'The burst must cause exactly one token request (single flight). "× cache hit" compares each row with a cache hit.',
  },
  server: {
    heading: '5. Reference server',
    what:
      'Token endpoint: client_credentials with client_secret_post under autocannon (10 connections, same body and ' +
      'settings for every target, interleaved rounds, medians). Each server runs in its own child process on a ' +
      'loopback port and autocannon in the bench process, so load generator and server get a core each. The ' +
      'reference server runs through its real CLI (demo config); oidc-provider 9 is configured equivalently ' +
      '(`bench/servers/oidc-provider.mjs`: clientCredentials feature, one client with client_secret_post, the same ' +
      'scopes, opaque tokens living 3600 s, an in-memory adapter that keeps every token until it expires as ours does ' +
      '(its own dev adapter is a 1,000-entry LRU; measured no faster), signing key passed in rather than generated); the bare ' +
      'node:http server answers a fixed JSON (the platform ceiling; at this rate autocannon on one core may be the ' +
      'limit). Latencies are autocannon\'s, with 1 ms resolution. Code flow: in-process through `server.fetch` ' +
      '(authorize → login form post → consent → code exchange with PKCE and `id_token`), sequential. Start-up: spawn → ' +
      'first successful response to the discovery document (`/` for the bare server), alternating runs, median; the ' +
      'bare server is the Node floor.',
    command: 'node bench/server.mjs',
    meaning:
      '"× bare node:http" is the share of the platform ceiling a server reaches; the target is ≥ 2× oidc-provider\'s req/s ' +
      'for the token endpoint and < 200 ms start-up.',
  },
  'api-middleware': {
    heading: '9. Access-token middleware (@oidc-rp/node/api)',
    what:
      'In process, interleaved rounds: a bare Hono handler (`app.fetch(request)`), the same route behind a no-op ' +
      'middleware, and behind `honoAccessToken(requireAccessToken(...))` with a verifier that accepts at once, so the difference is the ' +
      "middleware's own work (header limits, the URL from the configured origin, the ResourceRequest, the scope check, " +
      'the context variable); the same guard answering a request without a token (the RFC 6750 challenge); and ' +
      '`introspectionVerifier` answering from its cache (SHA-256 of the token, lookup, claim checks; the fetch is a ' +
      'stub that counts requests). Before measuring, the guarded app must answer 200 and 401 as documented.',
    command: 'node bench/api-middleware.mjs',
    meaning:
      '"× bare Hono" is guarded ÷ bare ops/s per round (1.00× = the middleware costs nothing); "× no-op middleware" ' +
      "compares with the same route behind a middleware that only calls next(), which removes Hono's own cost of " +
      'composing middleware (a route without any takes a faster path); the µs figure is the ' +
      "absolute overhead per request. Verification (a JWT signature, an introspection round trip) comes on top and is " +
      'measured by its own benchmark.',
  },
  'test-server': {
    heading: '6. Reference server as a test provider',
    what:
      'New server → first ID token: `createTestServer()` + `loginAs()` in-process (fixed development keys; authorize ' +
      'with PKCE, login form, code exchange, ID token verified), the same with a generated RS256 key, and the anchors ' +
      'oauth2-mock-server 8.2.3 (redirects at once with a code) and oidc-provider 9 (its dev login and consent forms), ' +
      'both on a loopback port with a pre-generated key. Alternating runs after a warm-up, median. Command line ready ' +
      'to sign: spawn → JWKS served with a key, ours with `--dev-keys` and without, the anchors as small scripts ' +
      '(`bench/servers/`), a bare node:http server as the floor.',
    command: 'node bench/test-server.mjs',
    meaning:
      '"× test preset" and "× --dev-keys" divide each time by ours (above 1× means slower than ours). Targets: first ID ' +
      'token ≤ 20 ms in-process, command line ready to sign ≤ 150 ms and ≤ 1.25× a bare node:http server started the ' +
      'same way in the same rounds.',
  },
  dpop: {
    heading: '7. DPoP (RFC 9449)',
    what:
      'Proof creation: ES256 proofs made over and over with one P-256 key pair, in interleaved rounds in one process: ' +
      "core `createDpopProof` and panva's `dpop` 2.1.2 `generateProof`, each for a token request (htm, htu) and for a " +
      'resource request (with `ath`); both sign with WebCrypto, whose `subtle.sign` of a proof-sized input is the limit. ' +
      'Each library\'s proofs are first verified with jose (embedded jwk, `typ`, htm, htu, ath, a new jti each time). ' +
      'Token endpoint with DPoP: client_credentials with client_secret_post and a fresh proof per request, autocannon with ' +
      '10 connections and the same number of requests per target per round, interleaved rounds, medians; the proofs (unique ' +
      'jti) are made just before each round so the load generator signs nothing while it measures. The reference server ' +
      'runs through its real CLI (demo config, client `service`), oidc-provider 9 through `bench/servers/oidc-provider.mjs` ' +
      '(the same client, DPoP on as by default, no server nonces, its jti replay cache in the same in-memory adapter); the ' +
      'reference server without a proof shows what DPoP costs. Before timing, each server must answer a proof with ' +
      '`token_type: DPoP` and refuse that proof replayed.',
    command: 'node bench/dpop.mjs',
    meaning:
      '"× subtle.sign" is the share of the signing limit a proof maker reaches (the rest is JSON, base64url, the random ' +
      'jti and, with ath, a SHA-256); "× dpop (panva)" compares ours with panva\'s package in the same rounds. ' +
      '"× oidc-provider, DPoP" compares token endpoints that both verify an ES256 proof and check its jti per request.',
  },
  'access-token': {
    heading: '8. Access-token verification at an API (Node, warm JWKS cache)',
    what:
      'One RFC 9068 JWT access token per algorithm (RS256 2048-bit, ES256 P-256; iss, sub, aud, client_id, scope, iat, ' +
      'exp, jti) verified over and over by each candidate with every check it offers, in interleaved rounds in one ' +
      'process. `crypto.verify` on the precomputed signing input is the limit. `@oidc-rp/node/api` and ' +
      '`@oidc-rp/core` run `jwtAccessTokenVerifier` on a request (`Authorization: Bearer`): the key by `kid` from the ' +
      'JWKS cache, the algorithm allow-list, `typ` at+jwt, the signature, iss, aud, exp/nbf/iat, sub, client_id, jti, ' +
      'scope; the first on node:crypto, the second on WebCrypto. jose `jwtVerify` gets a local JWKS (kid lookup), ' +
      'issuer, audience, algorithms, typ and required claims; fast-jwt `createVerifier` a PEM key with its cache off, ' +
      'allowed iss/aud/alg and required claims; express-oauth2-jwt-bearer `auth({ strict: true })` is called as ' +
      'Express middleware with a minimal request (its JWKS from a loopback server). Before measuring, every candidate ' +
      'must accept the token and refuse one with a flipped signature byte and one for another audience. Each gets its ' +
      'input built once, as a request delivers it (ours the request object, the others the token). Ratios come from ' +
      'the same rounds by wall-clock time and by the process\'s CPU time, with the load average at start and end. Then the ' +
      'opt-in verified-token cache (hits per second; a token past its exp must not be served), and a cold burst of ' +
      '1,000 concurrent verifications by a fresh verifier on an empty JWKS cache, JWKS requests counted at the server.',
    command: 'node bench/access-token.mjs',
    meaning:
      '"× crypto.verify" is the share of the platform limit a candidate reaches; "× fast-jwt" compares with the ' +
      'fastest hand-rolled choice. Goals for `@oidc-rp/node/api`, with every check done: ≥ 1.00× fast-jwt and ' +
      '≥ 0.85× crypto.verify, for RS256 and ES256. The cold burst must cause one JWKS request.',
  },
};

/** Causes found by profiling (bench/README.md, "Profiling"), shown when the matching target is missed. */
const FINDINGS = {
  idToken: [
    'Where validateIdToken trails jose jwtVerify, compare the profile of both (bench/README.md, "Profiling"): core ' +
      'decodes the token once, imports each JWK once (shared by concurrent callers) and verifies the signing input ' +
      'with WebCrypto, so what remains is its own claim checks. Earlier gaps came from decoding the token twice and ' +
      're-importing the key on every call (fixed 2026-11-20).',
  ],
  coldJwks: [
    'A cold burst shares one JWKS fetch and one key import per JWK; a slower first validation than jose usually means ' +
      'the import promise is no longer shared (see packages/core/src/jose/jws.ts).',
  ],
  bundle: [
    'Since issue 14 the default client carries the code flow only, jose is out of the bundle (WebCrypto imports JWKs ' +
      'itself), and discovery, popup login, the implicit flow, userinfo, revocation at logout and cross-tab ' +
      "coordination are opt-in (their cost is in the opt-in table). What remains is core's code-flow path (the " +
      '`@oidc-rp/core` row: request building, response checks, token endpoint, ID-token validation with its JWKS cache, ' +
      'the HTTP layer with timeouts and capped bodies, logout) and the browser state layer (session, refresh, callback ' +
      'handling, storage, events); the source-module table shows where. Production builds carry error codes, not prose. ' +
      'packages/browser/test/bundle-size.test.ts holds the bundle to the target in bench/lib/bundle-budget.json.',
  ],
  server: [
    'Profile the CLI under autocannon (`node --cpu-prof dist/cli.js`): body reading (arrayBuffer for length-delimited ' +
      'bodies), CORS headers set once per response, `overrideGlobalObjects: true` in the CLI process, pooled CSPRNG ' +
      'bytes and the incremental expiry sweep were the hot spots fixed on 2026-11-20 (3.6k → ~30k req/s here).',
  ],
  testServer: [
    'Ready to sign is Node start-up (the bare server row) plus loading the bundled CLI (about 320 KB of JavaScript: hono, ' +
      'jose, zod and the server) plus importing the fixed key; on a machine busy with other work every part of it ' +
      'stretches, so compare the ratios to the anchors and to the bare server, which ran in the same rounds.',
  ],
  accessToken: [
    'Profile with `node --cpu-prof` (bench/README.md): with the key set cached the Node path has no await before the ' +
      'signature (key selection remembered per kid, the header decoded once per issuer key); what remains beside ' +
      '`crypto.verify` is decoding the signature and the payload (Buffer base64url, JSON.parse), scanning the token ' +
      'once for its alphabet, and the claim checks. The limit row gets its signing input and signature as ready-made ' +
      'buffers, so part of the gap is work any verifier must do; on a loaded machine the share moves by ±0.1.',
  ],
  startup: [
    'Start-up is Node itself (the bare server row), the import of the bundled CLI, and nothing else: requests wait for ' +
      'the tenant\'s signing keys only where they sign or publish (JWKS, ID tokens), so discovery answers at once.',
  ],
};

function status(ok) {
  return ok === undefined ? '' : ok ? 'met' : '**not met**';
}

function summary(byName) {
  const rows = [];
  const id = byName['id-token'];
  if (id?.ok) {
    for (const [alg, v] of Object.entries(id.data.coreVsJose)) {
      rows.push([`ID token ${alg}`, 'validateIdToken ÷ jose jwtVerify', ratio(v), '≥ 0.95×', status(v >= 0.95)]);
    }
  }
  const cold = byName['cold-jwks'];
  if (cold?.ok) {
    const core = cold.data.candidates[0];
    rows.push(['Cold JWKS', 'JWKS requests for 1,000 concurrent validations', String(core.jwksRequests), '1', status(core.jwksRequests === 1)]);
    const jose = cold.data.candidates[1];
    rows.push(['Cold JWKS', 'time to first validation, ours ÷ jose remote set', ratio(core.firstMs / jose.firstMs), '', '']);
  }
  const bundle = byName['bundle-size'];
  if (bundle?.ok) {
    rows.push(['Bundle', '@oidc-rp/browser min+gzip', `${num(bundle.data.browserGzip)} B`, '≤ 9,216 B', status(bundle.data.browserGzip <= 9216)]);
    rows.push(['Bundle', '@oidc-rp/react extra min+gzip, net of app code', `${num(bundle.data.reactExtraNetGzip)} B`, '≤ 1,536 B', status(bundle.data.reactExtraNetGzip <= 1536)]);
  }
  const cc = byName['client-credentials'];
  if (cc?.ok) {
    rows.push(['Client credentials', 'token requests for 1,000 concurrent callers (max of bursts)', String(cc.data.maxBurstRequests), '1', status(cc.data.maxBurstRequests === 1)]);
    rows.push(['Client credentials', 'cache hits per second', num(cc.data.cacheHitOpsPerSec), '', '']);
  }
  const server = byName.server;
  if (server?.ok) {
    rows.push(['Server', 'token endpoint req/s ÷ oidc-provider', ratio(server.data.oursVsOidcProvider), '≥ 2×', status(server.data.oursVsOidcProvider >= 2)]);
    const ours = server.data.startup.find((s) => s.id === 'ours');
    rows.push(['Server', 'start-up (spawn → first response), median', `${num(ours.medianMs)} ms`, '< 200 ms', status(ours.medianMs < 200)]);
  }
  const preset = byName['test-server'];
  if (preset?.ok) {
    const d = preset.data;
    const of = (list, id) => list.find((r) => r.id === id)?.medianMs;
    rows.push(['Test provider', 'new server → first ID token, in-process, median', `${num(d.firstTokenMs, 1)} ms`, '≤ 20 ms', status(d.firstTokenMs <= 20)]);
    rows.push(['Test provider', 'first ID token, oauth2-mock-server ÷ ours', ratio(of(d.firstToken, 'mock') / d.firstTokenMs), '', '']);
    rows.push(['Test provider', 'first ID token, oidc-provider ÷ ours', ratio(of(d.firstToken, 'op') / d.firstTokenMs), '', '']);
    rows.push(['Test provider', 'CLI ready to sign (--dev-keys), median', `${num(d.readyToSignMs)} ms`, '≤ 150 ms', status(d.readyToSignMs <= 150)]);
    rows.push(['Test provider', 'CLI ready to sign ÷ bare node:http (same rounds)', ratio(d.readyToSignVsBare), '≤ 1.25×', status(d.readyToSignVsBare <= 1.25)]);
    rows.push(['Test provider', 'CLI ready to sign, oauth2-mock-server ÷ ours', ratio(of(d.readyToSign, 'mock') / d.readyToSignMs), '', '']);
    rows.push(['Test provider', 'CLI ready to sign, oidc-provider ÷ ours', ratio(of(d.readyToSign, 'op') / d.readyToSignMs), '', '']);
  }
  const dpopResult = byName.dpop;
  if (dpopResult?.ok) {
    const d = dpopResult.data;
    rows.push(['DPoP', 'proof creation (token request), core ÷ dpop (panva)', ratio(d.proofsVsPanva.token), '', '']);
    rows.push(['DPoP', 'proof creation (with ath), core ÷ dpop (panva)', ratio(d.proofsVsPanva.ath), '', '']);
    rows.push(['DPoP', 'token endpoint with DPoP req/s ÷ oidc-provider with DPoP', ratio(d.oursVsOidcProvider), '', '']);
  }
  const at = byName['access-token'];
  if (at?.ok) {
    for (const [alg, g] of Object.entries(at.data.goals)) {
      rows.push([`Access token ${alg}`, '@oidc-rp/node/api ÷ crypto.verify (share of the limit), head to head', ratio(g.vsLimit), '≥ 0.85×', status(g.vsLimit >= 0.85)]);
      rows.push([`Access token ${alg}`, '@oidc-rp/node/api ÷ fast-jwt (no cache), head to head', ratio(g.vsFastJwt), '≥ 1.00×', status(g.vsFastJwt >= 1)]);
      if (g.vsLimitCpu !== undefined) {
        rows.push([`Access token ${alg}`, 'the same ÷ crypto.verify, by CPU time', ratio(g.vsLimitCpu), '≥ 0.85×', status(g.vsLimitCpu >= 0.85)]);
        rows.push([`Access token ${alg}`, 'the same ÷ fast-jwt, by CPU time', ratio(g.vsFastJwtCpu), '≥ 1.00×', status(g.vsFastJwtCpu >= 1)]);
      }
    }
    rows.push(['Access token', 'verified-token cache hits per second (ES256)', num(at.data.cache.hitOpsPerSec), '', '']);
    rows.push(['Access token', 'JWKS requests for 1,000 concurrent verifications', String(at.data.cold.jwksRequests), '1', status(at.data.cold.jwksRequests === 1)]);
  }
  const api = byName['api-middleware'];
  if (api?.ok) {
    rows.push(['API middleware', 'Hono + requireAccessToken ÷ bare Hono handler', ratio(api.data.guardedVsBare), '', '']);
    rows.push(['API middleware', 'Hono + requireAccessToken ÷ Hono + a no-op middleware', ratio(api.data.guardedVsNoop), '', '']);
    rows.push(['API middleware', 'overhead per accepted request', `${num(api.data.overheadUs, 2)} µs`, '', '']);
  }
  return table(['benchmark', 'measure', 'result', 'target', 'status'], rows, ['l', 'l', 'r', 'r', 'l']);
}

function findingsFor(name, result) {
  if (!result.ok) return [];
  const d = result.data;
  if (name === 'id-token') return Object.values(d.coreVsJose).some((v) => v < 0.95) ? FINDINGS.idToken : [];
  if (name === 'cold-jwks') {
    const [core, jose] = d.candidates;
    return core.jwksRequests !== 1 || core.firstMs > jose.firstMs * 1.2 ? FINDINGS.coldJwks : [];
  }
  if (name === 'bundle-size') return d.browserGzip > 9216 ? FINDINGS.bundle : [];
  if (name === 'access-token') return Object.values(d.goals).some((g) => g.vsLimit < 0.85 || g.vsFastJwt < 1) ? FINDINGS.accessToken : [];
  if (name === 'test-server') return d.firstTokenMs > 20 || d.readyToSignMs > 150 || d.readyToSignVsBare > 1.25 ? FINDINGS.testServer : [];
  if (name === 'server') {
    const out = [];
    if (d.oursVsOidcProvider < 2) out.push(...FINDINGS.server);
    if (d.startup.find((s) => s.id === 'ours').medianMs >= 200) out.push(...FINDINGS.startup);
    return out;
  }
  return [];
}

/** The whole BENCHMARKS.md. */
export function renderReport(machine, results) {
  const byName = Object.fromEntries(results.map((r) => [r.name, r]));
  const load = machine.loadAverage.map((l) => l.toFixed(2)).join(' / ');
  const parts = [
    '# Benchmarks',
    '',
    `> Generated by \`pnpm bench\` (\`bench/run-all.mjs\`) on ${machine.date}; do not edit by hand, run it again. ` +
      'How to run and what each file does: [bench/README.md](bench/README.md).',
    '',
    'Every comparison is measured side by side in one run: micro-benchmarks in interleaved rounds in one process, ' +
      'servers under the same load tool and settings in alternating rounds. Absolute numbers on a shared 2-core ' +
      'machine are noise (other jobs, frequency scaling); **read the ratios**, which are taken within a round.',
    '',
    '## Machine',
    '',
    table(
      ['CPU', 'cores', 'memory', 'Node', 'OS', 'load average at start (1/5/15 min)', 'total run'],
      [[machine.cpu, machine.cores, `${machine.memoryGiB.toFixed(1)} GiB`, machine.node, machine.os, load, `${machine.totalSeconds.toFixed(0)} s`]],
      ['l', 'r', 'r', 'l', 'l', 'r', 'r'],
    ),
    '',
    '## Summary',
    '',
    summary(byName),
    '',
    'Command: `pnpm bench` (= `pnpm --filter @oidc-rp/bench bench`) runs all of them in about five minutes; each can also ' +
      'run alone (command under each heading). Build the packages first (`pnpm build`).',
  ];
  for (const result of results) {
    const about = ABOUT[result.name];
    const took = result.seconds < 10 ? result.seconds.toFixed(1) : result.seconds.toFixed(0);
    parts.push('', `## ${about.heading}`, '', about.what, '', `Alone: \`${about.command}\` (${took} s in this run).`, '');
    if (!result.ok) {
      parts.push('**This benchmark failed in this run:**', '', '```', result.error, '```');
      continue;
    }
    parts.push(result.markdown, '', `**What the ratios mean.** ${about.meaning}`);
    const findings = findingsFor(result.name, result);
    if (findings.length) {
      parts.push('', '**Why we are behind, and what it would take** (found by profiling, see bench/README.md):', '', ...findings.map((f) => `- ${f}`));
    }
  }
  // The test suite's numbers are measured by hand (CPU per task and per file, see the section), not
  // by this run: kept in bench/test-suite.md and copied in, so a new `pnpm bench` does not drop them.
  const suite = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-suite.md');
  if (existsSync(suite)) parts.push('', readFileSync(suite, 'utf8').trimEnd());
  return `${parts.join('\n')}\n`;
}
