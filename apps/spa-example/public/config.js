// Runtime settings for the example, read by src/config.ts. Every key is optional and overrides the
// build-time value (VITE_OIDC_* variables). Replace this file when deploying, e.g.:
// window.__OIDC_CONFIG__ = { issuer: 'https://id.example.com/acme', clientId: 'spa', tokenStorage: 'memory' };
