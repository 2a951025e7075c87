// Reads what one `npm test` run left behind: each workspace's vitest JSON report and turbo's run
// summary. Prints the failed tests by name, the failed tasks, and the closing
// `Tests: N passed, N failed` line that CI logs are read by.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './bootstrap.mjs';

// `test-results.json`, and in a workspace with two test tasks the second's `test-results.NAME.json`.
const REPORT = /^test-results(\.[\w-]+)?\.json$/;

/** The vitest reports in a workspace. */
function reportsIn(dir) {
  const path = join(root, dir);
  return readdirSync(path).filter((name) => REPORT.test(name)).map((name) => join(path, name));
}

/** Every workspace directory, relative to the root: bench, packages/*, apps/*, tests/*. */
export function workspaces() {
  const dirs = ['bench'];
  for (const parent of ['packages', 'apps', 'tests']) {
    const path = join(root, parent);
    if (existsSync(path)) for (const name of readdirSync(path)) dirs.push(join(parent, name));
  }
  return dirs.filter((dir) => existsSync(join(root, dir, 'package.json')));
}

/** Deletes every workspace's report, so only this run's count. */
export function clearReports() {
  for (const dir of workspaces()) for (const report of reportsIn(dir)) rmSync(report, { force: true });
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Tasks turbo reports as failed in this run's summary (`--summarize`). */
function failedTasks() {
  const dir = join(root, '.turbo', 'runs');
  if (!existsSync(dir)) return [];
  const failed = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    for (const task of readJson(join(dir, file))?.tasks ?? []) {
      const code = task.execution?.exitCode;
      if (typeof code === 'number' && code !== 0) failed.push(task.taskId);
    }
  }
  return failed;
}

/**
 * Prints the summary; returns true when everything passed.
 * @param {{ failedSteps: string[] }} run steps of the runner that exited non-zero
 */
export function summarize({ failedSteps }) {
  let passed = 0;
  let skipped = 0;
  const failures = [];
  for (const dir of workspaces()) for (const path of reportsIn(dir)) {
    const report = readJson(path);
    if (!report) continue;
    passed += report.numPassedTests ?? 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    for (const file of report.testResults ?? []) {
      const tests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const test of tests) failures.push(`${dir}/${file.name.slice(join(root, dir).length + 1)} > ${test.fullName}`);
      // A file that failed before running its tests (syntax, a hook) has no failed assertion.
      if (file.status === 'failed' && tests.length === 0) failures.push(`${dir}/${file.name.slice(join(root, dir).length + 1)}: ${String(file.message || 'a hook or the file itself failed (its output is above)').split('\n')[0]}`);
    }
  }
  const tasks = failedTasks();
  console.log('\n────────────────────────────────────────────────────────────');
  if (failures.length) {
    console.log(`Failed tests (${failures.length}):`);
    for (const name of failures) console.log(`  ✖ ${name}`);
  }
  if (tasks.length) console.log(`Failed tasks: ${tasks.join(', ')} (their output is above)`);
  const otherSteps = failedSteps.filter((step) => step !== 'turbo' || tasks.length === 0);
  if (otherSteps.length) console.log(`Failed steps: ${otherSteps.join(', ')} (their output is above)`);
  if (passed + failures.length === 0) console.log('No test reports were written: no test ran.');
  console.log(`Tests: ${passed} passed, ${failures.length} failed${skipped ? `, ${skipped} skipped` : ''}`);
  return failures.length === 0 && failedSteps.length === 0 && passed > 0;
}
