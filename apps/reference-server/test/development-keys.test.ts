import { calculateJwkThumbprint, compactVerify, importJWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { SigningAlg } from '../src/config/model';
import { developmentSigningKey } from '../src/keys/development-keys';

const ALGS: SigningAlg[] = ['RS256', 'ES256'];

describe('fixed development keys', () => {
  it.each(ALGS)('%s: the written-out kid is the RFC 7638 thumbprint of the published key', async (alg) => {
    const key = await developmentSigningKey(alg);
    const { kid, alg: _alg, use: _use, ...members } = key.publicJwk;
    expect(kid).toBe(key.kid);
    expect(key.kid).toBe(await calculateJwkThumbprint(members));
  });

  it.each(ALGS)('%s: publishes no private member, and its private half verifies against it', async (alg) => {
    const key = await developmentSigningKey(alg);
    expect(Object.keys(key.publicJwk).filter((m) => ['d', 'p', 'q', 'dp', 'dq', 'qi'].includes(m))).toEqual([]);
    const jwt = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg, kid: key.kid }).sign(await key.privateKey());
    const { payload } = await compactVerify(jwt, await importJWK(key.publicJwk, alg));
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ sub: 'alice' });
  });

  it('imports the private half once per process', async () => {
    const key = await developmentSigningKey('ES256');
    expect(await developmentSigningKey('ES256')).toBe(key);
    expect(await key.privateKey()).toBe(await key.privateKey());
  });
});
