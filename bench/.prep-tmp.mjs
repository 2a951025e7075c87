import { SignJWT } from 'jose';
import { signingKey } from './lib/verify-rounds.mjs';
const alg = process.argv[2] ?? 'RS256';
const { privateKey, jwk } = await signingKey(alg);
const now = Math.floor(Date.now() / 1000);
const t = await new SignJWT({ iss: 'https://x.example/abc', sub: 'alice', aud: 'https://api.example', client_id: 'spa', scope: 'orders:read orders:write profile', iat: now, exp: now + 3600, jti: 'a1b2c3d4e5f6' }).setProtectedHeader({ alg, kid: jwk.kid, typ: 'at+jwt' }).sign(privateKey);
const auth = `Bearer ${t}`;
const token = auth.slice(7);
const scratchInput = Buffer.allocUnsafe(8192);
const scratchSig = Buffer.allocUnsafe(1024);
const RE = /^[\w-]*\.[\w-]*\.[\w-]*$/;
const TABLE = new Uint8Array(128); for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') TABLE[c.charCodeAt(0)] = 1;
let sink = 0;
const dot = token.lastIndexOf('.');
const dot1 = token.indexOf('.');
const seg = token.slice(0, dot1);
let lastView, lastLen = -1;
const tests = {
  prep: () => { const d = token.lastIndexOf('.'); const input = scratchInput.subarray(0, scratchInput.write(token, 0, d, 'latin1')); const s = scratchSig.subarray(0, scratchSig.write(token.slice(d + 1), 'base64url')); sink += input.length + s.length; },
  writeLatin1: () => { sink += scratchInput.write(token, 0, dot, 'latin1'); },
  latin1WriteDirect: () => { sink += scratchInput.latin1Write(token, 0, dot); },
  subarray: () => { sink += scratchInput.subarray(0, dot).length; },
  viewMemo: () => { if (dot !== lastLen) { lastLen = dot; lastView = scratchInput.subarray(0, dot); } sink += lastView.length; },
  sigWrite: () => { sink += scratchSig.write(token.slice(dot + 1), 'base64url'); },
  sigWriteDirect: () => { sink += scratchSig.base64urlWrite(token.slice(dot + 1), 0, 1024); },
  regex: () => { sink += RE.test(token) ? 1 : 0; },
  table: () => { let ok = 1, dots = 0; for (let i = 0; i < token.length; i++) { const c = token.charCodeAt(i); if (c === 46) dots++; else if (c > 127 || TABLE[c] === 0) { ok = 0; break; } } sink += ok + dots; },
  startsWith: () => { sink += token.startsWith(seg) ? 1 : 0; },
  sliceEq: () => { sink += token.slice(0, dot1) === seg ? 1 : 0; },
  split: () => { sink += 'orders:read orders:write profile'.split(' ').length; },
  parse: () => { sink += JSON.parse(Buffer.from(token.slice(dot1 + 1, dot), 'base64url').toString()).exp; },
};
const N = 300000;
for (let r = 0; r < 3; r++) for (const [name, fn] of Object.entries(tests)) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn();
  if (r === 2) console.log(name.padEnd(18), (Number(process.hrtime.bigint() - t0) / N).toFixed(1), 'ns');
}
