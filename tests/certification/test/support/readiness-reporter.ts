/**
 * Prints the plan-by-plan table after the run: module runs passed / total per runner, pending
 * runs counted in the total (see src/tables.ts). Each test names the run it proves in its meta.
 */
import type { Reporter, TestModule } from 'vitest/node';
import { resultTable } from '../../src/tables';
import './run-title';

export default class ReadinessReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const results = new Map<string, 'passed' | 'failed'>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const key = test.meta().certificationRun;
        const state = test.result().state;
        if (key && (state === 'passed' || state === 'failed')) results.set(key, state);
      }
    }
    if (results.size === 0) return; // a run of other files only
    process.stdout.write(`\nOpenID certification plans, module runs passed / total:\n${resultTable(results)}\n\n`);
  }
}
