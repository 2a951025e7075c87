/**
 * The FAPI 2.0 Security Profile as a preset of `createNodeClient` options: pushed authorization
 * requests, PKCE S256, `private_key_jwt`, DPoP-bound tokens, RFC 9207 `iss` in every
 * authorization response, and PS256, ES256 or EdDSA only (client assertions, DPoP proofs, ID
 * tokens). What the profile forbids is refused: as an option when the client is created, and in
 * the provider's metadata at the first call that reads it.
 */

import { OidcError, privateKeyJwt } from '@oidc-rp/core';
import { invalidOptions } from '@oidc-rp/core/internal';
import type { ClientAuth, DpopHandle, ProviderMetadata } from '@oidc-rp/core';
import type { NodeClientOptions } from './options';
import { messageSigningOptions } from './fapi2-message-signing';

/** The signing algorithms FAPI 2.0 allows (FAPI 2.0 Security Profile 5.4). */
export type Fapi2Algorithm = 'PS256' | 'ES256' | 'EdDSA';

const ALGORITHMS: readonly string[] = ['PS256', 'ES256', 'EdDSA'];
/** Options the profile decides; giving one is refused. */
const FIXED = ['clientSecret', 'clientAuth', 'authMethod', 'pkce', 'par', 'responseType', 'responseMode'] as const;
const FAPI2 = Symbol.for('oidc-rp.fapi2');
// The mark of a Message Signing preset.
const MESSAGE_SIGNING = 'message-signing';
// The client authentications fapi2() made: a profile client must use one of them.
const made = new WeakSet<ClientAuth>();

/** Input of {@link fapi2}: the client's options without those the profile fixes, plus its private key and DPoP handle. */
export interface Fapi2Options extends Omit<NodeClientOptions, (typeof FIXED)[number] | 'dpop'> {
  /** The client's private key for `private_key_jwt`: a private JWK (with `d`) or a private `CryptoKey`. */
  privateKey: (JsonWebKey & { kid?: string }) | CryptoKey;
  /** The key's id in the client's registered JWKS. Default: the JWK's `kid`. */
  kid?: string;
  /** Default: the key's (ES256 for P-256, EdDSA for Ed25519, PS256 for RSA). */
  alg?: Fapi2Algorithm;
  /** Sender-constrained tokens (FAPI 2.0 5.3.2.2): a handle from `dpop()`, its key PS256, ES256 or EdDSA. */
  dpop: DpopHandle;
  /**
   * FAPI 2.0 Message Signing, both halves: every login's parameters go in a request object
   * signed with `privateKey` (PS256, ES256 or EdDSA), pushed as the PAR body's `request`; and
   * every login asks for a JARM response (`query.jwt`), whose JWT the provider must sign PS256,
   * ES256 or EdDSA (listing one in `authorization_signing_alg_values_supported`). Default false.
   */
  messageSigning?: boolean;
}

/**
 * `createNodeClient` options for the FAPI 2.0 Security Profile. Every login is pushed (PAR),
 * uses PKCE S256 and `dpop_jkt`; the client authenticates with `private_key_jwt`; tokens are
 * DPoP-bound. At the first call the provider's metadata must offer PAR, RFC 9207 `iss`,
 * `private_key_jwt` and S256 (when it lists methods), and a FAPI algorithm for ID tokens; ID
 * tokens signed otherwise are refused. Refusals are `invalid_options` (the app's settings) or
 * `invalid_provider_metadata` (the provider's), each naming the rule.
 *
 * @example
 * ```ts
 * const client = createNodeClient(fapi2({
 *   issuer: 'https://bank.example.com',
 *   clientId: 'fintech-app',
 *   privateKey: JSON.parse(process.env.CLIENT_PRIVATE_JWK!) as JsonWebKey,
 *   dpop: await dpop(),
 *   redirectUri: 'https://app.example.com/callback',
 *   cookieSecret: process.env.COOKIE_SECRET!,
 * }));
 * ```
 */
export function fapi2(options: Fapi2Options): NodeClientOptions {
  if (typeof options !== 'object' || options === null) throw invalidOptions('fapi2() needs the client options.');
  for (const name of FIXED) {
    if (name in options) {
      throw invalidOptions(
        `FAPI 2.0 decides \`${name}\`: leave it out (logins are pushed, use PKCE S256 and the code flow; the client authenticates with privateKey, never a secret).`,
      );
    }
  }
  if (options.alg !== undefined && !ALGORITHMS.includes(options.alg)) throw invalidOptions('FAPI 2.0 allows alg PS256, ES256 or EdDSA only.');
  checkDpop(options.dpop);
  const { privateKey, kid, alg, messageSigning, ...rest } = options;
  if (messageSigning !== undefined && typeof messageSigning !== 'boolean') throw invalidOptions('messageSigning must be true or false.');
  const sign = privateKeyJwt(privateKey, { ...(kid !== undefined ? { kid } : {}), ...(alg !== undefined ? { alg } : {}) });
  const clientAuth: ClientAuth = async (request) => {
    await sign(request);
    const header = JSON.parse(atob((request.body.get('client_assertion') ?? '').split('.')[0]?.replace(/-/g, '+').replace(/_/g, '/') ?? '')) as { alg?: string };
    if (!ALGORITHMS.includes(header.alg ?? '')) {
      request.body.delete('client_assertion');
      throw invalidOptions(`FAPI 2.0 allows PS256, ES256 or EdDSA, and the key signs ${String(header.alg)}: use another key, or alg.`);
    }
  };
  made.add(clientAuth);
  // Message Signing: the signed request object (PAR) and JARM responses.
  const signing = messageSigning ? messageSigningOptions(privateKey, kid, alg) : {};
  const preset = {
    ...rest,
    ...signing,
    clientAuth,
    par: true,
    pkce: true,
    responseType: 'code',
    responseMode: messageSigning ? 'query.jwt' : 'query',
    [FAPI2]: messageSigning ? MESSAGE_SIGNING : true,
  };
  return preset as NodeClientOptions;
}

