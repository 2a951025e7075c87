#!/usr/bin/env node
/**
 * The command line: `node dist/cli.js [--config FILE] [--port N] [--host H] [--dev-keys]`. Prints exactly one
 * line, `listening on http://127.0.0.1:PORT`, and shuts down cleanly on SIGTERM / SIGINT.
 * Port: `--port`, else `PORT`, else 4000; 0 picks a free port. `--control` turns on the HTTP
 * control API (test use only): loopback only, or anywhere with the bearer secret in
 * `OIDC_RP_CONTROL_SECRET` (an environment variable, so it stays out of process listings).
 */
import { parseArgs } from 'node:util';
import { demoConfig } from './config/demo';
import { loadConfigFile } from './config/load';
import { ConfigError } from './config/schema';
import { createProcessServer, type Listening, type ReferenceServer } from './server';

const USAGE = 'usage: oidc-rp-reference-server [--config FILE] [--port N] [--host 127.0.0.1] [--control] [--dev-keys]';
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
    help?: boolean | undefined;
    'dev-keys'?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        control: { type: 'boolean' },
        help: { type: 'boolean' },
        'dev-keys': { type: 'boolean' },
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
  if (secret !== undefined && secret.length < MIN_SECRET_LENGTH) fail(`${SECRET_ENV} must be at least ${MIN_SECRET_LENGTH} characters`, 2);
  let server: ReferenceServer;
  try {
    const config = values.config !== undefined ? await loadConfigFile(values.config) : demoConfig();
    server = await createProcessServer(config, {
      logger: { info: () => undefined, error: (m) => process.stderr.write(`${m}\n`) },
      ...(values.control ? { controlApi: secret === undefined ? true : { secret } } : {}),
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
