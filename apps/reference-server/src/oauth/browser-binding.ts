/**
 * The browser-binding cookie: ties a sign-in in progress to the browser that started it.
 * Only values this server issued are adopted — a value planted by a sibling origin is replaced
 * by a fresh one — and the value is rotated when the user signs in, so a value someone else
 * learnt never outlives the sign-in.
 */
import { randomToken, storageKey } from '../crypto/secrets';
import type { RequestContext } from '../request/context';
import { BROWSER_COOKIE, cookie, cookieName, readCookie } from './session';

/**
 * How long an issued binding is recognised (the cookie itself has no expiry). After that the
 * next /authorize issues a new one. An hour bounds what a flood of cookie-less requests costs
 * the store, and is far longer than a sign-in (10 minutes).
 */
const BINDING_SECONDS = 3600;
const issued = (key: string): string => `browser-binding:${key}`;

async function issue(ctx: RequestContext): Promise<{ key: string; setCookie: string }> {
  const value = randomToken();
  const key = storageKey(value);
  await ctx.server.store.countHit(issued(key), BINDING_SECONDS);
  return { key, setCookie: cookie(ctx, BROWSER_COOKIE, value) };
}

/**
 * The binding key of the browser making this request, without creating one.
 *
 * @example
 * if (browserKey(ctx) !== interaction.browser) return errorPage(403, '...');
 */
export function browserKey(ctx: RequestContext): string | undefined {
  const existing = readCookie(ctx.request, cookieName(ctx, BROWSER_COOKIE));
  return existing ? storageKey(existing) : undefined;
}

/**
 * The browser's binding key: its cookie if this server issued it, else a fresh one with the
 * `Set-Cookie` value that plants it.
 *
 * @example
 * const { key, setCookie } = await bindBrowser(ctx);
 */
export async function bindBrowser(ctx: RequestContext): Promise<{ key: string; setCookie?: string }> {
  const key = browserKey(ctx);
  if (key !== undefined && (await ctx.server.store.hitCount(issued(key))) > 0) return { key };
  return issue(ctx);
}

/**
 * A new binding for a browser that just signed in; the previous one stops being recognised.
 *
 * @example
 * const { key, setCookie } = await rotateBinding(ctx);
 * headers.append('Set-Cookie', setCookie);
 */
export async function rotateBinding(ctx: RequestContext): Promise<{ key: string; setCookie: string }> {
  const previous = browserKey(ctx);
  if (previous !== undefined) await ctx.server.store.clearHits(issued(previous));
  return issue(ctx);
}
