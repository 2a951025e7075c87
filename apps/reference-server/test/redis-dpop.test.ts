// The DPoP replay cache on a shared Redis: a proof accepted by one instance is refused by the
// other, and a bound token issued by one is checked by the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';
import { dpopKey, type DpopKey, makeProof } from './support/dpop';
import { redisConfig, startFleet, type Fleet } from './support/fleet';
import { body, post, redeem, signIn, via } from './support/fleet-client';

let redis: RunningRedis;
let fleet: Fleet;
let key: DpopKey;
const CC = { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' };

beforeAll(async () => {
  redis = await startRedisServer();
  fleet = await startFleet(redisConfig(redis.url, 'dpop-test:'));
  key = await dpopKey();
});
afterAll(async () => {
  await fleet?.close();
  await redis?.stop();
});

function proof(path: string, extra: { htm?: string; accessToken?: string } = {}): Promise<string> {
  return makeProof(key, { htu: `${fleet.issuer}${path}`, ...extra });
}

describe('DPoP on two instances sharing Redis', () => {
  it('a proof accepted by instance A is refused as a replay by instance B (and by A)', async () => {
    const once = await proof('/oauth/token');
    const first = await post(fleet, 'a', '/oauth/token', CC, { dpop: once });
    expect(first.status).toBe(200);
    expect((await body(first)).token_type).toBe('DPoP');
    for (const pin of ['b', 'a'] as const) {
      const replay = await post(fleet, pin, '/oauth/token', CC, { dpop: once });
      expect(replay.status).toBe(400);
      expect(await body(replay)).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('used before') });
    }
    // A fresh proof by the same key is fine on B.
    expect((await post(fleet, 'b', '/oauth/token', CC, { dpop: await proof('/oauth/token') })).status).toBe(200);
  });

  it('a token bound on A is checked on B: its key passes, a Bearer use is refused', async () => {
    const code = await signIn(fleet, 'a');
    const res = await via('a')(
      new Request(`${fleet.issuer}/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await proof('/oidc/token') },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:3000/callback', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }).toString(),
      }),
    );
    const token = (await body(res)).access_token ?? '';
    const asBearer = await via('b')(new Request(`${fleet.issuer}/oidc/userinfo`, { headers: { authorization: `Bearer ${token}` } }));
    expect(asBearer.status).toBe(401);
    const dpop = await proof('/oidc/userinfo', { htm: 'GET', accessToken: token });
    const ok = await via('b')(new Request(`${fleet.issuer}/oidc/userinfo`, { headers: { authorization: `DPoP ${token}`, dpop } }));
    expect(ok.status).toBe(200);
    // The bearer flow on the fleet is unchanged.
    expect((await redeem(fleet, 'b', await signIn(fleet, 'b'))).status).toBe(200);
  });
});
