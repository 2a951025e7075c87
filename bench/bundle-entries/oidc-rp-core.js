// @oidc-rp/core (+ jose) alone: the functions an SPA's flow needs (what @oidc-rp/browser calls).
export {
  serviceProvider,
  buildAuthorizationRequest,
  completeCodeAuthorization,
  refreshTokens,
  none,
  revokeToken,
  buildEndSessionUrl,
  isOidcError,
} from '@oidc-rp/core';
