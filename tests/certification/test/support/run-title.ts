import type { Plan } from '../../src/plans';
import type { ModuleRun } from '../../src/runs';

declare module 'vitest' {
  interface TaskMeta {
    /** The distinct run a test proves (ModuleRun.key), read by the readiness reporter. */
    certificationRun?: string;
  }
}

/** A test's name: the module, its variant, what the RP must do, and the plans that list it. */
export function runTitle(run: ModuleRun, plans: readonly Plan[]): string {
  const outcome = run.definition.outcome === 'reject' ? `rejects${run.definition.code ? ` (${run.definition.code})` : ''}` : run.definition.outcome === 'either' ? 'accepts or rejects' : 'accepts';
  return `${run.module} [${run.responseType}, ${run.responseMode}] ${outcome} — ${plans.map((p) => p.name).join(', ')}`;
}
