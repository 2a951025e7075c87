// The @oidc-rp/browser usage with the hybridFlow part (code and ID token in the fragment).
import { createBrowserClient, hybridFlow, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({
  ...options,
  provider: serviceProvider('https://id.example.com/acme'),
  implicitFlow: hybridFlow('code token id_token'),
});
export const { login, handleCallback, getAccessToken, logout } = usage(client);
