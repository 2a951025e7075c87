// The reference server in its own Node process, reached over HTTP on 127.0.0.1 from the
// DOM test environment (whose fetch drops Set-Cookie, so logins are driven from here).
// Driven over IPC: start with a config, sign a user in through the real forms, count requests.
import { createReferenceServer } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';

const requests = [];
let server;

const handlers = {
  start: async ({ config }) => {
    server = await createReferenceServer(config, { logger: false, onRequest: ({ method, path }) => requests.push(`${method} ${path}`) });
    return (await server.listen({ port: 0, host: '127.0.0.1' })).origin;
  },
  login: async ({ url }) => {
    const result = await completeLogin(url);
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    return result.location;
  },
  count: async ({ request }) => requests.filter((entry) => entry === request).length,
};

process.on('message', async ({ id, type, ...args }) => {
  try {
    process.send({ id, ok: true, value: await handlers[type](args) });
  } catch (error) {
    process.send({ id, ok: false, message: String(error?.message ?? error) });
  }
});
process.on('disconnect', () => void (server ? server.close() : Promise.resolve()).then(() => process.exit(0)));
process.send({ ready: true });
