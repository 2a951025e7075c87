/**
 * Drives the real HTML login from tests: follows the authorize redirect to the login page,
 * fills the forms like a person would (cookies included), and stops at the response meant for
 * the client. Works in-process (`fetch: server.fetch`) and over real HTTP.
 */

interface Cookie {
  name: string;
  value: string;
  host: string;
  path: string;
  expiresAt?: number;
}

/**
 * A minimal cookie jar (host-only cookies, path and Max-Age/Expires honoured), enough to keep
 * the server's session between logins for SSO tests.
 *
 * @example
 * const cookies = new CookieJar();
 * await completeLogin(url1, { fetch: server.fetch, cookies });
 * await completeLogin(url2, { fetch: server.fetch, cookies }); // no password asked: SSO
 */
export class CookieJar {
  private cookies: Cookie[] = [];

  /**
   * Stores the `Set-Cookie` headers of a response received from `url`.
   *
   * @example
   * jar.store(new URL(request.url), response);
   */
  store(url: URL, response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), host: url.host, path: '/' };
      for (const attribute of attributes) {
        const [key = '', value = ''] = attribute.split('=').map((s) => s.trim());
        const name = key.toLowerCase();
        if (name === 'path' && value.startsWith('/')) cookie.path = value;
        if (name === 'max-age') cookie.expiresAt = Date.now() + Number(value) * 1000;
        if (name === 'expires' && cookie.expiresAt === undefined) cookie.expiresAt = Date.parse(value);
      }
      this.cookies = this.cookies.filter((c) => !(c.name === cookie.name && c.host === cookie.host && c.path === cookie.path));
      if (cookie.expiresAt === undefined || cookie.expiresAt > Date.now()) this.cookies.push(cookie);
    }
  }

  /**
   * The `Cookie` header value for a request to `url`, or undefined when no cookie applies.
   *
   * @example
   * const header = jar.header(new URL('http://127.0.0.1:4000/demo/oidc/authorize'));
   */
  header(url: URL): string | undefined {
    const now = Date.now();
    const matching = this.cookies.filter(
      (c) => c.host === url.host && (c.expiresAt === undefined || c.expiresAt > now) && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
    );
    return matching.length > 0 ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  /**
   * The names of the cookies currently held (for assertions).
   *
   * @example
   * expect(jar.names()).toContain('rs_session');
   */
  names(): string[] {
    return this.cookies.map((c) => c.name);
  }
}

/** How {@link completeLogin} should behave. */
export interface CompleteLoginOptions {
  /** Default `alice`. */
  username?: string;
  /** Default `wonderland`. */
  password?: string;
  /** The button pressed on the consent page. Default `allow`. */
  consent?: 'allow' | 'deny';
  /** Default global fetch (real HTTP); pass `server.fetch` for in-process. */
  fetch?: (request: Request) => Promise<Response>;
  /** Reuse across calls for SSO. */
  cookies?: CookieJar;
  /** Submit this many wrong passwords before the right one. */
  failPasswordTimes?: number;
}

/** Where the flow ended: a redirect to the client, or an auto-submitting form_post page. */
export type CompleteLoginResult = { type: 'redirect'; location: string } | { type: 'form_post'; action: string; body: URLSearchParams };

interface Field {
  name: string;
  value: string;
  type: string;
}

