// Global setup: the example must be built. Under `npm test`, turbo's `build` task (which this
// task depends on) has built it; run directly, vitest builds it here once, the same way.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appRoot } from './next-build';

export default function setup(): void {
  if (existsSync(`${appRoot}.next/BUILD_ID`) && existsSync(`${appRoot}.next/build-output.txt`)) return;
  execFileSync(process.execPath, [`${appRoot}build.mjs`], { cwd: appRoot, stdio: 'inherit' });
}
