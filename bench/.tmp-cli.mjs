import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { startServer } from './lib/child-server.mjs';
const here = dirname(fileURLToPath(import.meta.url));
const cli = process.argv[2] ?? join(here, '../apps/reference-server/dist/cli.js');
function cpuMs(pid) { let ns = 0; for (const t of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); return ns / 1e6; }
const list = [{ id: 'dev', script: cli, args: ['--port', '0', '--dev-keys'], jwks: '/demo/oidc/jwks' }, { id: 'bare', script: join(here, 'servers/bare-http.mjs'), args: [], jwks: '/' }];
const cpu = { dev: [], bare: [] }, wall = { dev: [], bare: [] };
const n = Number(process.argv[3] ?? 15);
for (let rep = -1; rep < n; rep++) for (const t of rep % 2 ? list : [...list].reverse()) {
  const s = await startServer(t.script, t.args, {});
  const r = await fetch(s.origin + t.jwks); await r.arrayBuffer();
  const ms = performance.now() - s.spawnedAt; const c = cpuMs(s.pid); await s.stop();
  if (rep >= 0) { cpu[t.id].push(c); wall[t.id].push(ms); }
}
const med = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
console.log(`cpu dev ${med(cpu.dev).toFixed(1)} bare ${med(cpu.bare).toFixed(1)} ratio ${(med(cpu.dev) / med(cpu.bare)).toFixed(2)} | wall dev ${med(wall.dev).toFixed(0)} bare ${med(wall.bare).toFixed(0)} ratio ${(med(wall.dev) / med(wall.bare)).toFixed(2)} | load ${loadavg().map((x) => x.toFixed(1)).join('/')}`);
