/**
 * Turns what a backend receives at its callback route into the input core's response
 * parser takes: the URL of a GET (query response) or the form body of a POST (form_post).
 * The protocol checks themselves (state, iss, error, tokens) all happen in core.
 */

import { OidcError } from '@oidc-rp/core';
import { readBoundedBody } from '@oidc-rp/core/internal';
import type { ResponseMode } from '@oidc-rp/core';

/**
 * What `finishLogin` accepts: the callback `Request`, its URL, or a form_post body.
 *
 * @example
 * ```ts
 * await client.finishLogin(request, tx);                              // GET (query) or POST (form_post) Request
 * await client.finishLogin(`https://app.example.com${req.url}`, tx);  // the callback URL
 * await client.finishLogin(new URLSearchParams(req.body), tx);        // a form_post body parsed by your framework
 * ```
 */
export type CallbackInput = Request | URL | string | URLSearchParams;

/** The parameters of a callback request and the response mode its HTTP method implies. */
export interface CallbackParams {
  params: URL | URLSearchParams;
  mode: 'query' | 'form_post';
}

// A callback body is a handful of short parameters; anything bigger is not one.
const MAX_FORM_BYTES = 64 * 1024;

/** Reads a callback `Request`: GET → its URL (query response), POST → its form body (form_post). */
export async function readCallbackRequest(request: Request): Promise<CallbackParams> {
  if (request.method === 'GET') return { params: new URL(request.url), mode: 'query' };
  if (request.method !== 'POST') {
    throw new OidcError(
      'authorization_response_invalid',
      `A login callback arrives as GET (query) or POST (form_post), not ${request.method}.`,
    );
  }
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OidcError(
      'authorization_response_invalid',
      'A form_post callback must have Content-Type application/x-www-form-urlencoded.',
    );
  }
  if (request.bodyUsed) {
    throw new OidcError(
      'authorization_response_invalid',
      'The callback request body was already read (by a body parser?); pass the parsed form as URLSearchParams instead of the Request.',
    );
  }
  return { params: new URLSearchParams(await readCappedBody(request)), mode: 'form_post' };
}

/**
 * The body as UTF-8 text, read with core's bounded reader: abandoned as soon as it passes
 * MAX_FORM_BYTES, so a huge unauthenticated POST is never buffered.
 */
async function readCappedBody(request: Request): Promise<string> {
  const bytes = await readBoundedBody(request, MAX_FORM_BYTES);
  if (!bytes) {
    throw new OidcError(
      'authorization_response_invalid',
      `The form_post callback body is over ${MAX_FORM_BYTES / 1024} KiB, too large to be an authorization response; reading stopped there.`,
    );
  }
  return new TextDecoder().decode(bytes);
}

/**
 * Rejects a callback that did not arrive the way the login's response mode sends it. A fragment
 * response arrives as the POST of the relay page (see fragment-relay.ts), or as a GET whose query
 * carries an error (a provider that cannot use the fragment); core refuses tokens in that query.
 */
export function assertCallbackMode(received: CallbackParams['mode'], expected: ResponseMode): void {
  if (received === expected || expected === 'fragment') return;
  throw new OidcError(
    'authorization_response_invalid',
    `The callback came as ${received === 'query' ? 'a GET with a query' : 'a form POST'} but the login used ` +
      `response mode "${expected}"; the response did not come from this login's provider redirect.`,
  );
}
