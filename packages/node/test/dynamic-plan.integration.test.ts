// The OpenID Dynamic RP chain and FAPI 2.0 Message Signing's request half against the reference
// server over real HTTP: WebFinger -> discovery -> dynamic registration -> a login whose request
// object the provider fetches from the app by request_uri -> signed userinfo. And the attacks a
// relying party must refuse on the way: a WebFinger issuer whose configuration names another
// issuer, and signed userinfo broken in each rule (another alg, an unknown key, another iss or
// aud, alg none, encryption).
import { type ServerConfig, demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OidcError,
  createNodeClient,
  createRequestObjectStore,
  discoverByIdentifier,
  dpop,
  fapi2,
  privateKeyJwt,
  registerClient,
  requestObjectSigner,
  serviceProvider,
} from '../src/index';
import { type RunningServer, recordingFetch, startReferenceServer } from './support/reference-server';
import { serveFetch } from './support/serve-fetch';

const REDIRECT = 'http://127.0.0.1:3000/callback';
const SECRET = 'signed-userinfo-secret-Zq7Xk2Lm9Vb4Tx';
let op: RunningServer;
let fapiOp: RunningServer;
let app: { origin: string; close(): Promise<void> };
let store: ReturnType<typeof createRequestObjectStore>;
const fetched: string[] = [];
let rsaPrivate: JsonWebKey & { kid: string };
let rsaPublic: Record<string, unknown>;
let esPrivate: JsonWebKey & { kid: string };

function withClients(config: ServerConfig, signingAlg: 'RS256' | 'ES256', esPublic: Record<string, unknown>): ServerConfig {
  const tenant = config.tenants[0]!;
  tenant.signing_alg = signingAlg;
  tenant.registration = { access: 'open', scopes: ['openid', 'profile', 'email'] };
  tenant.clients?.push(
    { client_id: 'signed-ui', client_secret: SECRET, redirect_uris: [REDIRECT], scopes: ['openid', 'profile'], skip_consent: true, userinfo_signed_response_alg: signingAlg },
    {
      client_id: 'fapi-ms', redirect_uris: [REDIRECT], scopes: ['openid', 'profile'], skip_consent: true, jwks: { keys: [esPublic] },
      token_endpoint_auth_method: 'private_key_jwt', require_signed_request_object: true, request_object_signing_alg: 'ES256', require_pushed_authorization_requests: true,
    },
  );
  return config;
}

