// @oidc-rp/core (+ jose) alone: the functions an SPA's flow needs (what @oidc-rp/browser calls).
export {
  serviceProvider,
  buildAuthorizationRequest,
  refreshTokens,
  none,
  revokeToken,
  buildEndSessionUrl,
  isOidcError,
} from '@oidc-rp/core';
export { completeCodeAuthorization } from '@oidc-rp/core/internal';
