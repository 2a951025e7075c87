import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { demoConfig } from '../src/index';
import { completeLogin, CookieJar } from '../src/testing';
import { authorizeUrl, pkce, spaParams, SPA_REDIRECT } from './helpers';
import { describeHttpBodies } from './support/http-bodies';
import { builtCli } from './support/built-cli';
import { testTempDir } from './support/temp-dir';

// The CLI is built from source with the package's CLI build settings, so this test never runs a
// stale dist/ and does not race a concurrent `build` of the package.
let cli: string;

beforeAll(async () => {
  // The shipped shape (build/cli-build.ts), built once for every CLI test file.
  cli = await builtCli();
}, 60_000);

interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, PORT: '', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Resolves with the origin once the `listening on` line is printed; rejects if the process exits first. */
function listening(r: Run): Promise<string> {
  return new Promise((resolveOrigin, reject) => {
    const check = () => {
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(r.stdout());
      if (match?.[1]) {
        r.child.stdout.off('data', check);
        resolveOrigin(match[1]);
      }
    };
    r.child.stdout.on('data', check);
    void r.exit.then(() => reject(new Error(`exited before listening: ${r.stderr()}`)));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

describe('CLI', () => {
  it('--port 0: prints exactly one listening line, serves over HTTP, exits cleanly on SIGTERM', async () => {
    const r = run(['--port', '0']);
    const origin = await listening(r);
    const res = await fetch(`${origin}/demo/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { issuer: string }).issuer).toBe(`${origin}/demo`);
    const keep = await fetch(`${origin}/demo/oidc/jwks`, { headers: { connection: 'keep-alive' } });
    expect(keep.status).toBe(200);
    r.child.kill('SIGTERM');
    expect(await r.exit).toEqual({ code: 0, signal: null });
    expect(r.stdout()).toBe(`listening on ${origin}\n`);
    expect(r.stderr()).toBe('');
    await expect(fetch(`${origin}/demo/oidc/jwks`)).rejects.toThrow();
  });

  it('exits cleanly on SIGINT too', async () => {
    const r = run(['--port', '0']);
    await listening(r);
    r.child.kill('SIGINT');
    expect(await r.exit).toEqual({ code: 0, signal: null });
  });

  it('takes the port from PORT when --port is absent', async () => {
    const port = await freePort();
    const r = run([], { PORT: String(port) });
    expect(await listening(r)).toBe(`http://127.0.0.1:${port}`);
    r.child.kill('SIGTERM');
    expect((await r.exit).code).toBe(0);
  });

  it('serves a config file given with --config', async () => {
    const dir = await testTempDir('rs-cli-');
    const file = join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ tenants: [{ id: 'acme', signing_alg: 'ES256', clients: [{ client_id: 'c', client_secret: 's', grant_types: ['client_credentials'], scopes: ['api'] }] }] }));
    const r = run(['--config', file, '--port', '0']);
    const origin = await listening(r);
    const token = await fetch(`${origin}/acme/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=c&client_secret=s',
    });
    expect(token.status).toBe(200);
    expect((await fetch(`${origin}/demo/oidc/jwks`)).status).toBe(404);
    r.child.kill('SIGTERM');
    expect((await r.exit).code).toBe(0);
  });

  it('refuses an invalid config at start with a message naming the field', async () => {
    const dir = await testTempDir('rs-cli-');
    const file = join(dir, 'config.json');
    const config = demoConfig();
    config.tenants[0]!.development = false;
    config.tenants[0]!.demo_login = false; // only a development tenant may sign in without a password
    config.tenants[0]!.clients![1]!.redirect_uris = ['http://app.example/callback'];
    await writeFile(file, JSON.stringify(config));
    const r = run(['--config', file, '--port', '0']);
    expect((await r.exit).code).toBe(1);
    expect(r.stdout()).toBe('');
    expect(r.stderr()).toMatch(/tenants\[0\]\.clients\[1\]\.redirect_uris\[0\]: http is only allowed/);
  });

  it('refuses a missing config file and bad arguments', async () => {
    const missing = run(['--config', '/nonexistent/config.json']);
    expect((await missing.exit).code).toBe(1);
    expect(missing.stderr()).toMatch(/cannot read/);
    const badPort = run(['--port', 'eighty']);
    expect((await badPort.exit).code).toBe(2);
    expect(badPort.stderr()).toMatch(/--port must be a port number/);
    const unknown = run(['--verbose']);
    expect((await unknown.exit).code).toBe(2);
    expect(unknown.stderr()).toMatch(/usage:/);
  });

  it('reports a port in use instead of crashing', async () => {
    const blocker = createServer();
    await new Promise<void>((ok) => blocker.listen(0, '127.0.0.1', ok));
    const { port } = blocker.address() as { port: number };
    const r = run(['--port', String(port)]);
    expect((await r.exit).code).toBe(1);
    expect(r.stderr()).toMatch(/cannot listen on port \d+: EADDRINUSE/);
    await new Promise<void>((ok) => blocker.close(() => ok()));
  });
});

describe('CLI --control', () => {
  const secret = 'Mz6Qp2Xw9Lr4Kt8B';
  const users = (origin: string, authorization?: string) =>
    fetch(`${origin}/_control/users`, { headers: { 'x-control-request': '1', ...(authorization ? { authorization } : {}) } });

  it('is off without the flag (404), on with it for loopback callers', async () => {
    const off = run(['--port', '0']);
    expect((await users(await listening(off))).status).toBe(404);
    off.child.kill('SIGTERM');
    const on = run(['--port', '0', '--control']);
    const origin = await listening(on);
    const added = await fetch(`${origin}/_control/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-control-request': '1' },
      body: JSON.stringify({ username: 'carol', password: 'builder' }),
    });
    expect(added.status).toBe(201);
    expect(((await (await users(origin)).json()) as { username: string }[]).map((u) => u.username)).toEqual(['alice', 'bob', 'carol']);
    on.child.kill('SIGTERM');
    expect((await on.exit).code).toBe(0);
    expect(on.stdout()).toBe(`listening on ${origin}\n`);
    await off.exit;
  });

  it('requires the secret from OIDC_RP_CONTROL_SECRET as a bearer token', async () => {
    const r = run(['--port', '0', '--control'], { OIDC_RP_CONTROL_SECRET: secret });
    const origin = await listening(r);
    expect((await users(origin)).status).toBe(401);
    expect((await users(origin, 'Bearer wrong-secret-wrong-secret')).status).toBe(401);
    expect((await users(origin, `Bearer ${secret}`)).status).toBe(200);
    r.child.kill('SIGTERM');
    await r.exit;
    expect(r.stderr()).not.toContain(secret);
  });

  it('refuses a secret without --control, and a short secret', async () => {
    const noFlag = run(['--port', '0'], { OIDC_RP_CONTROL_SECRET: secret });
    expect((await noFlag.exit).code).toBe(2);
    expect(noFlag.stderr()).toContain('--control');
    const short = run(['--port', '0', '--control'], { OIDC_RP_CONTROL_SECRET: 'short' });
    expect((await short.exit).code).toBe(2);
    expect(short.stderr()).toContain('at least 16');
    expect(short.stderr()).not.toContain('short\n');
    // Long enough but guessable: refused with the way to generate one, and never echoed.
    const guessable = run(['--port', '0', '--control'], { OIDC_RP_CONTROL_SECRET: 'my-control-api-password' });
    expect((await guessable.exit).code).toBe(2);
    expect(guessable.stderr()).toContain('must be random');
    expect(guessable.stderr()).toContain('openssl rand -base64 32');
    expect(guessable.stderr()).not.toContain('my-control-api-password');
  });
});

