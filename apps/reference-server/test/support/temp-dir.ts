// A temporary directory for one test, removed when that test finishes (pass or fail): the CLI
// and config tests write config files, and left in /tmp they piled up by the hundred.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * Creates `<tmpdir>/<prefix>XXXXXX` and removes it after the calling test.
 *
 * @example
 * const dir = await testTempDir('rs-cli-');
 */
export async function testTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
