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
