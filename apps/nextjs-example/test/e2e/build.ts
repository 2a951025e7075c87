// Global setup: builds the example once per run, so every test file starts the same build.
import { nextBuild } from './next-build';

export default async function setup(): Promise<void> {
  const output = await nextBuild('.');
  // A user should see no warning from a clean build of the example.
  if (/warn|⚠/i.test(output)) throw new Error(`next build printed a warning:\n${output}`);
}
