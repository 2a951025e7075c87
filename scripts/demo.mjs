// `npm run demo`: sets up what a fresh machine lacks, builds, then runs the reference server,
// the example SPA and the server-side example until Ctrl-C. "Ready" is printed only once all
// three answer; a busy port stops it at once with the way to choose another.
//
//   npm run demo -- --server-port 4100 --spa-port 5174 --node-port 3100
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDependencies, ensurePnpm, fail, root, runBin } from './lib/bootstrap.mjs';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;

const { values } = parseArgs({
  options: {
    'server-port': { type: 'string', default: '4000' },
    'spa-port': { type: 'string', default: '5173' },
    'node-port': { type: 'string', default: '3000' },
    // For the demo's own test, which runs after turbo built everything.
    'no-build': { type: 'boolean', default: false },
  },
});
const port = (flag) => {
  const n = Number(values[flag]);
  if (!Number.isInteger(n) || n < 1 || n > 65535) fail(`--${flag} must be a port number (1-65535), got "${values[flag]}".`);
  return n;
};
const ports = { server: port('server-port'), spa: port('spa-port'), node: port('node-port') };
const issuer = `http://${HOST}:${ports.server}/demo`;
const spaOrigin = `http://${HOST}:${ports.spa}`;
const nodeOrigin = `http://${HOST}:${ports.node}`;

const services = [
  { name: 'reference server', flag: 'server-port', port: ports.server, ready: `${issuer}/.well-known/openid-configuration` },
  { name: 'example SPA', flag: 'spa-port', port: ports.spa, ready: `${spaOrigin}/` },
  { name: 'server-side example', flag: 'node-port', port: ports.node, ready: `${nodeOrigin}/` },
];

async function isFree(portNumber) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(portNumber, HOST, () => probe.close(() => resolve(true)));
  });
}

for (const service of services) {
  if (!(await isFree(service.port))) {
    fail(`port ${service.port} (${service.name}) is in use: stop what uses it, or choose another with \`npm run demo -- --${service.flag} <port>\`.`);
  }
}

if (!values['no-build']) {
  ensurePnpm();
  ensureDependencies();
  console.log('› building (turbo; cached after the first run)');
  if (runBin('turbo', ['run', 'build', '--output-logs=errors-only']) !== 0) fail('the build failed; its output is above.');
}

// The demo tenant registers the default ports; other ports get a config with those origins.
const serverArgs = ['--port', String(ports.server)];
if (ports.spa !== 5173 || ports.node !== 3000 || ports.server !== 4000) {
  const { demoConfig } = await import(join(root, 'apps/reference-server/dist/index.mjs'));
  const config = demoConfig();
  const rewrite = (uri) => uri.replace(/^(http:\/\/(?:127\.0\.0\.1|localhost)):(5173|3000)\b/, (_, origin, p) => `${origin}:${p === '5173' ? ports.spa : ports.node}`);
  for (const client of config.tenants[0].clients) {
    client.redirect_uris = client.redirect_uris?.map(rewrite);
    client.post_logout_redirect_uris = client.post_logout_redirect_uris?.map(rewrite);
    client.introspection_audiences = client.introspection_audiences?.map(rewrite);
    client.resources = client.resources?.map(rewrite);
    if (client.backchannel_logout_uri) client.backchannel_logout_uri = rewrite(client.backchannel_logout_uri);
  }
  const file = join(root, 'apps/reference-server/dist/demo-ports.json');
  writeFileSync(file, JSON.stringify(config));
  serverArgs.push('--config', file);
}
// The SPA reads its issuer at run time from config.js (see apps/spa-example/src/config.ts).
// The demo API is the server-side example's /api/me; the SPA asks for tokens issued for it.
const spaConfig = { issuer, demoApiUrl: `${nodeOrigin}/api/me`, demoApiResource: `${nodeOrigin}/api` };
writeFileSync(join(root, 'apps/spa-example/dist/config.js'), `window.__OIDC_CONFIG__ = ${JSON.stringify(spaConfig)};\n`);

const children = [
  { name: 'reference-server', cwd: 'apps/reference-server', args: ['dist/cli.js', ...serverArgs] },
  { name: 'spa-example', cwd: 'apps/spa-example', args: ['node_modules/vite/bin/vite.js', 'preview', '--host', HOST, '--port', String(ports.spa), '--strictPort'] },
  { name: 'node-example', cwd: 'apps/node-example', args: ['dist/server.js'], env: { PORT: String(ports.node), BASE_URL: nodeOrigin, OIDC_ISSUER: issuer, SPA_ORIGIN: spaOrigin } },
].map(({ name, cwd, args, env }) => {
  // Own process group, so Ctrl-C stops whatever a child started too.
  const child = spawn(process.execPath, args, { cwd: join(root, cwd), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const prefix = `[${name}] `;
  for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
    stream.on('data', (chunk) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) out.write(`${prefix}${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`\n✖ ${name} stopped (${signal ?? `exit ${code}`}); stopping the demo. Its output is above.`);
      stop(1);
    }
  });
  return child;
});

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  Promise.all(children.map((child) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve))))).then(() =>
    process.exit(code),
  );
  setTimeout(() => process.exit(code), 3_000).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function answers(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

const deadline = Date.now() + READY_TIMEOUT_MS;
for (const service of services) {
  for (let delay = 50; !(await answers(service.ready)); delay = Math.min(delay * 2, 500)) {
    if (stopping) await new Promise(() => {}); // exiting
    if (Date.now() > deadline) {
      console.error(`\n✖ the ${service.name} did not answer at ${service.ready} within ${READY_TIMEOUT_MS / 1000} s; stopping.`);
      stop(1);
      await new Promise(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

console.log(`
  oidc-rp demo is ready
  ─────────────────────────────────────────────────────────────
  Example SPA (React):        ${spaOrigin}
  Server-side example (Hono): ${nodeOrigin}
  Reference server (tenant):  ${issuer}
  Log in as:                  alice / wonderland
  Ctrl-C stops everything.
`);
