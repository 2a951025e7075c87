// `pnpm typecheck`, and the type checks of `npm test`: every workspace that has a `typecheck`
// script, checked one after another in this one process by TypeScript 7's native compiler with
// the workspace's tsconfig.json (what that script runs). One turbo task instead of one per
// workspace: each of those started pnpm, about 0.8 s of CPU, to run a check of 1–4 s.
// Needs the packages built (`turbo run typecheck:all` builds them first).
//
//   node scripts/typecheck-all.mjs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './lib/bootstrap.mjs';
import { runNativeTsc } from './lib/native-tsc.mjs';
import { workspaces } from './lib/test-report.mjs';

const failed = [];
for (const dir of workspaces()) {
  const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  if (!pkg.scripts?.typecheck) continue;
  const started = performance.now();
  const code = runNativeTsc(['-p', 'tsconfig.json'], { cwd: join(root, dir) });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${pkg.name} (${dir}, ${seconds} s)`);
  if (code !== 0) failed.push(pkg.name);
}
if (failed.length > 0) {
  console.error(`Type errors in ${failed.join(', ')}: see above. One workspace alone: pnpm --filter <name> typecheck`);
  process.exit(1);
}
