/** The guard as Hono middleware (typed structurally: this package does not import Hono). */

import type { AccessTokenClaims, VerifiedAccessToken } from '@oidc-rp/core/api';
import { type AccessTokenGuard, withHeaders } from '../middleware';

/** The context variable the middleware sets: `new Hono<{ Variables: AccessTokenVariables }>()`, then `c.get('accessToken')`. */
export type AccessTokenVariables<C extends AccessTokenClaims = AccessTokenClaims> = { accessToken: VerifiedAccessToken<C> };

/** What the middleware uses of Hono's `Context`. */
export interface HonoContextLike {
  req: { raw: Request };
  set: (...args: never[]) => void;
  /** The answer after the handlers ran: the guard's CORS headers are added to it. */
  res?: Response;
}

/**
 * Hono middleware: a refused request gets the guard's answer; otherwise the verified token is
 * `c.get('accessToken')` in the handlers after it. With the guard's `cors` option, `app.use` it
 * (every method) so it answers the browser's `OPTIONS` preflights too.
 *
 * @example
 * ```ts
 * const app = new Hono<{ Variables: AccessTokenVariables }>();
 * app.use('/api/*', honoAccessToken(guard));
 * app.get('/api/me', (c) => c.json({ sub: c.get('accessToken').claims.sub }));
 * ```
 */
export function honoAccessToken<C extends AccessTokenClaims>(guard: AccessTokenGuard<C>) {
  return async (c: HonoContextLike, next: () => Promise<void>): Promise<Response | undefined> => {
    const result = await guard(c.req.raw);
    if (!result.ok) return result.response;
    (c.set as (key: 'accessToken', value: VerifiedAccessToken<C>) => void).call(c, 'accessToken', result.token);
    await next();
    if (c.res && Object.keys(result.headers).length > 0) c.res = withHeaders(c.res, result.headers);
    return undefined;
  };
}
