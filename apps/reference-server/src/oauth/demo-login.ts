/**
 * Signing in without a password, for demos and browser tests: only in development tenants
 * that opt in with `demo_login` (the config refuses the flag anywhere else).
 */
import type { Tenant, User } from '../config/model';

/**
 * The user a development tenant with `demo_login` signs in without a password, or undefined
 * (no such user, no name, or the tenant does not opt in).
 *
 * @example
 * const hinted = demoUser(ctx.tenant, interaction.request.loginHint);
 * if (hinted) return signIn(ctx, id, interaction, hinted);
 */
export function demoUser(tenant: Tenant, username: string | undefined): User | undefined {
  if (!tenant.development || !tenant.demo_login || username === undefined) return undefined;
  return tenant.users.get(username);
}
