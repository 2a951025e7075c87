// Runtime control on the Redis store: what is shared (signing keys) reaches every instance;
// what belongs to an instance (users, clients, faults, clock, journal) stays on the one changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, type ReferenceServer } from '../src/index';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';
import { redisConfig, until } from './support/fleet';

let redis: RunningRedis;
let a: ReferenceServer;
let b: ReferenceServer;

beforeAll(async () => {
  redis = await startRedisServer();
  const config = redisConfig(redis.url, 'control-test:');
  a = await createReferenceServer(config, { logger: false });
  b = await createReferenceServer(config, { logger: false });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

const kids = async (server: ReferenceServer) =>
  ((await (await server.fetch(new Request('http://localhost/demo/oidc/jwks'))).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
const cc = (server: ReferenceServer, id: string, secret: string) =>
  server.fetch(
    new Request('http://localhost/demo/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret, scope: 'api.read' }),
    }),
  );

describe('runtime control with the Redis store', () => {
  it('rotates the shared signing key for every instance', async () => {
    const [before] = await kids(a);
    const { kid } = await a.control.keys.rotate();
    expect(kid).not.toBe(before);
    await until('B publishes the rotated key', async () => (await kids(b))[0] === kid);
    expect(await kids(b)).toEqual([kid, before]);
  });

  it('changes users and clients on the instance it is called on only', async () => {
    await a.control.clients.add({ client_id: 'batch', client_secret: 'batch-secret', grant_types: ['client_credentials'], scopes: ['api.read'] });
    expect((await cc(a, 'batch', 'batch-secret')).status).toBe(200);
    expect((await cc(b, 'batch', 'batch-secret')).status).toBe(401);
    await b.control.clients.add({ client_id: 'batch', client_secret: 'batch-secret', grant_types: ['client_credentials'], scopes: ['api.read'] });
    expect((await cc(b, 'batch', 'batch-secret')).status).toBe(200);
  });

  it('keeps faults, the clock and the journal per instance', async () => {
    await a.control.transport.set('/oidc/jwks', { status: 503 }, { times: 1 });
    expect((await b.fetch(new Request('http://localhost/demo/oidc/jwks'))).status).toBe(200);
    expect((await a.fetch(new Request('http://localhost/demo/oidc/jwks'))).status).toBe(503);
    await a.control.clock.advance(60);
    expect((await b.control.clock.get()).offsetSeconds).toBe(0);
    expect(a.requests({ path: '/oidc/jwks', status: 503 })).toHaveLength(1);
    expect(b.requests({ path: '/oidc/jwks', status: 503 })).toHaveLength(0);
  });
});
