/**
 * The CLI's V8 code cache (src/launch/code-cache.ts): a second run uses the first run's cache, a
 * changed bundle or a damaged cache is compiled from source, and a cache directory or file that
 * someone else could have written is never read. Each run is a child process, as a CLI start is.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from 'tsup';

const work = mkdtempSync(join(tmpdir(), 'code-cache-test-'));
const runner = join(work, 'runner.mjs');

afterAll(() => rmSync(work, { recursive: true, force: true }));

async function buildRunner(): Promise<void> {
  // A script that runs a bundle through runWithCodeCache and prints the outcome after the bundle's output.
  const entry = join(work, 'runner-entry.ts');
  writeFileSync(
    entry,
    `import { runWithCodeCache } from ${JSON.stringify(resolve(__dirname, '../src/launch/code-cache.ts'))};\n` +
      'const outcome = runWithCodeCache(process.argv[2], { directory: process.argv[3] });\n' +
      "process.stdout.write('outcome:' + outcome + '\\n');\n",
  );
  await build({ entry: { runner: entry }, format: ['esm'], outExtension: () => ({ js: '.mjs' }), platform: 'node', outDir: work, config: false, silent: true, clean: false });
}

const ready = buildRunner();

function bundle(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, `#!/usr/bin/env node\n"use strict";\n${text}\n`);
  return path;
}

function run(bundlePath: string, directory: string): string[] {
  return execFileSync(process.execPath, [runner, bundlePath, directory], { encoding: 'utf8' }).trim().split('\n');
}

const cacheFiles = (directory: string) => readdirSync(directory).filter((f) => f.endsWith('.v8cache'));

describe('the CLI code cache', () => {
  it('runs the bundle as CommonJS, and the next start uses the cache the first one wrote', async () => {
    await ready;
    const directory = join(work, 'cache-a');
    const path = bundle('a.cjs', "const { join } = require('node:path'); process.stdout.write([typeof module.exports, join('x', 'y'), __filename.endsWith('a.cjs')].join(':') + '\\n');");
    expect(run(path, directory)).toEqual(['object:x/y:true', 'outcome:absent']);
    expect(cacheFiles(directory)).toHaveLength(1);
    expect(run(path, directory)).toEqual(['object:x/y:true', 'outcome:used']);
  });

  it('a changed bundle gets a cache of its own instead of the old one', async () => {
    await ready;
    const directory = join(work, 'cache-b');
    const path = bundle('b.cjs', "process.stdout.write('one\\n');");
    run(path, directory);
    bundle('b.cjs', "process.stdout.write('two\\n');");
    expect(run(path, directory)).toEqual(['two', 'outcome:absent']);
    expect(cacheFiles(directory)).toHaveLength(2);
  });

  it('a damaged cache is rejected by V8: the bundle compiles from source and the cache is rewritten', async () => {
    await ready;
    const directory = join(work, 'cache-c');
    const path = bundle('c.cjs', "process.stdout.write('ran\\n');");
    run(path, directory);
    const [file] = cacheFiles(directory);
    writeFileSync(join(directory, file as string), Buffer.alloc(4096, 7), { mode: 0o600 });
    expect(run(path, directory)).toEqual(['ran', 'outcome:rejected']);
    expect(run(path, directory)).toEqual(['ran', 'outcome:used']);
  });

  it('an unusable cache directory only turns the cache off', async () => {
    await ready;
    const path = bundle('d.cjs', "process.stdout.write('ran\\n');");
    const notADirectory = join(work, 'plain-file');
    writeFileSync(notADirectory, 'x');
    expect(run(path, join(notADirectory, 'cache'))).toEqual(['ran', 'outcome:disabled']);
  });

  it('never reads a cache from a directory others can write, or through a symbolic link', async () => {
    await ready;
    const path = bundle('e.cjs', "process.stdout.write('ran\\n');");
    const shared = join(work, 'shared');
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o777);
    expect(run(path, shared)).toEqual(['ran', 'outcome:disabled']);
    expect(cacheFiles(shared)).toHaveLength(0);

    // A cache planted as a link to a file elsewhere is not followed.
    const own = join(work, 'cache-e');
    run(path, own);
    const [file] = cacheFiles(own);
    const planted = join(work, 'planted.v8cache');
    writeFileSync(planted, Buffer.alloc(16));
    rmSync(join(own, file as string));
    symlinkSync(planted, join(own, file as string));
    expect(run(path, own)).toEqual(['ran', 'outcome:absent']);
  });

  it('a cache file others can write is not read', async () => {
    await ready;
    const path = bundle('f.cjs', "process.stdout.write('ran\\n');");
    const directory = join(work, 'cache-f');
    run(path, directory);
    const [file] = cacheFiles(directory);
    chmodSync(join(directory, file as string), 0o666);
    expect(run(path, directory)).toEqual(['ran', 'outcome:absent']);
  });
});
