/**
 * oidc-provider (a certified OpenID Provider) in this process on 127.0.0.1, port 0, with the
 * same clients and user as the reference server's interoperability tenant, and a driver for
 * its development sign-in and consent pages (a person's part of the flow, not the SDK's).
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CookieJar } from '@oidc-rp/reference-server/testing';
import Provider from 'oidc-provider';

export interface InteropClient {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method: 'client_secret_post' | 'client_secret_basic' | 'none';
  redirect_uris: string[];
  grant_types: string[];
}

export interface RunningOidcProvider {
  issuer: string;
  /** Signs alice in on the provider's pages; the URL it sends the browser back to. */
  signIn(authorizeUrl: string | URL): Promise<string>;
  close(): Promise<void>;
}

const ALICE = { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com', email_verified: true };

/**
 * Starts oidc-provider with `clients` registered.
 *
 * @example
 * const op = await startOidcProvider([{ client_id: 'rp', ... }]);
 */
export async function startOidcProvider(clients: InteropClient[]): Promise<RunningOidcProvider> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', kid: 'interop-rs256' };
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({ ...c, response_types: ['code'], scope: 'openid profile email offline_access api.read' })),
    jwks: { keys: [signingKey] },
    cookies: { keys: ['interop-cookie-signing-key-of-some-length'] },
    scopes: ['openid', 'offline_access', 'profile', 'email', 'api.read'],
    claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'] },
    findAccount: async (_ctx, sub) => (sub === ALICE.sub ? { accountId: sub, claims: async () => ({ ...ALICE }) } : undefined),
    features: { clientCredentials: { enabled: true }, revocation: { enabled: true } },
    // A refresh token for every client allowed the grant (it otherwise needs offline_access with prompt=consent).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: 3600, AuthorizationCode: 60, ClientCredentials: 600, Grant: 3600, IdToken: 3600, Interaction: 600, RefreshToken: 86_400, Session: 3600 },
  });
  server.on('request', provider.callback());

  return {
    issuer,
    signIn: (url) => signIn(issuer, String(url)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Follows redirects and fills the development login and consent forms, with cookies. */
async function signIn(issuer: string, authorizeUrl: string): Promise<string> {
  const cookies = new CookieJar();
  let url = new URL(authorizeUrl);
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 12; step += 1) {
    const headers = new Headers();
    const cookie = cookies.header(url);
    if (cookie) headers.set('cookie', cookie);
    if (form) headers.set('content-type', 'application/x-www-form-urlencoded');
    const response = await fetch(url, { method: form ? 'POST' : 'GET', headers, body: form, redirect: 'manual' });
    cookies.store(url, response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      form = undefined;
      if (url.origin !== new URL(issuer).origin) return url.href; // back to the client
      continue;
    }
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
    if (response.status !== 200 || !action || !prompt) throw new Error(`oidc-provider answered ${response.status} without a sign-in form`);
    url = new URL(action, url);
    form = new URLSearchParams(prompt === 'login' ? { prompt, login: ALICE.sub, password: 'any' } : { prompt });
  }
  throw new Error('oidc-provider did not send the browser back within 12 steps');
}
