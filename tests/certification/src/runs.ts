/**
 * The plans expanded into module runs: one per plan, variant, applicable module and runner (what
 * the suite would run), and the distinct runs among them (a module run with the same response
 * type, mode, client authentication and runner is the same run whichever plan lists it: it runs
 * once and counts for each plan).
 */
import { MODULES, type CertModule, type Feature, type ResponseType, type Runner } from './modules';
import { PLANS, type ClientAuth, type Plan, type PlanVariant, type ResponseMode } from './plans';

/** A response mode as the client sends it. */
export type SentMode = 'query' | 'fragment' | 'form_post';

export interface ModuleRun {
  /** Identifies the distinct run: runner, response type, mode, client authentication, plan settings, module. */
  key: string;
  plan: Plan;
  variant: PlanVariant;
  module: string;
  definition: CertModule;
  runner: Runner;
  responseType: ResponseType;
  responseMode: SentMode;
  clientAuth: ClientAuth;
  /** What is missing (the module's and the variant's), when the run cannot be proven yet. */
  pending?: string;
}

/** What a need is: a reference-server fault, or an SDK capability probed at test time. */
export type Need = { fault: string } | { feature: Feature };

export function sentMode(responseType: ResponseType, mode: ResponseMode): SentMode {
  if (mode === 'form_post') return 'form_post';
  return responseType === 'code' ? 'query' : 'fragment';
}

function applicable(module: CertModule, variant: PlanVariant): boolean {
  return (
    !module.notApplicable?.includes(variant.responseType) &&
    !module.notApplicableModes?.includes(variant.responseMode) &&
    !module.notApplicableClientAuth?.includes(variant.clientAuth)
  );
}

/**
 * Every module run of every plan, in plan order.
 *
 * @example
 * const basic = allRuns().filter((run) => run.plan.name === 'Basic');
 */
export function allRuns(plans: readonly Plan[] = PLANS): ModuleRun[] {
  const runs: ModuleRun[] = [];
  for (const plan of plans) {
    for (const variant of plan.variants) {
      for (const module of variant.modules) {
        const definition = MODULES[module];
        if (!definition) throw new Error(`plan ${plan.id} lists unknown module ${module}`);
        if (!applicable(definition, variant)) continue;
        for (const [runner, setting] of Object.entries(variant.runners) as [Runner, { pending?: string }][]) {
          // A page cannot receive form_post: where a plan leaves the mode to the RP, the browser takes the fragment.
          const responseMode = sentMode(variant.responseType, runner === 'browser' ? 'default' : variant.responseMode);
          const pending = [definition.pending, setting.pending].filter((p): p is string => p !== undefined).join('; ');
          runs.push({
            key: [runner, variant.responseType, responseMode, variant.clientAuth, ...Object.values(variant.settings ?? {}), module].join(' '),
            plan,
            variant,
            module,
            definition,
            runner,
            responseType: variant.responseType,
            responseMode,
            clientAuth: variant.clientAuth,
            ...(pending ? { pending } : {}),
          });
        }
      }
    }
  }
  return runs;
}

/**
 * The distinct runs (first occurrence), each with the plans it counts for.
 *
 * @example
 * for (const { run, plans } of distinctRuns(allRuns())) console.log(run.key, plans.map((p) => p.name));
 */
export function distinctRuns(runs: readonly ModuleRun[]): { run: ModuleRun; plans: Plan[] }[] {
  const byKey = new Map<string, { run: ModuleRun; plans: Plan[] }>();
  for (const run of runs) {
    const entry = byKey.get(run.key);
    if (entry) {
      if (!entry.plans.includes(run.plan)) entry.plans.push(run.plan);
    } else byKey.set(run.key, { run, plans: [run.plan] });
  }
  return [...byKey.values()];
}

/**
 * What a run needs: its module's fault, the capabilities of its module, response type and mode on its runner.
 *
 * @example
 * needsOf(run); // [{ fault: 'id_token_wrong_iss' }, { feature: 'node.fragment' }]
 */
export function needsOf(run: ModuleRun): Need[] {
  const needs: Need[] = [];
  if (run.definition.fault) needs.push({ fault: run.definition.fault });
  for (const feature of run.definition.needs?.[run.runner] ?? []) needs.push({ feature });
  if (run.runner === 'node') {
    if (run.responseMode === 'fragment') needs.push({ feature: 'node.fragment' });
    if (run.responseType === 'code token') needs.push({ feature: 'node.codeToken' });
  } else {
    if (run.responseType === 'id_token') needs.push({ feature: 'browser.idToken' });
    if (run.responseType.startsWith('code ')) needs.push({ feature: 'browser.hybrid' });
  }
  if (run.plan.id === 'fapi2-message-signing-final-client-test-plan') needs.push({ feature: 'node.requestObject' }, { feature: 'node.jarm' });
  if (run.plan.id === 'oidcc-client-dynamic-certification-test-plan') needs.push({ feature: 'node.webfinger' }, { feature: 'node.requestObject' }, { feature: 'node.signedUserinfo' });
  return needs;
}
