import type { ServerConfig } from './schema';

/**
 * The built-in configuration used when no file is given: tenant `demo` ("oidc-rp demo",
 * development, with `demo_login`: one-click sign-in and `login_hint` without a password) with
 * users `alice` / `wonderland` and `bob` / `builder`, a public SPA client `spa`, a confidential
 * web client `web` (secret `web-secret-of-the-demo-Zq7Xk2Lm9Vb4`; back-channel logout at
 * `http://127.0.0.1:3000/auth/backchannel-logout`, with `sid`) and a client-credentials client `service`
 * (secret `service-secret`).
 * Returns a fresh object each call, so callers may modify it.
 *
 * @example
 * const config = demoConfig();
 * config.tenants[0]!.clients![0]!.skip_consent = true;
 * const server = await createReferenceServer(config);
 */
export function demoConfig(): ServerConfig {
  const userScopes = ['openid', 'profile', 'email', 'offline_access', 'api.read'];
  // The example API (apps/node-example's /api): the one RFC 8707 resource the demo clients may ask tokens for.
  const resources = ['http://127.0.0.1:3000/api', 'http://localhost:3000/api'];
  return {
    tenants: [
      {
        id: 'demo',
        name: 'oidc-rp demo',
        development: true,
        demo_login: true,
        signing_alg: 'RS256',
        access_token_format: 'opaque',
        lifetimes: { authorization_code: 60, access_token: 3600, id_token: 3600, refresh_token: 2_592_000 },
        users: [
          {
            username: 'alice',
            password: 'wonderland',
            claims: { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com', email_verified: true },
          },
          {
            username: 'bob',
            password: 'builder',
            claims: { sub: 'bob', name: 'Bob Builder', email: 'bob@example.com', email_verified: true },
          },
        ],
        clients: [
          {
            client_id: 'spa',
            client_name: 'React example (SPA)',
            redirect_uris: ['http://127.0.0.1:5173/callback', 'http://localhost:5173/callback'],
            post_logout_redirect_uris: ['http://127.0.0.1:5173/', 'http://localhost:5173/'],
            grant_types: ['authorization_code', 'refresh_token', 'implicit'],
            response_types: ['code', 'id_token token'],
            scopes: userScopes,
            skip_consent: false,
            resources,
          },
          {
            client_id: 'web',
            client_name: 'Server-side example',
            client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
            redirect_uris: ['http://127.0.0.1:3000/callback', 'http://localhost:3000/callback'],
            post_logout_redirect_uris: ['http://127.0.0.1:3000/'],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code', 'code id_token', 'code token', 'code token id_token', 'id_token'],
            scopes: userScopes,
            skip_consent: false,
            resources,
            // The example's protected API (/api) introspects tokens issued for it as this client.
            introspection_audiences: ['http://127.0.0.1:3000/api'],
            // The example's back-channel logout route (the node session layer's default path): a
            // logout at the provider ends the example's session too.
            backchannel_logout_uri: 'http://127.0.0.1:3000/auth/backchannel-logout',
            backchannel_logout_session_required: true,
          },
          {
            client_id: 'service',
            client_name: 'Service (client credentials)',
            client_secret: 'service-secret',
            grant_types: ['client_credentials'],
            response_types: [],
            scopes: ['api.read', 'api.write'],
            resources,
          },
        ],
      },
    ],
  };
}
