/** Where the example logs in, read once at start-up. */
export interface ExampleConfig {
  /** The tenant's issuer; discovery runs against it. */
  issuer: string;
  clientId: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
  /**
   * Where the browser client keeps tokens. Default `memory`: nothing for an injected script to
   * read from storage, at the cost of a new (single sign-on) login after a reload.
   * `sessionStorage` survives reloads; `indexedDB` shares one session between tabs.
   */
  tokenStorage: TokenStorage;
  /** The protected resource the "Call API" button calls with the access token. */
  apiUrl: string;
  /**
   * The demo's protected API (the server-side example's `/api/me`) and its RFC 8707 resource
   * identifier, which the login asks the token to be issued for. Defaults: `pnpm demo`'s ports.
   */
  demoApiUrl: string;
  demoApiResource: string;
}

export type TokenStorage = 'memory' | 'sessionStorage' | 'indexedDB';
const TOKEN_STORAGES: readonly string[] = ['memory', 'sessionStorage', 'indexedDB'];

declare global {
  interface Window {
    /** Runtime overrides, set by /config.js (empty by default; the e2e tests serve their own). */
    __OIDC_CONFIG__?: Partial<ExampleConfig>;
  }
}

/**
 * Build-time settings (`VITE_OIDC_*`, defaulting to `pnpm demo`'s reference server), overridden
 * key by key by `window.__OIDC_CONFIG__`, so one build can be pointed at any server.
 */
export function readConfig(): ExampleConfig {
  const runtime = window.__OIDC_CONFIG__ ?? {};
  const env = import.meta.env;
  const issuer = runtime.issuer ?? env.VITE_OIDC_ISSUER ?? 'http://127.0.0.1:4000/demo';
  const tokenStorage = runtime.tokenStorage ?? env.VITE_OIDC_TOKEN_STORAGE ?? 'memory';
  if (!TOKEN_STORAGES.includes(tokenStorage)) {
    throw new Error(`tokenStorage "${tokenStorage}" is not one of ${TOKEN_STORAGES.join(', ')}: fix config.js or VITE_OIDC_TOKEN_STORAGE.`);
  }
  const origin = window.location.origin;
  return {
    issuer,
    clientId: runtime.clientId ?? env.VITE_OIDC_CLIENT_ID ?? 'spa',
    redirectUri: runtime.redirectUri ?? `${origin}/callback`,
    postLogoutRedirectUri: runtime.postLogoutRedirectUri ?? `${origin}/`,
    tokenStorage: tokenStorage as TokenStorage,
    // The service's userinfo endpoint: a resource on another origin that takes the access token.
    apiUrl: runtime.apiUrl ?? `${issuer.replace(/\/+$/, '')}/oidc/userinfo`,
    demoApiUrl: runtime.demoApiUrl ?? 'http://127.0.0.1:3000/api/me',
    demoApiResource: runtime.demoApiResource ?? 'http://127.0.0.1:3000/api',
  };
}
