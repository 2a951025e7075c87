#!/usr/bin/env node
/**
 * The command line: `node dist/cli.js [--config FILE] [--port N] [--host H] [--dev-keys]
 * [--control] [--public-origin URL] [--trust-proxy]`. Prints exactly one line, `listening on
 * http://127.0.0.1:PORT`, and shuts down cleanly on SIGTERM / SIGINT. Port: `--port`, else
 * `PORT`, else 4000; 0 picks a free port. `--control` turns on the HTTP control API (test use
 * only): loopback only, or anywhere with the bearer secret in `OIDC_RP_CONTROL_SECRET`.
 * `OIDC_RP_PUBLIC_ORIGIN`, `OIDC_RP_TRUST_PROXY=1` and `OIDC_RP_KEY_ENCRYPTION_SECRET` set the
 * same as the flags and the config's `store.key_encryption_secret`. Secrets come from the
 * environment only: command lines are visible to every user of the machine.
 */
import { parseArgs } from 'node:util';
import { demoConfig } from './config/demo';
import { loadConfigFile } from './config/load';
import { ConfigError, knownShape, randomSecret } from './config/schema';
import { createProcessServer, type Listening, type ReferenceServer } from './server';

const USAGE =
  'usage: oidc-rp-reference-server [--config FILE] [--port N] [--host 127.0.0.1] [--dev-keys] [--control] [--public-origin https://login.example.com] [--trust-proxy]';
/** The control API's bearer secret, read from the environment only. */
const SECRET_ENV = 'OIDC_RP_CONTROL_SECRET';
const MIN_SECRET_LENGTH = 16;

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function parsePort(value: string, source: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) fail(`${source} must be a port number between 0 and 65535\n${USAGE}`, 2);
  return Number(value);
}

async function main(): Promise<void> {
  let values: {
    config?: string | undefined;
    port?: string | undefined;
    host?: string | undefined;
    control?: boolean | undefined;
    'dev-keys'?: boolean | undefined;
    'public-origin'?: string | undefined;
    'trust-proxy'?: boolean | undefined;
    help?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        control: { type: 'boolean' },
        'dev-keys': { type: 'boolean' },
        'public-origin': { type: 'string' },
        'trust-proxy': { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`, 2);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = values.port !== undefined ? parsePort(values.port, '--port') : process.env.PORT ? parsePort(process.env.PORT, 'PORT') : 4000;
  const secret = process.env[SECRET_ENV] || undefined;
  if (secret !== undefined && !values.control) fail(`${SECRET_ENV} is set but the control API is off: add --control\n${USAGE}`, 2);
  if (secret !== undefined) {
    try {
      randomSecret(secret, SECRET_ENV, MIN_SECRET_LENGTH);
    } catch (error) {
      if (error instanceof ConfigError) fail(error.message, 2);
      throw error;
    }
  }
  let server: ReferenceServer;
  try {
    const config = values.config !== undefined ? await loadConfigFile(values.config) : knownShape(demoConfig());
    const publicOrigin = values['public-origin'] ?? process.env.OIDC_RP_PUBLIC_ORIGIN;
    const trustProxy = values['trust-proxy'] ?? (process.env.OIDC_RP_TRUST_PROXY === undefined ? undefined : process.env.OIDC_RP_TRUST_PROXY === '1' || process.env.OIDC_RP_TRUST_PROXY === 'true');
    const keySecret = process.env.OIDC_RP_KEY_ENCRYPTION_SECRET;
    const print = (m: string) => process.stderr.write(`${m}\n`);
    server = await createProcessServer(config, {
      logger: { info: () => undefined, warn: print, error: print },
      ...(publicOrigin ? { publicOrigin } : {}),
      ...(trustProxy !== undefined ? { trustProxy } : {}),
      ...(keySecret ? { keyEncryptionSecret: keySecret } : {}),
      // Without the control API nothing can read the request journal, so none is kept (it costs throughput).
      ...(values.control ? { controlApi: secret === undefined ? true : { secret } } : { journalSize: 0 }),
      // Fixed keys published in the package: ready to sign at once; never for production.
      developmentKeys: values['dev-keys'] === true,
    });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 1);
    throw error;
  }
  let listening: Listening;
  try {
    listening = await server.listen({ port, host: values.host ?? '127.0.0.1' });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 1);
    fail(`cannot listen on port ${port}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 1);
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void listening.close().then(() => process.exit(0));
  };
  // Handlers first: whoever reads the line below may signal at once.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`listening on ${listening.origin}\n`);
}

main().catch((error: unknown) => fail(`reference server failed to start: ${(error as Error).message}`, 1));
