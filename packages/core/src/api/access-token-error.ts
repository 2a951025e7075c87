/**
 * The contract between a resource server's token verifiers (JWT access tokens, DPoP-bound
 * tokens, introspection) and the HTTP layer that turns their failures into RFC 6750 / RFC 9449
 * `WWW-Authenticate` challenges. Verifiers see plain data, so they run in any runtime.
 */

import { OidcError, type OidcErrorCode } from '../errors';

/** What a verifier needs from one HTTP request to a protected resource. */
export interface ResourceRequest {
  /** The HTTP method, upper case (`GET`, `POST`). */
  method: string;
  /**
   * The absolute URL of the request, built from the API's configured public origin and the
   * request's path and query. Never built from the `Host` header: a DPoP proof's `htu` is
   * checked against it.
   */
  url: string;
  /** The `Authorization` header, or `null` when absent. */
  authorization: string | null;
  /** The `DPoP` header, or `null` when absent. */
  dpop: string | null;
}

/** Claims of an access token (RFC 9068 §2.2), or of an introspection answer (RFC 7662 §2.2). */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat?: number;
  nbf?: number;
  jti?: string;
  client_id?: string;
  scope?: string;
  /** RFC 9449 §6: the thumbprint of the DPoP key the token is bound to. */
  cnf?: { jkt?: string };
  [claim: string]: unknown;
}

/** A token that passed every check, with what the handler needs. */
export interface VerifiedAccessToken<C extends AccessTokenClaims = AccessTokenClaims> {
  claims: C;
  /** `DPoP` when the token is bound to a key and the request proved possession of it. */
  scheme: 'Bearer' | 'DPoP';
  /** The token's scopes, from `scope` (space-separated) or `scp`. */
  scopes: readonly string[];
}

/**
 * How a verifier treats DPoP, so that the HTTP layer names the right schemes in its challenges
 * (RFC 9449 §7.1): `required` answers every failure with a `DPoP` challenge, otherwise a request
 * that used `Bearer` gets a `Bearer` one (and a `DPoP` one beside it, since both are accepted).
 */
export interface AccessTokenVerifierDpop {
  /** True when only DPoP-bound tokens presented with a proof are accepted. */
  required: boolean;
  /** The proof algorithms accepted (`algs` of the `DPoP` challenge). */
  algorithms: readonly string[];
}

/**
 * Checks the access token a request carries; throws {@link AccessTokenError} when it fails.
 * `dpop` is set by verifiers that accept DPoP-bound tokens; absent means Bearer only.
 */
export interface AccessTokenVerifier<C extends AccessTokenClaims = AccessTokenClaims> {
  (request: ResourceRequest): Promise<VerifiedAccessToken<C>>;
  readonly dpop?: AccessTokenVerifierDpop;
}

/** The `error` of the challenge the resource server answers with (RFC 6750 §3.1, RFC 9449 §7.1, §9). */
export type AccessTokenChallenge =
  | 'invalid_request'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'use_dpop_nonce'
  | 'invalid_dpop_proof';

/**
 * A request to a protected resource was refused. `code` says which check failed (stable, for
 * logs and tests); `challenge` is what the HTTP layer puts in `WWW-Authenticate` and decides
 * the status (400, 401 or 403).
 */
export class AccessTokenError extends OidcError {
  declare readonly challenge: AccessTokenChallenge;
  /** With `use_dpop_nonce`: the nonce the client must put in its next proof (`DPoP-Nonce`). */
  declare readonly dpopNonce: string | undefined;

  constructor(
    code: OidcErrorCode,
    challenge: AccessTokenChallenge,
    message?: string,
    options?: { dpopNonce?: string; cause?: unknown },
  ) {
    super(code, message, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'AccessTokenError';
    this.challenge = challenge;
    this.dpopNonce = options?.dpopNonce;
  }
}
