// The same journey from CommonJS (the `require` entry points) against a reference server started
// by the packed CLI (`oidc-rp-reference-server --port 0`); its issuer comes in ISSUER.
const assert = require('node:assert/strict');
const { OidcError, discover, isOidcError } = require('@oidc-rp/core');
const { createNodeClient } = require('@oidc-rp/node');
const { completeLogin } = require('@oidc-rp/reference-server/testing');

async function main() {
  const issuer = process.env.ISSUER;
  const provider = await discover(issuer);
  assert.equal(provider.issuer, issuer);

  const service = createNodeClient({ issuer, clientId: 'service', clientSecret: 'service-secret', grants: ['client_credentials'] });
  const cc = await service.getClientCredentialsToken({ scope: 'api.read' });
  assert.ok(cc.accessToken.length > 10);

  const web = createNodeClient({
    issuer,
    clientId: 'web',
    clientSecret: 'web-secret',
    redirectUri: 'http://127.0.0.1:3000/callback',
    scope: 'openid profile',
    responseMode: 'form_post',
    cookieSecret: 'release-check-cookie-secret-0123456789',
  });
  const start = await web.handleLogin(new Request('http://127.0.0.1:3000/login'));
  const cookie = start.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const result = await completeLogin(start.headers.get('location'), { username: 'alice', password: 'wonderland' });
  assert.equal(result.type, 'form_post');
  const { tokens } = await web.handleCallback(
    new Request(result.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: result.body }),
  );
  assert.equal(tokens.claims.sub, 'alice');

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
  const fs = require('node:fs');
  const reactDir = require('node:path').dirname(require.resolve('@oidc-rp/react'));
  for (const file of ['index.cjs', 'index.mjs']) {
    assert.match(fs.readFileSync(`${reactDir}/${file}`, 'utf8'), /^'use client';/);
  }

  console.log(JSON.stringify({ format: 'cjs', sub: tokens.claims.sub, clientCredentials: true }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
