// The @oidc-rp/browser usage with the implicitFlow part (deprecated flow: tokens in the fragment).
import { createBrowserClient, implicitFlow, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({
  ...options,
  provider: serviceProvider('https://id.example.com/acme'),
  scope: 'openid profile email',
  implicitFlow,
});
export const { login, handleCallback, getAccessToken, logout } = usage(client);
