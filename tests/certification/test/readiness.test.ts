// The plan data stays honest: every module a plan lists is defined; a run is pending exactly
// when one of its needs (a reference-server fault, an SDK capability) is missing, so a
// capability that lands fails this file until its modules are wired; every fault of the
// reference server is either played for a module or said to mirror none; and the root README's
// "Certification readiness" table is the one the data gives.
import { readFileSync } from 'node:fs';
import { FAULTS } from '@oidc-rp/reference-server';
import { beforeAll, describe, expect, it } from 'vitest';
import { MODULES, type Feature } from '../src/modules';
import { PLANS } from '../src/plans';
import { allRuns, needsOf } from '../src/runs';
import { README_END, README_START, readmeSection } from '../src/tables';
import { isMet, probeControls, probeFeatures } from './support/capabilities';

/** Faults of the reference server that no certification module needs: they mirror other rules. */
const FAULTS_OUTSIDE_THE_PLANS: Record<string, string> = {
  id_token_unknown_kid: 'a key never published (the suite has no such module)',
  id_token_azp_mismatch: 'OIDC Core 3.1.3.7 (5)',
  id_token_iat_future: 'iat in the future (the suite has none)',
  token_response_not_json: 'RFC 6749 5.1',
  token_response_missing_access_token: 'RFC 6749 5.1',
  token_response_token_type_lowercase: 'Bearer in lower case (the FAPI module needs DPoP in odd case)',
  token_response_unknown_token_type: 'RFC 6749 7.1',
  id_token_missing: 'OIDC Core 3.1.3.3',
  token_response_token_type_bearer: 'RFC 9449 downgrade',
  dpop_proof_replayed: 'RFC 9449 11.1',
  dpop_nonce_required: 'the FAPI tenant requires nonces for every client instead',
  par_request_refused: 'RFC 9126',
  par_response_missing_request_uri: 'RFC 9126',
  par_response_bad_expires_in: 'RFC 9126',
  par_request_uri_expired: 'RFC 9126',
  client_assertion_replayed: 'RFC 7523',
  client_assertion_wrong_aud: 'RFC 7523',
  client_assertion_expired: 'RFC 7523',
  client_assertion_unknown_key: 'RFC 7523',
};

const runs = allRuns();
let features: ReadonlySet<Feature>;
beforeAll(async () => {
  features = await probeFeatures();
});

describe('the certification plan data', () => {
  it('lists only defined modules, and every defined module is in a plan', () => {
    const listed = new Set(PLANS.flatMap((p) => p.variants.flatMap((v) => v.modules)));
    expect([...listed].filter((m) => !(m in MODULES))).toEqual([]);
    expect(Object.keys(MODULES).filter((m) => !listed.has(m))).toEqual([]);
  });

  it('gives every module that rejects a typed error code once it can run', () => {
    const missing = runs.filter((r) => r.pending === undefined && r.definition.outcome === 'reject' && !r.definition.code).map((r) => r.module);
    expect(missing).toEqual([]);
  });

  it('probes capabilities that answer: today’s response types and modes are found', async () => {
    expect(await probeControls()).toEqual({ nodeFormPost: 'code id_token', browserCode: 'code', browserImplicit: 'id_token token', serverHybrid: true });
  });

  it('marks a run pending exactly when a fault or capability it needs is missing (wire the modules of what lands)', () => {
    const mismatched = runs
      .map((run) => ({ run: run.key, plan: run.plan.name, pending: run.pending, missing: needsOf(run).filter((n) => !isMet(n, features)) }))
      .filter(({ pending, missing }) => (pending !== undefined) !== missing.length > 0);
    expect(mismatched).toEqual([]);
  });

  it('plays or sets aside every fault of the reference server', () => {
    const played = new Set(Object.values(MODULES).flatMap((m) => (m.fault ? [m.fault] : [])));
    const unaccounted = FAULTS.filter((f) => !played.has(f) && !(f in FAULTS_OUTSIDE_THE_PLANS));
    expect(unaccounted, 'a new fault: give the module it plays its `fault`, or say here why none').toEqual([]);
    expect(Object.keys(FAULTS_OUTSIDE_THE_PLANS).filter((f) => !(FAULTS as readonly string[]).includes(f) || played.has(f))).toEqual([]);
  });

  it('is what the root README says ("Certification readiness"; regenerate with `pnpm --filter @oidc-rp/certification readiness`)', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf(README_START);
    const end = readme.indexOf(README_END);
    expect(start).toBeGreaterThan(-1);
    expect(readme.slice(start, end + README_END.length)).toBe(readmeSection());
  });
});
