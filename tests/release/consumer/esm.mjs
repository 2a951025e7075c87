// Run from the scratch consumer against the packed packages through their ESM entry points, with
// an in-process reference server on port 0. Prints one JSON line.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { OidcError, discover, isOidcError } from '@oidc-rp/core';
import { createNodeClient } from '@oidc-rp/node';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import journey from './journey.cjs';

const server = await createReferenceServer(demoConfig(), { logger: false });
const { origin } = await server.listen({ port: 0 });
try {
  const outcome = await journey({ discover, createNodeClient, completeLogin }, `${origin}/demo`);

  // The dual-package hazard: ESM core meeting an error from the CJS build of node (and so of core).
  const cjsNode = createRequire(import.meta.url)('@oidc-rp/node');
  assert.notEqual(cjsNode.OidcError, OidcError, 'two copies of core are loaded');
  let error;
  try {
    cjsNode.createNodeClient({ clientId: 'web' });
  } catch (caught) {
    error = caught;
  }
  assert.equal(error?.code, 'invalid_options');
  assert.ok(error instanceof OidcError, 'instanceof OidcError holds across the ESM and CJS copies');
  assert.ok(isOidcError(error));
  assert.ok(!(new Error('x') instanceof OidcError));

  console.log(JSON.stringify({ format: 'esm', ...outcome }));
} finally {
  await server.close();
}
