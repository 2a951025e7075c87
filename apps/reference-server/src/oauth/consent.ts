/** Remembered consent, per tenant, user and client. */
import type { Client } from '../config/model';
import type { RequestContext } from '../request/context';

function consentKey(ctx: RequestContext, sub: string, clientId: string): string {
  return JSON.stringify([ctx.tenant.id, sub, clientId]);
}

/**
 * Whether the user must be asked before `client` gets `scopes`: never for `skip_consent`
 * clients; always with `prompt=consent`; otherwise when a scope was not granted before.
 *
 * @example
 * const consent = await needsConsent(ctx, client, session.sub, request.scopes, request.prompt);
 */
export async function needsConsent(
  ctx: RequestContext,
  client: Client,
  sub: string,
  scopes: readonly string[],
  prompt: readonly string[],
): Promise<boolean> {
  if (client.skip_consent) return false;
  if (prompt.includes('consent')) return true;
  const granted = (await ctx.server.store.findConsent(consentKey(ctx, sub, client.client_id))) ?? [];
  return scopes.some((s) => !granted.includes(s));
}

/**
 * Remembers that the user granted `scopes` to the client (added to earlier grants).
 *
 * @example
 * await rememberConsent(ctx, interaction.user.sub, client.client_id, interaction.request.scopes);
 */
export async function rememberConsent(ctx: RequestContext, sub: string, clientId: string, scopes: readonly string[]): Promise<void> {
  const key = consentKey(ctx, sub, clientId);
  const granted = (await ctx.server.store.findConsent(key)) ?? [];
  await ctx.server.store.saveConsent(key, [...new Set([...granted, ...scopes])]);
}

/**
 * What the user has granted, per client of the tenant (clients without a grant left out).
 *
 * @example
 * const grants = await grantedConsents(ctx, session.sub); // Map { 'spa' => ['openid', 'profile'] }
 */
export async function grantedConsents(ctx: RequestContext, sub: string): Promise<Map<string, readonly string[]>> {
  const grants = new Map<string, readonly string[]>();
  for (const clientId of ctx.tenant.clients.keys()) {
    const granted = await ctx.server.store.findConsent(consentKey(ctx, sub, clientId));
    if (granted && granted.length > 0) grants.set(clientId, granted);
  }
  return grants;
}

/**
 * Forgets every grant of the user in this tenant, so the next sign-in asks again. (The store
 * has no delete for consent: an empty grant asks for every scope, which is the same.)
 *
 * @example
 * await forgetConsents(ctx, session.sub);
 */
export async function forgetConsents(ctx: RequestContext, sub: string): Promise<void> {
  for (const clientId of (await grantedConsents(ctx, sub)).keys()) {
    await ctx.server.store.saveConsent(consentKey(ctx, sub, clientId), []);
  }
}
