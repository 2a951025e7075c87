/**
 * A person's browser, reduced to what the interoperability suite needs: follow redirects with
 * cookies, and let the caller decide what to do on each HTML page (submit a form, or stop).
 */
import type { CookieJar } from '@oidc-rp/reference-server/testing';

/** What to do with a page: submit a form (POST) to `action`, or stop with `result`. */
export type PageAction<T> = { submit: URL; form: URLSearchParams } | { result: T };

/**
 * Walks from `start` until a redirect leaves the provider (`onProvider(url)` false: that URL is
 * returned) or `onPage` stops; at most `maxSteps` requests.
 *
 * @example
 * const back = await walk(url, jar, (u) => u.origin === issuer, (page, status, at) => ({ result: page }), 6);
 */
export async function walk<T>(
  start: URL,
  cookies: CookieJar,
  onProvider: (url: URL) => boolean,
  onPage: (page: string, status: number, url: URL) => PageAction<T>,
  maxSteps: number,
): Promise<{ redirect: string } | { result: T }> {
  let url = start;
  let form: URLSearchParams | undefined;
  for (let step = 0; step < maxSteps; step += 1) {
    const headers = new Headers();
    const cookie = cookies.header(url);
    if (cookie) headers.set('cookie', cookie);
    if (form) headers.set('content-type', 'application/x-www-form-urlencoded');
    const response = await fetch(url, { method: form ? 'POST' : 'GET', headers, body: form, redirect: 'manual' });
    cookies.store(url, response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      form = undefined;
      if (!onProvider(url)) return { redirect: url.href };
      continue;
    }
    const action = onPage(await response.text(), response.status, url);
    if ('result' in action) return action;
    url = action.submit;
    form = action.form;
  }
  throw new Error(`the provider did not send the browser back within ${maxSteps} steps (from ${start.pathname})`);
}

/** Decodes the HTML entities that appear in attribute values. */
export function decodeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|quot|lt|gt);/gi, (_, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(Number(lower.slice(1)));
    return ({ amp: '&', quot: '"', lt: '<', gt: '>' } as Record<string, string>)[lower] ?? '';
  });
}

/** The target of a page's first form, resolved against the page URL. */
export function formAction(page: string, at: URL, pattern = /<form[^>]*action="([^"]+)"/): URL | undefined {
  const action = pattern.exec(page)?.[1];
  return action === undefined ? undefined : new URL(decodeHtml(action), at);
}
