import { SignJWT } from 'jose';
import { signingKey } from './lib/verify-rounds.mjs';
const alg = process.argv[2] ?? 'RS256';
const { privateKey, jwk } = await signingKey(alg);
const now = Math.floor(Date.now() / 1000);
const t = await new SignJWT({ iss: 'https://x.example/abc', sub: 'alice', aud: 'https://api.example', client_id: 'spa', scope: 'orders:read orders:write profile', iat: now, exp: now + 3600, jti: 'a1b2c3d4e5f6' }).setProtectedHeader({ alg, kid: jwk.kid, typ: 'at+jwt' }).sign(privateKey);
const token = `Bearer ${t}`.slice(7);
const RE = /^[\w-]*\.[\w-]*\.[\w-]*$/;
const RE2 = /[^\w.-]/;
const RE3 = /^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;
const REy = /[\w-]*\.[\w-]*$/y;
const dot1 = token.indexOf('.');
const TABLE = new Uint8Array(65536); for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') TABLE[c.charCodeAt(0)] = 1;
function tableCheck(s) { const n = s.length; for (let i = 0; i < n; i++) if (TABLE[s.charCodeAt(i)] === 0 && s.charCodeAt(i) !== 46) return false; return true; }
let sink = 0;
const tests = {
  regex: () => { sink += RE.test(token) ? 1 : 0; },
  regexNeg: () => { sink += RE2.test(token) ? 1 : 0; },
  regexRanges: () => { sink += RE3.test(token) ? 1 : 0; },
  sticky: () => { REy.lastIndex = dot1 + 1; sink += REy.test(token) ? 1 : 0; },
  includes2: () => { sink += token.includes('+') || token.includes('/') ? 1 : 0; },
  table: () => { sink += tableCheck(token) ? 1 : 0; },
};
const N = 300000;
for (let r = 0; r < 3; r++) for (const [name, fn] of Object.entries(tests)) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn();
  if (r === 2) console.log(name.padEnd(18), (Number(process.hrtime.bigint() - t0) / N).toFixed(1), 'ns', token.length);
}
