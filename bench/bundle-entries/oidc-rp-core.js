// @oidc-rp/core (+ jose) alone: the functions an SPA's flow needs (what @oidc-rp/browser calls).
export {
  discover,
  buildAuthorizationRequest,
  completeAuthorization,
  refreshTokens,
  revokeToken,
  buildEndSessionUrl,
  isOidcError,
} from '@oidc-rp/core';
