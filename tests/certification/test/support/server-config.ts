/**
 * The reference server as the suite's fake providers: one tenant per kind of provider the
 * modules need. Clients are registered per module run through the control API (each run its
 * own client, with the module's fault), so one server serves a whole test file.
 */
import type { ServerConfig } from '@oidc-rp/reference-server';
import type { Tenant } from '../../src/modules';

import { SCOPE } from '@oidc-rp/conformance/support/config';

export const USER = { username: 'alice', password: 'wonderland' };
/** The scopes every client of the runs may ask for (the conformance suite's). */
export const SCOPE_LIST = SCOPE.split(' ');

const users = [{ ...USER, claims: { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com', email_verified: true } }];
const scopes = SCOPE_LIST;

/** The client each mismatch tenant is configured with: its fault spoils the tenant's discovery document. */
export const MISMATCH_CLIENT = 'discovery-issuer-mismatch';

/**
 * The tenants: `oidcc` (RS256, as the OIDCC plans' provider), `fapi` (ES256, DPoP server nonces,
 * as the FAPI 2.0 plan's), `fapi-no-nonce`, and a discovery-issuer-mismatch tenant of each kind.
 * Development tenants: the apps of the runs live on http://127.0.0.1.
 *
 * @example
 * const server = await createReferenceServer(certificationConfig(), { logger: false });
 */
export function certificationConfig(): ServerConfig {
  const mismatchClient = { client_id: MISMATCH_CLIENT, redirect_uris: ['http://127.0.0.1:3000/callback'], scopes, fault: 'discovery_issuer_mismatch' as const };
  const tenants: Record<Tenant, ServerConfig['tenants'][number]> = {
    oidcc: { id: 'oidcc', development: true, users },
    'oidcc-mismatch': { id: 'oidcc-mismatch', development: true, users, clients: [mismatchClient] },
    fapi: { id: 'fapi', development: true, users, signing_alg: 'ES256', dpop_nonce: true },
    'fapi-no-nonce': { id: 'fapi-no-nonce', development: true, users, signing_alg: 'ES256' },
    'fapi-mismatch': { id: 'fapi-mismatch', development: true, users, signing_alg: 'ES256', clients: [mismatchClient] },
  };
  return { tenants: Object.values(tenants) };
}