/**
 * Whether `options` come from {@link fapi2} (spreading them keeps the mark); refuses them when
 * something the profile fixes was changed afterwards. Internal.
 */
export function isFapi2(options: NodeClientOptions): boolean {
  const mark = (options as { [FAPI2]?: unknown })[FAPI2];
  if (mark !== true && mark !== MESSAGE_SIGNING) return false;
  const mode = mark === MESSAGE_SIGNING ? 'query.jwt' : 'query';
  const { clientAuth, par, pkce, responseType, responseMode, clientSecret, authMethod } = options;
  if (!clientAuth || !made.has(clientAuth) || clientSecret !== undefined || authMethod !== undefined) {
    throw invalidOptions('FAPI 2.0 authenticates the client with privateKey (private_key_jwt): keep the clientAuth fapi2() made, and no clientSecret.');
  }
  if (par !== true || pkce !== true || responseType !== 'code' || (responseMode ?? 'query') !== mode) {
    throw invalidOptions(`FAPI 2.0 fixes par: true, pkce: true and the code flow with response mode ${mode}: do not override them after fapi2().`);
  }
  if (mark === MESSAGE_SIGNING && !options.requestObject?.signer) {
    throw invalidOptions('FAPI 2.0 Message Signing signs every request object: keep the requestObject fapi2({ messageSigning: true }) made.');
  }
  checkDpop(options.dpop);
  return true;
}

/** Whether `options` are a {@link fapi2} preset with `messageSigning`. Internal. */
export function isFapi2MessageSigning(options: NodeClientOptions): boolean {
  return (options as { [FAPI2]?: unknown })[FAPI2] === MESSAGE_SIGNING;
}

/** A pinned `signingAlgorithm` must be one FAPI 2.0 allows. Internal. */
export function checkFapi2Algorithm(signingAlgorithm: string): void {
  if (!ALGORITHMS.includes(signingAlgorithm)) throw invalidOptions(`FAPI 2.0 allows ID tokens signed PS256, ES256 or EdDSA, not ${signingAlgorithm}: fix signingAlgorithm.`);
}

function checkDpop(handle: DpopHandle | undefined): void {
  if (!handle || typeof handle !== 'object') {
    throw invalidOptions('FAPI 2.0 needs sender-constrained tokens: pass dpop: await dpop() (ES256).');
  }
  if (!ALGORITHMS.includes(handle.alg)) throw invalidOptions(`FAPI 2.0 allows DPoP keys for PS256, ES256 or EdDSA, not ${handle.alg}.`);
}

const checked = new WeakMap<ProviderMetadata, ProviderMetadata>();
const checkedForMessageSigning = new WeakMap<ProviderMetadata, ProviderMetadata>();

/**
 * The provider's metadata checked against FAPI 2.0, with `id_token_signing_alg_values_supported`
 * narrowed to the profile's algorithms (so an ID token signed otherwise is refused). Internal.
 */
export function fapi2Provider(provider: ProviderMetadata, messageSigning = false): ProviderMetadata {
  const cache = messageSigning ? checkedForMessageSigning : checked;
  const known = cache.get(provider);
  if (known) return known;
  const refuse = (rule: string): never => {
    throw new OidcError('invalid_provider_metadata', `The provider does not meet FAPI 2.0: ${rule}. Check its configuration, or do not use fapi2().`);
  };
  if (typeof provider.pushed_authorization_request_endpoint !== 'string') refuse('it has no pushed_authorization_request_endpoint (PAR)');
  if (provider.authorization_response_iss_parameter_supported !== true) refuse('it does not send "iss" in authorization responses (RFC 9207)');
  const methods = provider.token_endpoint_auth_methods_supported;
  if (Array.isArray(methods) && !methods.includes('private_key_jwt')) refuse('it does not list private_key_jwt');
  const challenges = provider.code_challenge_methods_supported;
  if (Array.isArray(challenges) && !challenges.includes('S256')) refuse('it does not list PKCE S256');
  const advertised = provider.id_token_signing_alg_values_supported;
  const idTokenAlgs = (Array.isArray(advertised) ? advertised : ['RS256']).filter((alg) => ALGORITHMS.includes(alg));
  if (idTokenAlgs.length === 0) refuse('it signs ID tokens with none of PS256, ES256, EdDSA');
  const assertionAlgs = provider.token_endpoint_auth_signing_alg_values_supported;
  // Message Signing: JARM responses signed with a FAPI algorithm only (the JARM default, RS256, is not one).
  const jarmAdvertised = provider.authorization_signing_alg_values_supported;
  const jarmAlgs = (Array.isArray(jarmAdvertised) ? jarmAdvertised : []).filter((alg) => ALGORITHMS.includes(alg));
  if (messageSigning && jarmAlgs.length === 0) refuse('it signs JARM responses with none of PS256, ES256, EdDSA (authorization_signing_alg_values_supported)');
  const narrowed: ProviderMetadata = {
    ...provider,
    id_token_signing_alg_values_supported: idTokenAlgs,
    ...(Array.isArray(assertionAlgs) ? { token_endpoint_auth_signing_alg_values_supported: assertionAlgs.filter((alg) => ALGORITHMS.includes(alg)) } : {}),
    ...(messageSigning ? { authorization_signing_alg_values_supported: jarmAlgs } : {}),
  };
  cache.set(provider, narrowed);
  return narrowed;
}
