/**
 * The reference server's configuration for the conformance suites: for every fault, one
 * confidential client (`node.<fault>`, for @oidc-rp/node, with a secret and a key) and one public client
 * (`spa.<fault>`, for @oidc-rp/browser), beside well-behaved ones registered the same way.
 * `discovery_issuer_mismatch` spoils its tenant's discovery document, so it gets a tenant of
 * its own.
 */
import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { FAULTS, type ClientConfig, type Fault, type ServerConfig } from '@oidc-rp/reference-server';

export const TENANT = 'conformance';
export const MISMATCH_TENANT = 'conformance-mismatch';
export const NODE_REDIRECT = 'http://127.0.0.1:3000/callback';
export const SPA_ORIGIN = 'http://127.0.0.1:5173';
export const SPA_REDIRECT = `${SPA_ORIGIN}/callback`;
export const CLIENT_SECRET = 'conformance-client-secret';
export const SCOPE = 'openid profile email offline_access';

export type Wrapper = 'node' | 'spa';

// Every node client is also registered with this key, for the rows whose client authenticates
// with private_key_jwt (a test key made per run; the config stays plain JSON).
const clientKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
/** The private key of every node client, as a JWK (`privateKeyJwt(CLIENT_PRIVATE_JWK)`). */
export const CLIENT_PRIVATE_JWK: JsonWebKey = { ...clientKeys.privateKey.export({ format: 'jwk' }), kid: 'conformance-key', alg: 'ES256' };
const CLIENT_PUBLIC_JWK = { ...clientKeys.publicKey.export({ format: 'jwk' }), kid: 'conformance-key', alg: 'ES256' };

/** The client id of a wrapper's client with `fault`, or of the well-behaved one. */
export function clientId(wrapper: Wrapper, fault?: Fault): string {
  return `${wrapper}.${fault ?? 'well-behaved'}`;
}

/** The tenant a fault's clients live in. */
export function tenantOf(fault?: Fault): string {
  return fault === 'discovery_issuer_mismatch' ? MISMATCH_TENANT : TENANT;
}

/** The well-behaved node client registered for signed userinfo (the counterpart of the signed-userinfo rows). */
export const SIGNED_USERINFO_CLIENT = 'node.well-behaved-signed-userinfo';
const SIGNED_USERINFO_FAULTS: readonly string[] = ['userinfo_signed_wrong_alg', 'userinfo_signed_unknown_key', 'userinfo_signed_wrong_iss', 'userinfo_signed_wrong_aud', 'userinfo_signed_alg_none', 'userinfo_encrypted'];

function clients(fault?: Fault, nodeId = clientId('node', fault)): ClientConfig[] {
  const common = { scopes: SCOPE.split(' '), skip_consent: true, ...(fault ? { fault } : {}) };
  const signed = nodeId === SIGNED_USERINFO_CLIENT || (fault !== undefined && SIGNED_USERINFO_FAULTS.includes(fault));
  return [
    {
      ...(signed ? { userinfo_signed_response_alg: 'RS256' as const } : {}),
      client_id: nodeId,
      client_secret: CLIENT_SECRET,
      jwks: { keys: [CLIENT_PUBLIC_JWK] },
      redirect_uris: [NODE_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code', 'code id_token'],
      ...common,
    },
    {
      client_id: clientId('spa', fault),
      redirect_uris: [SPA_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token', 'implicit'],
      response_types: ['code', 'id_token token', 'code id_token'],
      ...common,
    },
  ];
}

/**
 * The whole configuration (plain JSON, so it can be sent to a server in another process).
 *
 * @example
 * const server = await createReferenceServer(conformanceConfig(), { logger: false });
 */
export function conformanceConfig(): ServerConfig {
  const users = [
    { username: 'alice', password: 'wonderland', claims: { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com', email_verified: true } },
  ];
  const inMain = FAULTS.filter((fault) => tenantOf(fault) === TENANT);
  return {
    tenants: [
      // development: an app on http://127.0.0.1 may register its back-channel logout URI (the logout_token_wrong_alg row).
      {
        id: TENANT,
        development: true,
        users,
        clients: [...clients(), clients(undefined, SIGNED_USERINFO_CLIENT)[0] as ClientConfig, ...inMain.flatMap((fault) => clients(fault))],
      },
      { id: MISMATCH_TENANT, users, clients: clients('discovery_issuer_mismatch') },
    ],
  };
}
