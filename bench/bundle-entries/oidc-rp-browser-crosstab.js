// The @oidc-rp/browser usage with the crossTab part: tabs share one session in IndexedDB.
import { createBrowserClient, crossTab, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme'), crossTab: crossTab({ storage: 'indexedDB' }) });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
