/**
 * The checks on what a browser sends to the auth routes: a return path that stays on this
 * origin, and a state-changing request (the logout POST, the app's own forms) that is the app's
 * own. Internal.
 */

import { readBoundedBody } from '@oidc-rp/core/internal';

/**
 * The most of a form body the layer reads (the logout POST, `verifyCsrf`): a csrf token is 43
 * characters, so anything near this is not one of the app's forms. Reading stops here.
 */
export const MAX_FORM_BYTES = 16 * 1024;

/**
 * The longest `returnTo` kept. It is sealed into the login's transaction cookie: unbounded, a
 * cross-site link could make that cookie (and every later request of the victim) too large.
 */
export const MAX_RETURN_TO_LENGTH = 2048;

/** A local path to return to, or undefined: never another origin (no open redirect), never longer than MAX_RETURN_TO_LENGTH. */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_RETURN_TO_LENGTH) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return undefined;
  // Control characters could split a header or be read as another URL by a browser.
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return undefined;
  }
  return value;
}

/** Why a state-changing request is refused: 403 (not the app's own) or 413 (a body over MAX_FORM_BYTES). */
export interface Refusal {
  status: 403 | 413;
  message: string;
}

/** Why a state-changing request (the logout POST) is refused, or undefined when it is the app's own. */
export async function crossSiteRefusal(request: Request, appOrigin: URL, csrf: string | undefined): Promise<Refusal | undefined> {
  if (request.headers.get('sec-fetch-site') === 'cross-site') return { status: 403, message: 'The request came from another site.' };
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== appOrigin.origin) return { status: 403, message: 'The request came from another origin.' };
  if (csrf === undefined) return undefined; // no session: nothing to protect
  let token = request.headers.get('x-csrf-token');
  if (token === null && request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded') {
    // Bounded: reading stops (and the stream is cancelled) past the cap, whatever the body's size.
    const body = await readBoundedBody(request, MAX_FORM_BYTES);
    if (!body) return { status: 413, message: `The form is larger than ${MAX_FORM_BYTES / 1024} KiB, more than a sign-out form sends.` };
    token = new URLSearchParams(new TextDecoder().decode(body)).get('csrf_token');
  }
  if (token === null || !equalStrings(token, csrf)) {
    return { status: 403, message: 'The request did not carry this session\u2019s csrf token; use the buttons of the app.' };
  }
  return undefined;
}

/** Compares without stopping at the first difference, so timing reveals nothing about the token. */
function equalStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export function wantsHtml(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}
