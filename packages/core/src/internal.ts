/**
 * `@oidc-rp/core/internal`: what the sibling packages (`@oidc-rp/browser`, `@oidc-rp/node`)
 * share with core and users do not call: URL and option checks every wrapper applies alike, the
 * bounded body reader, and the code-flow-only twins that keep a single-page app's bundle small.
 * Not documented for users and not covered by semver: names here change with any release.
 *
 * @internal
 * @packageDocumentation
 */

export { assertSecureUrl, tryParseUrl, isDiscovered } from './provider/discovery';
export { readBoundedBody } from './http/transport';
export { invalidOptions } from './options';
export { buildCodeAuthorizationRequest, checkRedirectUri, normaliseScope, RESPONSE_TYPES } from './client/authorization-request';
export { completeCodeAuthorization } from './client/authorization-flow';
export { dpopForGeneratedKey } from './client/dpop-proof-maker';
export { checkSigningAlgorithm } from './client/id-token';
export { decodeUnverifiedJwt } from './jose/jwt';
