/**
 * Which user claims each scope releases: the standard mapping (OIDC Core 5.4) plus the tenant's
 * `scope_claims`; and what scopes mean to a person.
 */
import type { Tenant, User } from '../config/model';

const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: [
    'name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile',
    'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** Standard scopes about the user; a client-credentials token cannot have them. */
export const USER_SCOPES: ReadonlySet<string> = new Set(['openid', 'offline_access', ...Object.keys(SCOPE_CLAIMS)]);

/** Every claim name a scope can release, for discovery's `claims_supported`. */
export const SCOPE_CLAIM_NAMES: readonly string[] = Object.values(SCOPE_CLAIMS).flat();

/**
 * The user's claims released by the granted scopes, standard and the tenant's custom ones;
 * always includes `sub`.
 *
 * @example
 * releasedClaims(tenant, user, ['openid', 'email', 'roles']); // { sub, email, email_verified, roles }
 */
export function releasedClaims(tenant: Tenant, user: User, scopes: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { sub: user.claims.sub };
  for (const scope of scopes) {
    for (const name of [...(SCOPE_CLAIMS[scope] ?? []), ...(tenant.scope_claims.get(scope) ?? [])]) {
      if (user.claims[name] !== undefined) out[name] = user.claims[name];
    }
  }
  return out;
}

/**
 * The scopes that release `claim` in this tenant: its standard scope (OIDC Core 5.4), or the
 * tenant's `scope_claims` entries that list it; empty when no scope does.
 *
 * @example
 * scopesReleasing(tenant, 'email'); // ['email']
 */
export function scopesReleasing(tenant: Tenant, claim: string): string[] {
  const standard = Object.keys(SCOPE_CLAIMS).filter((scope) => SCOPE_CLAIMS[scope]?.includes(claim));
  const custom = [...tenant.scope_claims].filter(([, names]) => names.includes(claim)).map(([scope]) => scope);
  return [...new Set([...standard, ...custom])];
}

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  openid: 'Sign you in and know who you are',
  profile: 'Your name and basic profile',
  email: 'Your email address',
  address: 'Your postal address',
  phone: 'Your phone number',
  offline_access: 'Stay signed in and access your data while you are away',
};

/**
 * A short explanation of a scope for the consent page.
 *
 * @example
 * describeScope('email'); // 'Your email address'
 */
export function describeScope(scope: string): string {
  return DESCRIPTIONS[scope] ?? `Access to ${scope}`;
}
