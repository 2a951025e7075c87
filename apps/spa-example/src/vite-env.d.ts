/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Issuer of the tenant to log in with. Default `http://127.0.0.1:4000/demo` (`pnpm demo`). */
  readonly VITE_OIDC_ISSUER?: string;
  /** Default `spa`, the demo tenant's public client. */
  readonly VITE_OIDC_CLIENT_ID?: string;
  /** `memory` (default), `sessionStorage` or `indexedDB`. */
  readonly VITE_OIDC_TOKEN_STORAGE?: string;
}
