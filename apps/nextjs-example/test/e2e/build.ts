// Global setup: the example must be built. Under `npm test`, turbo's `build` task (which this
// task depends on) has built it; run directly, vitest builds it here once.
import { existsSync } from 'node:fs';
import { nextBuild, warningsIn } from './next-build';

export default async function setup(): Promise<void> {
  if (existsSync('.next/BUILD_ID')) return;
  const output = await nextBuild('.');
  // A user should see no warning from a clean build of the example.
  if (warningsIn(output).length > 0) throw new Error(`next build printed a warning:\n${output}`);
}
