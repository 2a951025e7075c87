// The @oidc-rp/browser usage with the par part: each login pushed (RFC 9126), the browser sent with client_id and request_uri only.
import { createBrowserClient, par, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({
  ...options,
  provider: serviceProvider('https://id.example.com/acme', { pushed_authorization_request_endpoint: 'https://id.example.com/acme/oauth/par' }),
  par: par(),
});
export const { login, handleCallback, getAccessToken, logout } = usage(client);
