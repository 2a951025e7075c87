// The user journey both consumer programs run, given the SDK modules of their own format
// (ESM imports or CJS requires): discovery, client credentials, and the code flow with
// form_post through the real login forms, the ID token validated by @oidc-rp/node.
const assert = require('node:assert/strict');

module.exports = async function journey({ discover, createNodeClient, completeLogin }, issuer) {
  const provider = await discover(issuer);
  assert.equal(provider.issuer, issuer);

  const service = createNodeClient({ issuer, clientId: 'service', clientSecret: 'service-secret', grants: ['client_credentials'] });
  const cc = await service.getClientCredentialsToken({ scope: 'api.read' });
  assert.ok(cc.accessToken.length > 10);

  const web = createNodeClient({
    issuer,
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: 'http://127.0.0.1:3000/callback',
    scope: 'openid profile',
    responseMode: 'form_post',
    cookieSecret: 'release-check-8p6n4GhcYHC9yXbDIoyJj7xlzxCKysOO',
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
  return { sub: tokens.claims.sub, clientCredentials: true };
};
