// Run from the scratch consumer against the packed packages (ESM entry points): an in-process
// reference server on port 0, discovery, client credentials, and the code flow with form_post
// through the real login forms, the ID token validated by @oidc-rp/node. Prints one JSON line.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { OidcError, discover, isOidcError } from '@oidc-rp/core';
import { createNodeClient } from '@oidc-rp/node';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';

const server = await createReferenceServer(demoConfig(), { logger: false });
const { origin } = await server.listen({ port: 0 });
try {
  const issuer = `${origin}/demo`;
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
  assert.equal(tokens.claims.iss, issuer);

  // The dual-package hazard, ESM core meeting an error from the CJS build of node (and so of core).
  const cjsNode = createRequire(import.meta.url)('@oidc-rp/node');
  assert.notEqual(cjsNode.OidcError, OidcError, 'two copies of core are loaded');
  const error = catchError(() => cjsNode.createNodeClient({ clientId: 'web' }));
  assert.equal(error.code, 'invalid_options');
  assert.ok(error instanceof OidcError, 'instanceof OidcError holds across the ESM and CJS copies');
  assert.ok(isOidcError(error));
  assert.ok(!(new Error('x') instanceof OidcError));

  console.log(JSON.stringify({ format: 'esm', sub: tokens.claims.sub, clientCredentials: true }));
} finally {
  await server.close();
}

function catchError(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
