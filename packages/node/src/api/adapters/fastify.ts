/** The guard as a Fastify hook (typed structurally: this package does not import Fastify). */

import type { IncomingHttpHeaders } from 'node:http';
import type { AccessTokenClaims, VerifiedAccessToken } from '@oidc-rp/core/api';
import type { AccessTokenGuard } from '../middleware';
import { incomingOf } from './node-request';

/** What the hook uses of Fastify's request: its raw target (`url`) and headers. */
export interface FastifyRequestLike {
  method: string;
  /** The target as received (path and query). */
  url: string;
  headers: IncomingHttpHeaders;
  accessToken?: unknown;
}

/** What the hook uses of Fastify's reply. */
export interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(body: string): unknown;
}

/**
 * A Fastify `preHandler` hook: a refused request gets the guard's answer; otherwise the verified
 * token is `request.accessToken`. Declare the property once with
 * `app.decorateRequest('accessToken', null)`. With the guard's `cors` option, route `OPTIONS` to
 * the hook as well (`method: ['GET', 'OPTIONS']`) so it answers the browser's preflights.
 *
 * @example
 * ```ts
 * app.decorateRequest('accessToken', null);
 * app.get('/api/me', { preHandler: fastifyAccessToken(guard) }, async (request) => ({ sub: request.accessToken.claims.sub }));
 * ```
 */
export function fastifyAccessToken<C extends AccessTokenClaims>(guard: AccessTokenGuard<C>) {
  return async (request: FastifyRequestLike, reply: FastifyReplyLike): Promise<unknown> => {
    const result = await guard.check(incomingOf(request.method, request.url, request.headers));
    if (result.ok) {
      if (Object.keys(result.headers).length > 0) reply.headers({ ...result.headers });
      request.accessToken = result.token as VerifiedAccessToken<C>;
      return undefined;
    }
    // Answering from an async hook: send, then return the reply (Fastify's rule).
    const { status, headers, body } = result.answer;
    return reply.code(status).headers(headers).send(status === 204 ? '' : JSON.stringify(body));
  };
}
