// The release check as CI runs it: the packages as npm would ship them (packed from dist),
// linted, installed into a scratch project outside the workspace, type-checked under three
// module resolutions and run from ESM and CJS against the packed reference server.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PACKAGES,
  ROOT,
  attwTarball,
  bareBuiltinImports,
  createConsumer,
  inspectPackage,
  inspectSource,
  packAll,
  publintTarball,
  readmeProblems,
  runProgram,
  startPackedCli,
  TYPECHECKS,
  typecheckConsumer,
} from '../../../scripts/release-check.mjs';
import { release, releasePlan } from '../../../scripts/release.mjs';
import { apiReport, REPORTS, staleReports } from '../../../scripts/api-docs.mjs';

const exec = promisify(execFile);

interface Packed {
  name: string;
  dir: string;
  tarball: string;
  unpacked: string;
}

let work: string;
let packed: Packed[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'oidc-rp-release-test-'));
  packed = await packAll(join(work, 'packs'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the tarballs', () => {
  it('one per publishable package, each with its dist, README, LICENSE and complete metadata', () => {
    expect(packed.map((p) => p.dir)).toEqual(PACKAGES);
    for (const p of packed) {
      expect({ name: p.name, problems: [...inspectSource(p.dir), ...inspectPackage(p.unpacked)] }).toEqual({ name: p.name, problems: [] });
    }
  });

  it('publint --strict finds nothing', async () => {
    const results = await Promise.all(packed.map(async (p) => ({ name: p.name, messages: await publintTarball(p.tarball) })));
    expect(results).toEqual(packed.map((p) => ({ name: p.name, messages: [] })));
  });

  it('arethetypeswrong: every entry point resolves under node10, node16 (CJS and ESM) and bundler', async () => {
    const results = await Promise.all(packed.map(async (p) => ({ name: p.name, ...(await attwTarball(p.tarball)) })));
    for (const { name, problems, resolutions } of results) {
      expect({ name, problems }).toEqual({ name, problems: [] });
      expect(resolutions.filter((r) => !r.ok)).toEqual([]);
    }
    const subpaths = results.flatMap((r) => r.resolutions.filter((x) => x.mode === 'node10').map((x) => `${r.name}/${x.entry}`));
    expect(subpaths).toEqual(expect.arrayContaining(['@oidc-rp/node/./redis', '@oidc-rp/reference-server/./testing']));
  });
});

