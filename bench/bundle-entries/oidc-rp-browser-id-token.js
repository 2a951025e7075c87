// The @oidc-rp/browser usage with the idTokenFlow part (sign-in from an ID token in the fragment).
import { createBrowserClient, idTokenFlow, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({
  ...options,
  provider: serviceProvider('https://id.example.com/acme'),
  scope: 'openid profile email',
  implicitFlow: idTokenFlow,
});
export const { login, handleCallback, getAccessToken, logout } = usage(client);
