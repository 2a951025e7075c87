// The command line's security settings: --public-origin / OIDC_RP_PUBLIC_ORIGIN,
// --trust-proxy / OIDC_RP_TRUST_PROXY, OIDC_RP_KEY_ENCRYPTION_SECRET, and failed sign-ins
// logged to stderr without the password.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoConfig } from '../src/index';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';
import { authorizeUrl, webParams } from './helpers';
import { browser, openLogin } from './support/http-browser';
import { builtCli } from './support/built-cli';
import { testTempDir } from './support/temp-dir';

let cli: string;
let redis: RunningRedis | undefined;

beforeAll(async () => {
  // The shipped shape (build/cli-build.ts), built once for every CLI test file.
  cli = await builtCli();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

interface Run {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  origin: Promise<string>;
  exit: Promise<number | null>;
}
const running: Run[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    if (r.child.exitCode === null) {
      r.child.kill('SIGTERM');
      await r.exit;
    }
  }
});

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [cli, '--port', '0', ...args], { env: { ...process.env, PORT: '', ...env } });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = once(child, 'close').then(([code]) => code as number | null);
  const origin = new Promise<string>((resolveOrigin, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (match?.[1]) resolveOrigin(match[1]);
    });
    void exit.then(() => reject(new Error(`exited: ${err}`)));
  });
  origin.catch(() => undefined);
  const r = { child, stderr: () => err, origin, exit };
  running.push(r);
  return r;
}

async function issuerOf(origin: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${origin}/demo/.well-known/openid-configuration`, { headers });
  return ((await res.json()) as { issuer: string }).issuer;
}

/** The demo config without `demo_login` (refused next to any setting that exposes the server), as a file. */
async function withoutDemoLogin(): Promise<string> {
  const config = demoConfig();
  for (const tenant of config.tenants) tenant.demo_login = false;
  const file = join(await testTempDir('rs-cli-'), 'config.json');
  await writeFile(file, JSON.stringify(config));
  return file;
}

describe('CLI security settings', () => {
  it('--public-origin and OIDC_RP_PUBLIC_ORIGIN set the issuer', async () => {
    const file = await withoutDemoLogin();
    const flag = await run(['--config', file, '--public-origin', 'https://login.example.com']).origin;
    expect(await issuerOf(flag)).toBe('https://login.example.com/demo');
    const env = await run(['--config', file], { OIDC_RP_PUBLIC_ORIGIN: 'https://id.example.com' }).origin;
    expect(await issuerOf(env)).toBe('https://id.example.com/demo');
    const bad = run(['--public-origin', 'http://login.example.com']);
    expect(await bad.exit).toBe(1);
    expect(bad.stderr()).toContain('must use https');
  });

  it('--trust-proxy and OIDC_RP_TRUST_PROXY=1 honour X-Forwarded-Proto; without them it is ignored', async () => {
    const forwarded = { 'x-forwarded-proto': 'https' };
    const plain = await run([]).origin;
    expect(await issuerOf(plain, forwarded)).toBe(`${plain}/demo`);
    const file = await withoutDemoLogin();
    const flag = await run(['--config', file, '--trust-proxy']).origin;
    expect(await issuerOf(flag, forwarded)).toBe(`${flag.replace('http:', 'https:')}/demo`);
    const env = await run(['--config', file], { OIDC_RP_TRUST_PROXY: '1' }).origin;
    expect(await issuerOf(env, forwarded)).toBe(`${env.replace('http:', 'https:')}/demo`);
  });

  it('a production-looking setting refuses demo_login, the development keys and a secret-less --control, naming the setting', async () => {
    // Four CLI processes, started together: each refuses before it listens.
    const file = await withoutDemoLogin();
    const demo = run(['--public-origin', 'https://login.example.com']);
    const devKeys = run(['--config', file, '--dev-keys', '--trust-proxy']);
    const control = run(['--config', file, '--control'], { OIDC_RP_TRUST_PROXY: '1' });
    const listening = run(['--host', '0.0.0.0']);
    expect(await Promise.all([demo.exit, devKeys.exit, control.exit, listening.exit])).toEqual([1, 1, 1, 1]);
    expect(demo.stderr()).toContain('invalid config at tenants[0].demo_login');
    expect(demo.stderr()).toContain('"public_origin" (--public-origin, OIDC_RP_PUBLIC_ORIGIN)');
    expect(devKeys.stderr()).toContain('invalid config at trust_proxy');
    expect(devKeys.stderr()).toContain('development signing keys are public');
    expect(control.stderr()).toContain('invalid config at trust_proxy');
    expect(control.stderr()).toContain('OIDC_RP_CONTROL_SECRET=$(openssl rand -base64 32)');
    expect(listening.stderr()).toContain('"demo_login"');
  });

  it('logs failed sign-ins and lockouts to stderr, never the password', async () => {
    const r = run([]);
    const origin = await r.origin;
    for (let i = 0; i < 5; i++) {
      const b = browser();
      const { interaction, csrf, action } = await openLogin(b, authorizeUrl(webParams(), `${origin}/demo`));
      await b.go(action, { form: { interaction, csrf, username: 'alice', password: `secret-guess-${i}`, action: 'login' } });
    }
    expect(r.stderr()).toMatch(/failed sign-in for user alice from 127\.0\.0\.1 \(1 of 5 for this user from this address, 1 of 20 for the user, 1 of 20 for the address\)/);
    expect(r.stderr()).toMatch(/sign-in locked for user alice/);
    expect(r.stderr()).not.toContain('secret-guess');
  });

  it('a Redis store with a production tenant needs OIDC_RP_KEY_ENCRYPTION_SECRET', async () => {
    redis = await startRedisServer();
    const config = demoConfig();
    const tenant = config.tenants[0];
    if (tenant) {
      tenant.development = false;
      tenant.demo_login = false;
      for (const c of tenant.clients ?? []) delete c.backchannel_logout_uri; // http on loopback needs a development tenant
    }
    config.store = { type: 'redis', url: redis.url, prefix: 'cli-security:' };
    const file = join(await testTempDir('rs-cli-'), 'config.json');
    await writeFile(file, JSON.stringify(config));
    const refused = run(['--config', file]);
    expect(await refused.exit).toBe(1);
    expect(refused.stderr()).toContain('invalid config at store.key_encryption_secret');
    const started = run(['--config', file], { OIDC_RP_KEY_ENCRYPTION_SECRET: 'p9Lk3Wq7Zr2Xc8Vn4Bm6Ht1Jy5Gd0FsE' });
    const origin = await started.origin;
    expect((await fetch(`${origin}/demo/oidc/jwks`)).status).toBe(200);
  });
});