describe('an unbuilt clone', () => {
  // The reported defect: `npm pack` in a clone without dist/ shipped README and package.json only.
  it('npm pack builds first (prepack), so the tarball has dist/ with the client directive', async () => {
    const repo = join(work, 'clone');
    const pkgDir = join(repo, 'packages/react');
    mkdirSync(pkgDir, { recursive: true });
    for (const file of ['tsup.shared.ts', 'tsconfig.base.json', 'scripts/lib']) cpSync(join(ROOT, file), join(repo, file), { recursive: true });
    for (const file of ['src', 'package.json', 'tsup.config.ts', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE']) {
      cpSync(join(ROOT, 'packages/react', file), join(pkgDir, file), { recursive: true });
    }
    // Installed dependencies as in a clone after `pnpm install`: the tools at the root, the
    // package's own (with @oidc-rp/browser built) beside it.
    symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'));
    symlinkSync(join(ROOT, 'packages/react/node_modules'), join(pkgDir, 'node_modules'));

    await exec('npm', ['pack', '--pack-destination', work], { cwd: pkgDir, maxBuffer: 16 * 1024 * 1024 });
    const { stdout } = await exec('tar', ['tzf', join(work, 'oidc-rp-react-0.0.0.tgz')]);
    expect(stdout.split('\n')).toEqual(expect.arrayContaining(['package/dist/index.mjs', 'package/dist/index.cjs', 'package/dist/index.d.ts', 'package/LICENSE']));
    expect(readFileSync(join(pkgDir, 'dist/index.mjs'), 'utf8')).toMatch(/^'use client';/);
  });
});

describe('the checks catch a broken package', () => {
  it('an unbuilt package (no dist) is reported, file by file', () => {
    const core = packed.find((p) => p.name === '@oidc-rp/core') as Packed;
    const copy = join(work, 'unbuilt-core');
    cpSync(core.unpacked, copy, { recursive: true });
    rmSync(join(copy, 'dist'), { recursive: true });
    expect(inspectPackage(copy)).toEqual(
      expect.arrayContaining([
        'dist/index.mjs (named in package.json) is not in the package: was it built?',
        'dist/index.d.cts (named in package.json) is not in the package: was it built?',
      ]),
    );
  });

  it('a bare Node built-in import, a missing LICENSE and a React build without its directive are reported', () => {
    const react = packed.find((p) => p.name === '@oidc-rp/react') as Packed;
    const copy = join(work, 'broken-react');
    cpSync(react.unpacked, copy, { recursive: true });
    rmSync(join(copy, 'LICENSE'));
    const file = join(copy, 'dist/index.mjs');
    writeFileSync(file, `import { randomUUID } from 'crypto';\n${readFileSync(file, 'utf8').replace("'use client';\n", '')}`);
    expect(inspectPackage(copy)).toEqual(
      expect.arrayContaining([
        'LICENSE is not in the package',
        'dist/index.mjs imports "crypto" without the node: prefix',
        "dist/index.mjs does not start with 'use client'",
      ]),
    );
  });

  it('README links relative to the repository and monorepo commands in the quick start are reported', () => {
    const readme = [
      '# x',
      'See [core](../core) and [the guide](https://example.com/guide) or [below](#api).',
      '## Quick start',
      '```sh',
      'pnpm demo',
      '```',
      '## API',
      'In the repository, `pnpm --filter x test` runs the tests.',
    ].join('\n');
    expect(readmeProblems(readme)).toEqual([
      'README links to "../core", which does not resolve on the registry',
      `the README's quick start uses "pnpm demo", which only exists in the repository`,
    ]);
  });

  it('finds bare built-ins in import, export, dynamic import and require forms, and only those', () => {
    const source = [
      "import { createHash } from 'crypto';",
      'export * from "fs/promises";',
      "const p = await import('path');",
      "const u = require('util');",
      "import 'node:net';",
      "import { x } from 'jose';",
      "const s = 'the crypto module';",
    ].join('\n');
    expect(bareBuiltinImports(source)).toEqual(['crypto', 'fs/promises', 'path', 'util']);
  });
});

describe('a scratch consumer installing the tarballs with npm', () => {
  let consumer: string;
  beforeAll(async () => {
    consumer = await createConsumer(packed, join(work, 'consumer'));
  });

  // node16, bundler and node10 with the workspace's TypeScript (5.9), bundler with the minimum
  // (5.0). The consumer's @ts-expect-error lines make this fail if a module resolved to `any`.
  // Each a program of that compiler in this process with skipLibCheck off, its type errors asked
  // of the consumer and our packed declarations (typecheckConsumer says why not of @types/*):
  // about 3 s of CPU each, where `tsc -p` as a process took 7-10 s.
  it.each(TYPECHECKS as [string, string][])('type-checks under %s resolution with the %s TypeScript', async (resolution, typescript) => {
    expect(await typecheckConsumer(consumer, resolution, typescript)).toEqual({ ok: true, output: '' });
  });

  it('ESM: discovery, client credentials and a code-flow login with a validated ID token; instanceof across copies', async () => {
    const out = await runProgram(consumer, 'esm.mjs');
    expect(JSON.parse(out)).toEqual({ format: 'esm', sub: 'alice', clientCredentials: true });
  });

  it('CJS against the packed CLI on port 0: the same journey; instanceof across copies; react keeps its directive', async () => {
    const cli = await startPackedCli(consumer);
    try {
      const out = await runProgram(consumer, 'cjs.cjs', { ISSUER: `${cli.origin}/demo` });
      expect(JSON.parse(out)).toEqual({ format: 'cjs', sub: 'alice', clientCredentials: true });
    } finally {
      await cli.stop();
    }
  });
});

describe('pnpm release', () => {
  type Step = { command: string; args: string[] };
  const fakeRun = (fail: (step: Step) => boolean, calls: Step[], stdout = '') => async (command: string, args: string[]) => {
    calls.push({ command, args });
    return { code: fail({ command, args }) ? 1 : 0, stdout };
  };
  const isPublish = (s: Step) => s.args.includes('publish');

  it('builds, then runs the checks, then publishes, in that order', () => {
    const names = releasePlan({ dryRun: false }).map((s: Step) => `${s.command} ${s.args.join(' ')}`);
    expect(names).toEqual(['git status --porcelain', 'pnpm build', 'pnpm test', 'pnpm docs:api --check', 'pnpm exec changeset publish']);
  });

  it('the dry run runs every step but publishes nothing', async () => {
    const calls: Step[] = [];
    await release({ dryRun: true, run: fakeRun(() => false, calls), log: () => {}, pending: () => ['pending.md'] });
    expect(calls.map((c) => `${c.command} ${c.args.join(' ')}`)).toEqual([
      'pnpm build',
      'pnpm test',
      'pnpm docs:api --check',
      'pnpm publish -r --dry-run --no-git-checks',
    ]);
  });

  it.each(['build', 'test', 'docs:api'])('refuses to publish when "%s" fails', async (failing) => {
    const calls: Step[] = [];
    await expect(release({ run: fakeRun((s) => s.args[0] === failing, calls), log: () => {}, pending: () => [] })).rejects.toThrow(
      /nothing was published/i,
    );
    expect(calls.some(isPublish)).toBe(false);
  });

  it('refuses to publish from a tree with uncommitted changes', async () => {
    const calls: Step[] = [];
    await expect(
      release({ run: fakeRun(() => false, calls, ' M packages/core/src/errors.ts\n'), log: () => {}, pending: () => [] }),
    ).rejects.toThrow(/uncommitted changes/);
    expect(calls).toHaveLength(1);
  });

  it('refuses to publish while changesets are not applied (the versions were not bumped)', async () => {
    const calls: Step[] = [];
    await expect(release({ run: fakeRun(() => false, calls), log: () => {}, pending: () => ['new-feature.md'] })).rejects.toThrow(
      /changeset version/,
    );
    expect(calls).toEqual([]);
  });

  it('publishes when every step passes on a versioned, clean tree', async () => {
    const calls: Step[] = [];
    await release({ run: fakeRun(() => false, calls), log: () => {}, pending: () => [] });
    expect(calls.at(-1)).toEqual({ command: 'pnpm', args: ['exec', 'changeset', 'publish'] });
  });
});

describe('the API reports', () => {
  it('api/*.api.md match the built declarations of every package', () => {
    expect(Object.keys(REPORTS)).toEqual(PACKAGES);
    expect(staleReports()).toEqual([]);
  });

  it('a change to the public surface changes the report (so the check fails until it is committed)', () => {
    const node = packed.find((p) => p.name === '@oidc-rp/node') as Packed;
    const committed = readFileSync(join(ROOT, REPORTS['packages/node']), 'utf8');
    expect(apiReport(node.unpacked)).toBe(committed);

    const copy = join(work, 'changed-node');
    cpSync(node.unpacked, copy, { recursive: true });
    const file = join(copy, 'dist/index.d.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace('interface ClientCredentialsOptions {', 'interface ClientCredentialsOptions {\n    releaseCheckProbe?: string;'));
    const changed = apiReport(copy);
    expect(changed).not.toBe(committed);
    expect(changed).toContain('releaseCheckProbe?: string;');
  });

  it('comments and chunk file hashes do not change the report', () => {
    const node = packed.find((p) => p.name === '@oidc-rp/node') as Packed;
    const copy = join(work, 'recommented-node');
    cpSync(node.unpacked, copy, { recursive: true });
    // The shared declaration chunk, whatever the bundler named it (`<name>.d-<hash>.d.ts`).
    const chunk = readdirSync(join(copy, 'dist')).find((f) => /^[a-z-]+(\.d)?-[\w-]{8}\.d\.ts$/.test(f)) as string;
    expect(chunk).toBeDefined();
    const renamed = `${chunk.replace(/-[\w-]{8}\.d\.ts$/, '')}-AbCd1234`;
    renameSync(join(copy, 'dist', chunk), join(copy, 'dist', `${renamed}.d.ts`));
    for (const entry of ['index.d.ts', 'redis.d.ts']) {
      const file = join(copy, 'dist', entry);
      const text = readFileSync(file, 'utf8').split(chunk.replace('.d.ts', '')).join(renamed);
      writeFileSync(file, text.replace('interface ClientCredentialsOptions {', '/** Reworded. */\ninterface ClientCredentialsOptions {'));
    }
    expect(apiReport(copy)).toBe(apiReport(node.unpacked));
  });
});
