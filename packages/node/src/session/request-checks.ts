/**
 * The checks on what a browser sends to the auth routes: a return path that stays on this
 * origin, and a state-changing request (the logout POST, the app's own forms) that is the app's
 * own. Internal.
 */

/** A local path to return to, or undefined: never another origin (no open redirect). */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return undefined;
  // Control characters could split a header or be read as another URL by a browser.
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return undefined;
  }
  return value;
}

/** Why a state-changing request (the logout POST) is refused, or undefined when it is the app's own. */
export async function crossSiteRefusal(request: Request, appOrigin: URL, csrf: string | undefined): Promise<string | undefined> {
  if (request.headers.get('sec-fetch-site') === 'cross-site') return 'The request came from another site.';
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== appOrigin.origin) return 'The request came from another origin.';
  if (csrf === undefined) return undefined; // no session: nothing to protect
  let token = request.headers.get('x-csrf-token');
  if (token === null && request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded') {
    const body = await request.text();
    if (body.length <= 4096) token = new URLSearchParams(body).get('csrf_token');
  }
  if (token === null || !equalStrings(token, csrf)) {
    return 'The request did not carry this session\u2019s csrf token; use the buttons of the app.';
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
