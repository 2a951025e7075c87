// The same journey from CommonJS (the `require` entry points) against a reference server started
// by the packed CLI (`oidc-rp-reference-server --port 0`); its issuer comes in ISSUER.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { OidcError, discover, isOidcError } = require('@oidc-rp/core');
const { createNodeClient } = require('@oidc-rp/node');
const { completeLogin } = require('@oidc-rp/reference-server/testing');
const journey = require('./journey.cjs');

async function main() {
  const outcome = await journey({ discover, createNodeClient, completeLogin }, process.env.ISSUER);

  // The dual-package hazard the other way round: CJS core meeting an error from ESM core.
  const esmCore = await import('@oidc-rp/core');
  assert.notEqual(esmCore.OidcError, OidcError, 'two copies of core are loaded');
  const error = await esmCore.discover('ftp://example.com').then(
    () => assert.fail('expected a rejection'),
    (e) => e,
  );
  assert.ok(error instanceof OidcError, 'instanceof OidcError holds across the ESM and CJS copies');
  assert.ok(isOidcError(error));

  // The react build is client code: 'use client' survives in both formats.
  const reactDir = path.dirname(require.resolve('@oidc-rp/react'));
  for (const file of ['index.cjs', 'index.mjs']) {
    assert.match(fs.readFileSync(path.join(reactDir, file), 'utf8'), /^'use client';/);
  }

  console.log(JSON.stringify({ format: 'cjs', ...outcome }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
