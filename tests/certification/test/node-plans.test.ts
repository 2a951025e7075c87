// Every module run of the certification plans that @oidc-rp/node can run today, through the
// client or its session layer over real HTTP against the reference server on 127.0.0.1: one
// test per distinct run (a run that several plans list runs once; its name says which plans).
// Runs are sequential: the judge reads the provider's request journal, and userinfo requests
// carry no client id to tell concurrent runs apart. Pending runs are no tests: the readiness
// test and the printed table account for them.
import { createReferenceServer, type Listening, type ReferenceServer } from '@oidc-rp/reference-server';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { allRuns, distinctRuns } from '../src/runs';
import { runOnNode } from './support/node-runner';
import { runTitle } from './support/run-title';
import { certificationConfig } from './support/server-config';

let server: ReferenceServer;
let listening: Listening;

beforeAll(async () => {
  server = await createReferenceServer(certificationConfig(), { logger: false, developmentKeys: true });
  listening = await server.listen({ port: 0, host: '127.0.0.1' });
  // Each tenant makes its signing key at start and the first token request waits for it: wait
  // here (the JWKS publishes the key), so no run pays for it inside a client's timeout.
  for (const tenant of certificationConfig().tenants) {
    const response = await fetch(`${listening.origin}/${tenant.id}/oidc/jwks`);
    if (!response.ok) throw new Error(`the JWKS of tenant ${tenant.id} answered ${response.status}`);
  }
});
afterAll(() => listening?.close());

describe('certification plans through @oidc-rp/node', () => {
  for (const { run, plans } of distinctRuns(allRuns()).filter(({ run }) => run.runner === 'node' && run.pending === undefined)) {
    it(runTitle(run, plans), async ({ task }) => {
      task.meta.certificationRun = run.key;
      await runOnNode(run, { server, origin: listening.origin });
    });
  }
});
