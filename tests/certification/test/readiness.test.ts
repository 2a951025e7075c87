// The plan data stays honest: every module a plan lists is defined; a run is pending exactly
// when one of its needs (a reference-server fault, an SDK capability) is missing, so a
// capability that lands fails this file until its modules are wired; every fault of the
// reference server is either played for a module or said to mirror none; and the root README's
// "Certification readiness" table is the one the data gives.
import { readFileSync } from 'node:fs';
import { FAULTS } from '@oidc-rp/reference-server';
import { beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_PENDING, MODULES, type Feature } from '../src/modules';
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
  // The Dynamic plan's request_uri and userinfo-sig modules are happy paths; these faults test refusals beside them.
  request_object_refused: 'RFC 9101 6.2',
  userinfo_signed_wrong_alg: 'OIDC Core 5.3.2 (the registered userinfo_signed_response_alg)',
  userinfo_signed_unknown_key: 'OIDC Core 5.3.2',
  userinfo_signed_wrong_iss: 'OIDC Core 5.3.2',
  userinfo_signed_wrong_aud: 'OIDC Core 5.3.2',
  userinfo_signed_alg_none: 'OIDC Core 5.3.2',
  userinfo_encrypted: 'OIDC Core 5.3.2 (encryption unsupported)',
  // Refusals beside the claims modules' happy paths (the suite's aggregated and distributed modules accept).
  userinfo_aggregated_claims_unsigned: 'OIDC Core 5.6.2 (an unsigned claims JWT)',
  userinfo_aggregated_claims_bad_signature: 'OIDC Core 5.6.2',
  userinfo_distributed_claims_other_origin: 'OIDC Core 5.6.2 (the access token sent to another origin)',
  userinfo_distributed_claims_insecure_endpoint: 'OIDC Core 5.6.2',
  initiate_login_wrong_iss: 'OIDC Core 4 (an iss the RP does not know; the suite has only the happy path)',
  id_token_wrong_alg: 'an algorithm other than the pinned one (the FAPI alternate-alg module plays id_token_alternate_alg_rs256)',
  // The Message Signing plan's JARM modules break the response JWT; none sends plain parameters where JARM was asked.
  jarm_plain_response: 'JARM 4.4 (a downgrade to a plain response; the suite has no such module)',
  check_session_changed: 'the suite\u2019s frame answers changed after the RP logout; the reference server does that by itself',
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
    expect(await probeControls()).toEqual({
      nodeFormPost: 'code id_token',
      browserCode: 'code',
      browserImplicit: 'id_token token',
      serverHybrid: true,
      nodeUserinfo: { method: 'GET', body: '', authorization: 'Bearer probe-token' },
    });
  });

  it('marks a run pending exactly when a fault or capability it needs is missing (wire the modules of what lands)', () => {
    const mismatched = runs
      .map((run) => ({ run: run.key, plan: run.plan.name, pending: run.pending, missing: needsOf(run).filter((n) => !isMet(n, features)) }))
      // A run may also wait for a runner of this suite, and says so (HARNESS_PENDING).
      .filter(({ pending, missing }) => (pending !== undefined) !== (missing.length > 0 || pending?.includes(HARNESS_PENDING) === true));
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
