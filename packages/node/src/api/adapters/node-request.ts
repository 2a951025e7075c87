/** Node's request shape (`node:http`, Express, Fastify) → the guard's input, and its answer → the response. */

import type { IncomingHttpHeaders } from 'node:http';
import type { AccessTokenAnswer, IncomingResourceRequest } from '../middleware';

/**
 * The parts of a Node request the guard reads. `target` is the path and query as received; the
 * `Host` header is never read.
 */
export function incomingOf(method: string | undefined, target: string | undefined, headers: IncomingHttpHeaders): IncomingResourceRequest {
  return {
    method: method ?? 'GET',
    target: target ?? '',
    authorization: headers.authorization,
    dpop: headers.dpop,
    origin: headers.origin,
    accessControlRequestMethod: headers['access-control-request-method'],
  };
}

/** What the adapters use of a response (Node's `ServerResponse` has it). */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/** Writes a refusal (or a preflight's 204, without a body) to a Node response. */
export function writeAnswer(res: NodeResponseLike, answer: AccessTokenAnswer): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.end(answer.status === 204 ? '' : JSON.stringify(answer.body));
}

/** Sets the headers a verified request's answer carries (the guard's CORS headers). */
export function setHeaders(res: NodeResponseLike, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}
