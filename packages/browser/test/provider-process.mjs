// The reference server in its own Node process, as a real provider would be: tests in the DOM
// environment reach it over HTTP on 127.0.0.1. Driven over IPC: sign a user in through the real
// login form, move the server's clock, read which endpoints were called.
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';

const settings = JSON.parse(process.argv[2] ?? '{}');
const config = demoConfig();
const tenant = config.tenants[0];
if (settings.accessTokenLifetime) tenant.lifetimes = { ...tenant.lifetimes, access_token: settings.accessTokenLifetime };

let offsetMs = 0;
const paths = [];
const server = await createReferenceServer(config, {
  logger: false,
  now: () => Date.now() + offsetMs,
  onRequest: ({ method, path }) => paths.push(`${method} ${path}`),
});
const { origin } = await server.listen({ port: 0, host: '127.0.0.1' });

const handlers = {
  login: async ({ url, consent }) => completeLogin(url, { consent: consent ?? 'allow' }),
  advance: async ({ ms }) => {
    offsetMs += ms;
  },
  resetClock: async () => {
    offsetMs = 0;
  },
  paths: async () => paths,
};

process.on('message', async ({ id, type, ...args }) => {
  try {
    process.send({ id, ok: true, value: await handlers[type](args) });
  } catch (error) {
    process.send({ id, ok: false, message: String(error?.message ?? error) });
  }
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
process.send({ ready: true, origin });
