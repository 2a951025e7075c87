/**
 * The Dynamic plan's chain through @oidc-rp/node over real HTTP, as a dynamic RP runs it: the
 * issuer found by WebFinger (an `acct:` or a URL identifier), discovery, dynamic registration
 * (RFC 7591) of a client registered for request objects and signed userinfo, a login whose
 * request object the provider fetches from the app by `request_uri` (RS256, or unsigned for the
 * request-uri-signed-none module), then userinfo as a JWT signed RS256. Each module of the plan
 * runs the whole chain (the plan cannot start without it) and is judged on its own link.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clearJwksCache } from '@oidc-rp/core';
import { createRequestObjectStore, discoverByIdentifier, registerClient, requestObjectSigner, type NodeClientOptions } from '@oidc-rp/node';
import { NODE_REDIRECT, SCOPE } from '@oidc-rp/conformance/support/config';
import { runNodeFlow } from '@oidc-rp/conformance/support/node-flow';
import { expect } from 'vitest';
import { tenantOf } from '../../src/modules';
import type { ModuleRun } from '../../src/runs';
import { journalled } from './journal';
import type { NodeRunContext } from './node-runner';

const COOKIE_SECRET = 'certification-dyn-Lw4pQ8zRt2NvK6sXb3JmY9cH';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const RSA_PRIVATE = { ...rsa.privateKey.export({ format: 'jwk' }), kid: 'dynamic-rp-rs256' } as JsonWebKey & { kid: string };
const RSA_PUBLIC = { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'dynamic-rp-rs256', alg: 'RS256', use: 'sig' };

/** The app's request-object endpoint on 127.0.0.1: serves what the client stored, and records each JWT it served. */
async function startRequestObjectApp(): Promise<{ store: ReturnType<typeof createRequestObjectStore>; served: string[]; close(): void }> {
  const served: string[] = [];
  let store: ReturnType<typeof createRequestObjectStore> | undefined;
  const server = createServer((req, res) => {
    const answer = store?.handle(new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method ?? 'GET' })) ?? new Response(null, { status: 404 });
    void answer.text().then((body) => {
      if (answer.status === 200) served.push(body);
      res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  store = createRequestObjectStore({ baseUrl: `http://127.0.0.1:${port}/request-objects` });
  return { store, served, close: () => server.close() };
}

const headerOf = (jwt: string | undefined): Record<string, unknown> => JSON.parse(Buffer.from((jwt ?? '').split('.')[0] ?? '', 'base64url').toString() || '{}');

/**
 * Runs one Dynamic plan module and asserts the chain.
 *
 * @example
 * await runDynamic(run, { server, origin });
 */
export async function runDynamic(run: ModuleRun, ctx: NodeRunContext): Promise<void> {
  clearJwksCache();
  const tenant = tenantOf(run.module);
  const issuer = `${ctx.origin}/${tenant}`;
  const unsigned = run.module === 'oidcc-client-test-request-uri-signed-none';
  // The URL module names the issuer by a URL; the others by an account at the provider's host.
  const identifier = run.module === 'oidcc-client-test-discovery-webfinger-url' ? `${issuer}/alice` : `acct:${tenant}@${new URL(ctx.origin).host}`;
  const app = await startRequestObjectApp();
  try {
    const { value, journal } = await journalled(ctx.server, async () => {
      const provider = await discoverByIdentifier(identifier, { loopbackHttp: true });
      const registered = await registerClient({
        provider,
        metadata: {
          redirect_uris: [NODE_REDIRECT],
          token_endpoint_auth_method: 'client_secret_basic',
          scope: SCOPE,
          id_token_signed_response_alg: 'RS256',
          userinfo_signed_response_alg: 'RS256',
          ...(unsigned ? { request_object_signing_alg: 'none' } : { request_object_signing_alg: 'RS256', jwks: { keys: [RSA_PUBLIC] } }),
        },
      });
      const options: NodeClientOptions = {
        provider,
        clientId: registered.clientId,
        clientSecret: registered.clientSecret as string,
        authMethod: 'client_secret_basic',
        redirectUri: NODE_REDIRECT,
        responseMode: run.responseMode,
        scope: SCOPE,
        signingAlgorithm: 'RS256',
        userinfoSigningAlgorithm: 'RS256',
        requestObject: { signer: unsigned ? requestObjectSigner({ alg: 'none' }) : requestObjectSigner({ key: RSA_PRIVATE, alg: 'RS256' }), store: app.store },
        cookieSecret: COOKIE_SECRET,
      };
      const flow = await runNodeFlow({ issuer: '', clientId: registered.clientId, userinfo: true, clientOptions: options });
      return { provider, registered, flow };
    });
    const { provider, registered, flow } = value;
    expect(flow.error).toBeUndefined();
    expect(provider.issuer).toBe(issuer);
    expect(flow.tokens?.claims?.sub).toBe('alice');
    expect(flow.userinfo).toMatchObject({ sub: 'alice', email: 'alice@example.com' });

    // WebFinger, then discovery, then registration, all before the authorization request.
    const seqOf = (path: string) => journal.entries.find((e) => e.path?.endsWith(path) || e.endpoint === path)?.seq ?? Number.POSITIVE_INFINITY;
    const webfinger = seqOf('/.well-known/webfinger');
    const registration = seqOf('/oauth/register');
    expect(webfinger).toBeLessThan(journal.first('discovery'));
    expect(journal.first('discovery')).toBeLessThan(registration);
    expect(registration).toBeLessThan(journal.first('authorize'));

    // The login went by reference: the authorization request names the app's request_uri, and
    // the app served that request object once, signed as the client registered.
    const [authorize] = journal.calls('authorize');
    expect(authorize?.params.client_id).toBe(registered.clientId);
    expect(authorize?.params.request_uri).toEqual(expect.any(String));
    expect(app.served).toHaveLength(1);
    expect(headerOf(app.served[0]).alg).toBe(unsigned ? 'none' : 'RS256');
    expect(journal.calls('token').map((c) => c.status)).toEqual([200]);
    // Userinfo answered as a signed JWT, verified by the client.
    expect(journal.calls('userinfo').map((c) => c.status)).toEqual([200]);
  } finally {
    app.close();
  }
}
