// `pnpm release`, after `pnpm changeset version` and a commit: build, check, then
// `changeset publish`, in that order, stopping at the first failure, so an unbuilt or failing
// tree is never published.
//
//   pnpm release              refuses a dirty git tree; publishes the versions `changeset version` set
//   pnpm release --dry-run    the same steps; ends with `pnpm publish -r --dry-run` instead
//
// Each package's `prepack` builds it again, so even a publish run by hand ships a fresh dist.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './release-check.mjs';

/** The steps of a release, in order. The publish step is always last. */
export function releasePlan({ dryRun }) {
  return [
    ...(dryRun ? [] : [{ name: 'clean git tree', command: 'git', args: ['status', '--porcelain'], expectEmptyOutput: true }]),
    { name: 'build', command: 'pnpm', args: ['build'] },
    { name: 'tests, type-checks and lint (includes the release check in tests/release)', command: 'pnpm', args: ['test'] },
    { name: 'API reports current, API reference without warnings', command: 'pnpm', args: ['docs:api', '--check'] },
    dryRun
      ? { name: 'publish (dry run)', command: 'pnpm', args: ['publish', '-r', '--dry-run', '--no-git-checks'] }
      : { name: 'publish', command: 'pnpm', args: ['exec', 'changeset', 'publish'] },
  ];
}

/** Runs a command with inherited stdio; resolves with its exit code and captured stdout. */
export function runCommand(command, args, { capture = false } = {}) {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.once('error', fail);
    child.once('exit', (code) => done({ code: code ?? 1, stdout }));
  });
}

/** Changeset files not yet consumed by `changeset version`. */
export function pendingChangesets() {
  return readdirSync(join(ROOT, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
}

/**
 * Runs the plan; throws naming the first step that failed, before any later step (and so
 * before publishing) runs.
 */
export async function release({ dryRun = false, run = runCommand, log = console.log, pending = pendingChangesets } = {}) {
  const unversioned = pending();
  if (unversioned.length && !dryRun) {
    throw new Error(
      `release stopped: ${unversioned.length} changeset(s) not applied (${unversioned.join(', ')}); run \`pnpm changeset version\`, ` +
        'review and commit the new versions and changelogs, then release. Nothing was published.',
    );
  }
  for (const step of releasePlan({ dryRun })) {
    log(`release: ${step.name}`);
    const { code, stdout } = await run(step.command, step.args, { capture: Boolean(step.expectEmptyOutput) });
    if (code !== 0) throw new Error(`release stopped: "${step.name}" failed (exit ${code}); nothing was published.`);
    if (step.expectEmptyOutput && stdout.trim() !== '') {
      throw new Error(`release stopped: "${step.name}" found uncommitted changes; commit or stash them first. Nothing was published.`);
    }
  }
  log(dryRun ? 'release: dry run complete, nothing published' : 'release: published');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  release({ dryRun: process.argv.includes('--dry-run') }).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