interface Form {
  action: URL;
  fields: Field[];
  buttons: Field[];
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|quot|lt|gt|apos);/gi, (_, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(Number(lower.slice(1)));
    return ({ amp: '&', quot: '"', lt: '<', gt: '>', apos: "'" } as Record<string, string>)[lower] ?? '';
  });
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of tag.matchAll(/([a-zA-Z_:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'))?/g)) {
    out[(match[1] ?? '').toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? '');
  }
  return out;
}

function parseForms(page: string, base: URL): Form[] {
  const forms: Form[] = [];
  for (const match of page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attrs = attributes(match[1] ?? '');
    const body = match[2] ?? '';
    const fields = [...body.matchAll(/<input\b([^>]*)>/gi)].map((m) => attributes(m[1] ?? '')).filter((a) => a.name);
    const buttons = [...body.matchAll(/<button\b([^>]*)>/gi)].map((m) => attributes(m[1] ?? '')).filter((a) => a.name);
    forms.push({
      action: new URL(attrs.action ?? base.href, base),
      fields: fields.map((a) => ({ name: a.name ?? '', value: a.value ?? '', type: (a.type ?? 'text').toLowerCase() })),
      buttons: buttons.map((a) => ({ name: a.name ?? '', value: a.value ?? '', type: 'submit' })),
    });
  }
  return forms;
}

function pageMessage(page: string): string {
  const alert = /<p class="error"[^>]*>([\s\S]*?)<\/p>/i.exec(page)?.[1];
  const text = alert ?? /<title>([\s\S]*?)<\/title>/i.exec(page)?.[1] ?? page.slice(0, 200);
  return decodeEntities(text.replace(/<[^>]*>/g, '')).trim();
}

/**
 * Completes an interactive login through the server's real HTML forms.
 *
 * @example
 * const url = `${issuer}/oidc/authorize?response_type=code&client_id=web&redirect_uri=...&scope=openid&state=...`;
 * const result = await completeLogin(url, { fetch: server.fetch });
 * if (result.type === 'redirect') new URL(result.location).searchParams.get('code');
 */
export async function completeLogin(authorizeUrl: string | URL, options: CompleteLoginOptions = {}): Promise<CompleteLoginResult> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const jar = options.cookies ?? new CookieJar();
  const username = options.username ?? 'alice';
  const password = options.password ?? 'wonderland';
  let wrongLeft = options.failPasswordTimes ?? 0;
  const start = new URL(authorizeUrl);
  // The server's interaction pages live next to the authorize endpoint ({base}/oidc/...).
  const serverPrefix = `${start.origin}${start.pathname.replace(/[^/]*$/, '')}`;
  const onServer = (url: URL): boolean => url.href.startsWith(serverPrefix);

  let next: { url: URL; method: 'GET' | 'POST'; body?: URLSearchParams } = { url: start, method: 'GET' };
  for (let step = 0; step < 25; step++) {
    const headers = new Headers();
    const cookie = jar.header(next.url);
    if (cookie) headers.set('cookie', cookie);
    if (next.body) headers.set('content-type', 'application/x-www-form-urlencoded');
    const response = await send(
      new Request(next.url, { method: next.method, headers, redirect: 'manual', ...(next.body ? { body: next.body.toString() } : {}) }),
    );
    jar.store(next.url, response);
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get('location');
      if (!location) throw new Error(`completeLogin: ${response.status} without a Location header at ${next.url.pathname}`);
      const target = new URL(location, next.url);
      if (!onServer(target)) return { type: 'redirect', location: target.href };
      next = { url: target, method: 'GET' };
      continue;
    }
    const page = await response.text();
    const forms = parseForms(page, next.url);
    const formPost = forms.find((f) => !onServer(f.action));
    if (formPost && response.ok) {
      return { type: 'form_post', action: formPost.action.href, body: new URLSearchParams(formPost.fields.map((f) => [f.name, f.value])) };
    }
    const login = forms.find((f) => f.fields.some((field) => field.name === 'password'));
    const consent = forms.find((f) => f.buttons.some((b) => b.name === 'decision'));
    const form = login ?? consent;
    if (!form) throw new Error(`completeLogin: the server answered ${response.status} at ${next.url.pathname}: ${pageMessage(page)}`);
    const body = new URLSearchParams(form.fields.filter((f) => f.type === 'hidden').map((f) => [f.name, f.value]));
    if (login) {
      body.set('username', username);
      body.set('password', wrongLeft > 0 ? `${password}-wrong` : password);
      wrongLeft -= 1;
      body.set('action', 'login');
    } else {
      body.set('decision', options.consent ?? 'allow');
    }
    next = { url: form.action, method: 'POST', body };
  }
  throw new Error('completeLogin: the login did not finish within 25 steps');
}