beforeAll(async () => {
  const rsa = await generateKeyPair('RS256', { extractable: true });
  rsaPrivate = { ...(await exportJWK(rsa.privateKey)), kid: 'rsa-1' } as JsonWebKey & { kid: string };
  rsaPublic = { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1' };
  const es = await generateKeyPair('ES256', { extractable: true });
  esPrivate = { ...(await exportJWK(es.privateKey)), kid: 'es-1' } as JsonWebKey & { kid: string };
  const esPublic = { ...(await exportJWK(es.publicKey)), kid: 'es-1' };
  op = await startReferenceServer(withClients(demoConfig(), 'RS256', esPublic));
  fapiOp = await startReferenceServer(withClients(demoConfig(), 'ES256', esPublic));
  let handler: (request: Request) => Response = () => new Response(null, { status: 404 });
  app = await serveFetch((request) => handler(request));
  store = createRequestObjectStore({ baseUrl: `${app.origin}/request-objects` });
  handler = (request) => {
    fetched.push(new URL(request.url).pathname);
    return store.handle(request) ?? new Response(null, { status: 404 });
  };
});
afterAll(async () => {
  await app?.close();
  await op?.close();
  await fapiOp?.close();
});

async function loginAndUserinfo(client: ReturnType<typeof createNodeClient>) {
  const { url, transaction } = await client.startLogin();
  const result = await completeLogin(url, { username: 'alice', password: 'wonderland' });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const tokens = await client.finishLogin(result.location, transaction);
  return { url, tokens, user: () => client.getUserInfo(tokens.accessToken, { expectedSubject: tokens.claims!.sub }) };
}

describe('the Dynamic RP chain', () => {
  it('WebFinger, discovery, registration, a request object by request_uri signed RS256, signed userinfo', async () => {
    const provider = await discoverByIdentifier(`acct:alice@${op.origin.slice('http://'.length)}`, { loopbackHttp: true });
    expect(provider.issuer).toBe(op.issuer);
    expect(provider.request_object_signing_alg_values_supported).toContain('RS256');
    const registered = await registerClient({
      provider,
      metadata: {
        redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [rsaPublic] }, scope: 'openid profile email',
        request_object_signing_alg: 'RS256', userinfo_signed_response_alg: 'RS256', id_token_signed_response_alg: 'RS256',
      },
    });
    const client = createNodeClient({
      provider,
      clientId: registered.clientId,
      clientAuth: privateKeyJwt(rsaPrivate, { alg: 'RS256' }),
      redirectUri: REDIRECT,
      scope: 'openid profile email',
      signingAlgorithm: 'RS256',
      userinfoSigningAlgorithm: 'RS256',
      requestObject: { signer: requestObjectSigner({ key: rsaPrivate, alg: 'RS256' }), store },
    });
    const before = fetched.length;
    const { url, tokens, user } = await loginAndUserinfo(client);
    expect([...url.searchParams.keys()]).toEqual(['client_id', 'response_type', 'scope', 'request_uri']);
    const requestUri = url.searchParams.get('request_uri')!;
    expect(requestUri.startsWith(`${app.origin}/request-objects/`)).toBe(true);
    expect(fetched.slice(before)).toEqual([new URL(requestUri).pathname]);
    // Served once: a second fetch of the same request_uri finds nothing.
    expect((await fetch(requestUri)).status).toBe(404);
    expect(await user()).toMatchObject({ sub: tokens.claims!.sub, email: expect.any(String) });
  });

  it('an unsigned request object (alg none) by request_uri, for a client registered with none', async () => {
    const provider = await discoverByIdentifier(`${op.origin}/demo`, { loopbackHttp: true });
    const registered = await registerClient({ provider, metadata: { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic', request_object_signing_alg: 'none' } });
    const client = createNodeClient({
      provider, clientId: registered.clientId, clientSecret: registered.clientSecret!, authMethod: 'client_secret_basic', redirectUri: REDIRECT,
      requestObject: { signer: requestObjectSigner({ alg: 'none' }), store },
    });
    const { tokens } = await loginAndUserinfo(client);
    expect(tokens.claims?.sub).toBeTruthy();
  });

  it('refuses a WebFinger issuer whose configuration names another issuer, before any login', async () => {
    const hostile = await serveFetch((request) => {
      const { pathname, origin } = new URL(request.url);
      if (pathname === '/.well-known/webfinger') return Response.json({ links: [{ rel: 'http://openid.net/specs/connect/1.0/issuer', href: `${origin}/op` }] });
      if (pathname === '/op/.well-known/openid-configuration') return Response.json({ ...serviceProvider(op.issuer), issuer: op.issuer });
      return new Response(null, { status: 404 });
    });
    try {
      const error = await discoverByIdentifier(`acct:alice@${hostile.origin.slice('http://'.length)}`, { loopbackHttp: true }).catch((e: OidcError) => e);
      expect(error).toMatchObject({ code: 'discovery_issuer_mismatch' });
    } finally {
      await hostile.close();
    }
  });
});

describe('signed userinfo refused when broken', () => {
  const client = () =>
    createNodeClient({ issuer: op.issuer, clientId: 'signed-ui', clientSecret: SECRET, redirectUri: REDIRECT, scope: 'openid profile', userinfoSigningAlgorithm: 'RS256' });

  it('accepts the healthy JWT; refuses each fault with its own code', async () => {
    const { user, tokens } = await loginAndUserinfo(client());
    expect((await user()).sub).toBe(tokens.claims!.sub);
    const cases = [
      ['userinfo_signed_wrong_alg', 'userinfo_alg_not_allowed'],
      ['userinfo_signed_alg_none', 'userinfo_alg_not_allowed'],
      ['userinfo_signed_unknown_key', 'userinfo_signature_invalid'],
      ['userinfo_signed_wrong_iss', 'userinfo_iss_mismatch'],
      ['userinfo_signed_wrong_aud', 'userinfo_aud_mismatch'],
      ['userinfo_encrypted', 'userinfo_encrypted_unsupported'],
      ['userinfo_wrong_sub', 'userinfo_sub_mismatch'],
    ] as const;
    for (const [fault, code] of cases) {
      await op.control.faults.set('signed-ui', fault, { times: 1 });
      expect(await user().catch((e: OidcError) => e.code), fault).toBe(code);
    }
  });

  it('refuses plain JSON userinfo when the client is registered for signed userinfo', async () => {
    const plain = createNodeClient({ issuer: op.issuer, clientId: 'web', clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', redirectUri: REDIRECT, userinfoSigningAlgorithm: 'RS256' });
    const { user } = await loginAndUserinfo(plain);
    expect(await user().catch((e: OidcError) => e.code)).toBe('userinfo_jwt_invalid');
  });
});

describe('fapi2({ messageSigning: true })', () => {
  it('pushes the login as a request object signed ES256 in the PAR body; the provider requiring one logs in', async () => {
    const recorder = recordingFetch();
    const client = createNodeClient(
      fapi2({ issuer: fapiOp.issuer, clientId: 'fapi-ms', privateKey: esPrivate, dpop: await dpop(), redirectUri: REDIRECT, messageSigning: true, fetch: recorder.fetch }),
    );
    const { url, tokens } = await loginAndUserinfo(client);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const push = recorder.posts.find((p) => p.url.endsWith('/oauth/par'))!;
    expect([...push.body.keys()].sort()).toEqual(['client_assertion', 'client_assertion_type', 'client_id', 'request']);
    const header = JSON.parse(Buffer.from(push.body.get('request')!.split('.')[0]!, 'base64url').toString());
    expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt', kid: 'es-1' });
    expect(tokens.tokenType).toBe('DPoP');
  });

  it('without messageSigning the same provider refuses the push (it requires a signed request object)', async () => {
    const client = createNodeClient(fapi2({ issuer: fapiOp.issuer, clientId: 'fapi-ms', privateKey: esPrivate, dpop: await dpop(), redirectUri: REDIRECT }));
    expect(await client.startLogin().catch((e: OidcError) => e.code)).toBe('token_endpoint_error');
  });
});