describe('CLI --dev-keys', () => {
  it('signs with the fixed development key at once: the same kid on every run', async () => {
    const kids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = run(['--port', '0', '--dev-keys']);
      const origin = await listening(r);
      const jwks = (await (await fetch(`${origin}/demo/oidc/jwks`)).json()) as { keys: { kid: string }[] };
      kids.push(jwks.keys[0]?.kid ?? '');
      r.child.kill('SIGTERM');
      expect((await r.exit).code).toBe(0);
    }
    expect(kids[0]).toMatch(/^[\w-]{43}$/);
    expect(kids[1]).toBe(kids[0]);
  });

  it('serves its JWKS without loading node:crypto, WebCrypto or node:fs/promises: a start stays cheap, keys are imported at the first signature', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rs-cli-modules-'));
    try {
      const list = join(dir, 'modules.txt');
      const preload = join(dir, 'record-modules.cjs');
      // The built-in modules loaded so far, written when the server is told to stop (after the JWKS answer).
      await writeFile(preload, `process.prependListener('SIGTERM', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
      const child = spawn(process.execPath, ['--require', preload, cli, '--port', '0', '--dev-keys'], { env: { ...process.env, PORT: '' } });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const exit = once(child, 'exit');
      await new Promise<void>((ok) => child.stdout.on('data', () => /listening on /.test(out) && ok()));
      const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      const jwks = (await (await fetch(`${origin}/demo/oidc/jwks`)).json()) as { keys: { kid: string; d?: string }[] };
      expect(jwks.keys).toHaveLength(1);
      expect(jwks.keys[0]?.d).toBeUndefined();
      child.kill('SIGTERM');
      expect((await exit)[0]).toBe(0);
      const loaded = (await readFile(list, 'utf8')).split('\n');
      expect(loaded).toContain('NativeModule http');
      expect(loaded.filter((m) => /^NativeModule (crypto|fs\/promises|internal\/crypto\/webcrypto|internal\/deps\/undici)/.test(m))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses the development keys for a non-development tenant and a non-loopback host', async () => {
    const dir = await testTempDir('rs-cli-dev-');
    const file = join(dir, 'prod.json');
    await writeFile(file, JSON.stringify({ tenants: [{ id: 'acme', clients: [{ client_id: 'c', client_secret: 's', grant_types: ['client_credentials'], scopes: ['api'] }] }] }));
    const prod = run(['--port', '0', '--dev-keys', '--config', file]);
    expect((await prod.exit).code).toBe(1);
    expect(prod.stderr()).toMatch(/invalid config at tenants\[0\]\.development: tenant "acme" is not a development tenant/);
    expect(prod.stdout()).toBe('');
    const open = run(['--port', '0', '--dev-keys', '--host', '0.0.0.0']);
    expect((await open.exit).code).toBe(1);
    expect(open.stderr()).toMatch(/development signing keys are public and serve loopback only/);
  });
});

describe('CLI under requests', () => {
  let r: Run;
  let origin = '';
  beforeAll(async () => {
    r = run(['--port', '0']);
    origin = await listening(r);
  });
  afterAll(async () => {
    r.child.kill('SIGTERM');
    await r.exit;
  });

  it('answers discovery and the JWKS, and exits cleanly afterwards', async () => {
    expect((await fetch(`${origin}/demo/.well-known/openid-configuration`)).status).toBe(200);
    const jwks = (await (await fetch(`${origin}/demo/oidc/jwks`)).json()) as { keys: { alg: string }[] };
    expect(jwks.keys.map((k) => k.alg)).toEqual(['RS256']);
  });

  it('serves a full login: login and consent pages, cookies, code exchange, ID token, userinfo, refresh', async () => {
    const issuer = `${origin}/demo`;
    const { verifier, challenge } = pkce();
    const cookies = new CookieJar();
    const result = await completeLogin(authorizeUrl(spaParams(challenge), issuer), { cookies });
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    const code = new URL(result.location).searchParams.get('code') ?? '';
    expect(cookies.names()).toEqual(expect.arrayContaining(['rs_browser', 'rs_session']));
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const exchange = await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: verifier }),
    });
    expect(exchange.status).toBe(200);
    const tokens = (await exchange.json()) as { access_token: string; id_token: string; refresh_token: string };
    const jwks = createRemoteJWKSet(new URL(`${issuer}/oidc/jwks`));
    const { payload } = await jwtVerify(tokens.id_token, jwks, { issuer, audience: 'spa' });
    expect(payload.sub).toBe('alice');
    const me = await fetch(`${issuer}/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await me.json()).toMatchObject({ sub: 'alice', name: 'Alice Liddell' });
    const refreshed = await fetch(`${issuer}/oauth/token`, { method: 'POST', headers: form, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'spa' }) });
    expect(refreshed.status).toBe(200);
    const replay = await fetch(`${issuer}/oauth/token`, { method: 'POST', headers: form, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'spa' }) });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
  });

  describeHttpBodies('CLI', () => origin);
});
