/** The guard as Express middleware (typed structurally: this package does not import Express). */

import type { IncomingHttpHeaders } from 'node:http';
import type { AccessTokenClaims, VerifiedAccessToken } from '@oidc-rp/core/api';
import type { AccessTokenGuard } from '../middleware';
import { type NodeResponseLike, incomingOf, setHeaders, writeAnswer } from './node-request';

/** What the middleware uses of Express's `req`. */
export interface ExpressRequestLike {
  method: string;
  /** The target as received, also under a mounted router. */
  originalUrl: string;
  headers: IncomingHttpHeaders;
}

/** What the middleware uses of Express's `res`: Node's response and `res.locals`. */
export interface ExpressResponseLike extends NodeResponseLike {
  locals: Record<string, unknown>;
}

/**
 * Express middleware: a refused request gets the guard's answer; otherwise the verified token is
 * `res.locals.accessToken` for the handlers after it. The URL is built from the guard's origin
 * and `req.originalUrl`, never from `Host` or `trust proxy` settings. With the guard's `cors`
 * option, mount it for every method (`app.use('/api', expressAccessToken(guard))`) so it answers
 * the browser's `OPTIONS` preflights too.
 *
 * @example
 * ```ts
 * app.get('/api/me', expressAccessToken(guard), (req, res) => {
 *   res.json({ sub: accessTokenOf(res).claims.sub });
 * });
 * ```
 */
export function expressAccessToken<C extends AccessTokenClaims>(guard: AccessTokenGuard<C>) {
  return (req: ExpressRequestLike, res: ExpressResponseLike, next: (error?: unknown) => void): void => {
    guard.check(incomingOf(req.method, req.originalUrl, req.headers)).then((result) => {
      if (!result.ok) return writeAnswer(res, result.answer);
      setHeaders(res, result.headers);
      res.locals.accessToken = result.token;
      next();
    }, next);
  };
}

/**
 * The token {@link expressAccessToken} verified for this response's request.
 *
 * @example
 * ```ts
 * const { claims } = accessTokenOf(res);
 * ```
 */
export function accessTokenOf<C extends AccessTokenClaims = AccessTokenClaims>(res: { locals: Record<string, unknown> }): VerifiedAccessToken<C> {
  const token = res.locals.accessToken;
  if (token === undefined) throw new Error('No verified access token on this response: mount expressAccessToken(guard) before this handler.');
  return token as VerifiedAccessToken<C>;
}
