// A browser over real HTTP for the attack tests: a cookie jar, manual redirects, and the
// login forms' hidden fields.
import { CookieJar } from '../../src/testing';

export interface Browser {
  jar: CookieJar;
  /** GET (or POST with `form`) with this browser's cookies; `headers` are sent as given. */
  go(url: string | URL, init?: { form?: Record<string, string>; headers?: Record<string, string> }): Promise<Response>;
}

export function browser(jar = new CookieJar(), fetchImpl: (request: Request) => Promise<Response> = (r) => fetch(r)): Browser {
  return {
    jar,
    async go(url, init = {}) {
      const target = new URL(url);
      const headers = new Headers(init.headers);
      const cookie = jar.header(target);
      if (cookie && !headers.has('cookie')) headers.set('cookie', cookie);
      if (init.form) headers.set('content-type', 'application/x-www-form-urlencoded');
      const res = await fetchImpl(
        new Request(target, {
          method: init.form ? 'POST' : 'GET',
          headers,
          redirect: 'manual',
          ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
        }),
      );
      jar.store(target, res);
      return res;
    },
  };
}

/** The hidden `interaction` and `csrf` fields of a login or consent page. */
export function hiddenFields(page: string): { interaction: string; csrf: string } {
  const interaction = /name="interaction" value="([^"]+)"/.exec(page)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!interaction || !csrf) throw new Error('no hidden fields on the page');
  return { interaction, csrf };
}

/** Follows `/authorize` to the login page; returns its fields and the login form's URL. */
export async function openLogin(b: Browser, authorize: URL): Promise<{ interaction: string; csrf: string; action: string; text: string }> {
  const start = await b.go(authorize);
  if (start.status !== 302) throw new Error(`authorize answered ${start.status}`);
  const page = await b.go(start.headers.get('location') ?? '');
  const text = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(text)?.[1];
  if (!action) throw new Error(`no login form (status ${page.status})`);
  return { ...hiddenFields(text), action, text };
}

export function redirectTo(res: Response): URL {
  if (res.status !== 302) throw new Error(`expected a redirect, got ${res.status}`);
  return new URL(res.headers.get('location') ?? '');
}
