/**
 * `@oidc-rp/core/signed`: signed requests and responses, and the issuer discovery that comes
 * with them in the OpenID Dynamic RP plan: request objects (RFC 9101, also FAPI 2.0 Message
 * Signing's pushed request object), signed userinfo (OpenID Connect Core 5.3.2) and WebFinger
 * issuer discovery (OpenID Connect Discovery 2). An entry of its own so that an app that uses
 * none of them (a single-page app above all) never has them in its module graph.
 *
 * @packageDocumentation
 */

export { fetchSignedUserInfo } from './client/signed-userinfo';
export type { SignedUserInfoParams } from './client/signed-userinfo';
export { createRequestObject, requestObjectSigner, withRequestObject, REQUEST_OBJECT_TYPE } from './client/request-object';
export type { RequestObjectAlgorithm, RequestObjectDelivery, RequestObjectSigner, RequestObjectSignerOptions, WithRequestObjectParams } from './client/request-object';
export { webFingerIssuer, discoverByIdentifier } from './provider/webfinger';
export type { WebFingerOptions } from './provider/webfinger';
