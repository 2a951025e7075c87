import { createPublicKey, verify as cv } from 'node:crypto';
import { SignJWT } from 'jose';
import { nodePrimitives } from '@oidc-rp/node/api';
import { signingKey, splitJws } from './lib/verify-rounds.mjs';
const alg = process.argv[2] ?? 'RS256';
const { privateKey, jwk } = await signingKey(alg);
const now = Math.floor(Date.now() / 1000);
const token = await new SignJWT({ iss: 'https://x.example/abc', sub: 'alice', aud: 'https://api.example', client_id: 'spa', scope: 'orders:read orders:write profile', iat: now, exp: now + 3600, jti: 'a1b2c3d4e5f6' }).setProtectedHeader({ alg, kid: jwk.kid, typ: 'at+jwt' }).sign(privateKey);
const ko = createPublicKey({ key: jwk, format: 'jwk' });
const key = alg.startsWith('ES') ? { key: ko, dsaEncoding: 'ieee-p1363' } : ko;
const [input, sig] = splitJws(token);
const N = 30000;
for (let r = 0; r < 6; r++) {
  let t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) nodePrimitives.verify(token, jwk, alg);
  let c = process.cpuUsage(t0); const a = (c.user + c.system) / N;
  t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) cv('sha256', input, key, sig);
  c = process.cpuUsage(t0); const b = (c.user + c.system) / N;
  console.log(alg, 'verifyJws', a.toFixed(2), 'raw', b.toFixed(2), 'diff', (a - b).toFixed(2));
}
