// The session layer's pieces without a provider: option checks, the chunked cookie, the
// return-path check, the Node adapter (incl. a body an Express parser already read).
import { type IncomingMessage, createServer } from 'node:http';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type MemorySessionStore, createNodeClient, createSessionAuth, sendWebResponse, serviceProvider, toWebRequest } from '../src/index';
import { CHUNK_SIZE, MAX_CHUNKS, applyToCookieHeader, cookieShape, readSessionCookie, writeSessionCookie } from '../src/session/cookies';
import { isLoopbackHost } from '../src/session/login-origin';
import { escapeHtml } from '../src/session/pages';
import { safeReturnTo } from '../src/session/request-checks';

const client = createNodeClient({
  provider: serviceProvider('https://id.example.com/acme'),
  clientId: 'web',
  clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
  redirectUri: 'https://app.example.com/auth/callback',
  cookieSecret: 'test-tx-oFp2bAbXNweB5DkDlIp8K5Ci-dGM7BII',
});
const secret = 'test-session-mKElDbvyoNPboWVDR0uM6evz2RetW4oy';

describe('createSessionAuth options', () => {
  it.each([
    [{ secret: 'short' }, /at least 32 characters/],
    [{ secret: [] as string[] }, /non-empty array of secrets/],
    [{ secret: 'session-secret-for-my-app-in-2024' }, /`secret` \(the session secret\) does not look random .*openssl rand -base64 32/],
    [{ secret: [secret, 'A'.repeat(40)] }, /`secret\[1\]` \(the session secret\) does not look random/],
    [{ baseUrl: 'not a url' }, /baseUrl/],
    [{ baseUrl: 'ftp://app.example.com' }, /http\(s\)/],
    [{ routes: { login: 'login' } }, /routes\.login/],
    [{ routes: { callback: '/cb?x=1' } }, /routes\.callback/],
    [{ cookieName: 'bad name' }, /cookieName/],
    [{ rollingDuration: 0 }, /rollingDuration/],
    [{ absoluteDuration: -1 }, /absoluteDuration/],
    [{ refreshLeeway: Number.NaN }, /refreshLeeway/],
    [{ store: { get: () => undefined } as unknown as MemorySessionStore }, /store/],
    [{ postLogoutRedirect: 'javascript:alert(1)' }, /postLogoutRedirect/],
  ])('refuses %j with invalid_options', (bad, message) => {
    expect(() => createSessionAuth({ client, secret, ...bad } as Parameters<typeof createSessionAuth>[0])).toThrow(
      expect.objectContaining({ code: 'invalid_options', message: expect.stringMatching(message) }),
    );
  });

  it('refuses a missing client', () => {
    expect(() => createSessionAuth({ secret } as unknown as Parameters<typeof createSessionAuth>[0])).toThrow(
      expect.objectContaining({ code: 'invalid_options' }),
    );
  });

  it('revokeSession without a store says why it cannot', async () => {
    await expect(createSessionAuth({ client, secret }).revokeSession('x')).rejects.toMatchObject({ code: 'invalid_options' });
  });

  it('over https: a __Host- cookie with Secure; loginUrl keeps only local return paths', async () => {
    const auth = createSessionAuth({ client, secret, baseUrl: 'https://app.example.com' });
    const result = await auth.getSession(new Request('https://app.example.com/', { headers: { cookie: '__Host-oidc-rp.session=garbage' } }));
    expect(result).toMatchObject({ reason: 'invalid', cookies: ['__Host-oidc-rp.session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure'] });
    expect(result.cookieHeader).toBe('');
    expect(auth.loginUrl('/orders?id=1')).toBe('/auth/login?returnTo=%2Forders%3Fid%3D1');
    expect(auth.loginUrl('https://evil.example/')).toBe('/auth/login');
  });

  it('ignores a plain (non-__Host-) cookie over https: a sibling subdomain cannot plant a session', async () => {
    const auth = createSessionAuth({ client, secret, baseUrl: 'https://app.example.com' });
    const result = await auth.getSession(new Request('https://app.example.com/', { headers: { cookie: 'oidc-rp.session=anything' } }));
    expect(result).toMatchObject({ reason: 'no_session', cookies: [] });
  });
});

describe('chunked session cookie', () => {
  const shape = cookieShape('s', false);

  it('writes one cookie when it fits, chunks when not, and clears chunks left from a bigger value', () => {
    const small = writeSessionCookie([], shape, 'a'.repeat(100), 60);
    expect(small).toEqual([`s=${'a'.repeat(100)}; Max-Age=60; Path=/; HttpOnly; SameSite=Lax`]);
    const big = writeSessionCookie([['s', 'old']], shape, 'b'.repeat(CHUNK_SIZE + 10), 60);
    expect(big.map((c) => c.split('=')[0])).toEqual(['s.0', 's.1', 's']);
    expect(big[2]).toContain('Max-Age=0');
    const shrunk = writeSessionCookie([['s.0', 'x'], ['s.1', 'y'], ['other', 'z']], shape, 'c', 60);
    expect(shrunk).toEqual([
      's=c; Max-Age=60; Path=/; HttpOnly; SameSite=Lax',
      's.0=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax',
      's.1=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax',
    ]);
  });

  it('reads chunks in order, and calls a gap or a stray chunk broken', () => {
    expect(readSessionCookie([['s.1', 'b'], ['s.0', 'a']], 's')).toBe('ab');
    expect(readSessionCookie([['s.0', 'a'], ['s.2', 'c']], 's')).toBe('broken');
    expect(readSessionCookie([['s.1', 'b']], 's')).toBe('broken');
    expect(readSessionCookie([['t', 'x']], 's')).toBeUndefined();
  });

  it('refuses a value over the chunk limit with session_too_large, naming the fix', () => {
    expect(() => writeSessionCookie([], shape, 'x'.repeat(CHUNK_SIZE * MAX_CHUNKS + 1), 60)).toThrow(
      expect.objectContaining({ code: 'session_too_large', message: expect.stringContaining('store') }),
    );
  });

  it('applies Set-Cookie values to a Cookie header (for forwarding downstream)', () => {
    expect(applyToCookieHeader([['a', '1'], ['s', 'old']], ['s=new; Path=/', 'a=; Max-Age=0; Path=/'])).toBe('s=new');
  });
});

describe('safeReturnTo', () => {
  it.each(['/', '/orders?x=1#y', '/a/b'])('keeps the local path %s', (path) => expect(safeReturnTo(path)).toBe(path));
  it.each(['//evil.example', 'https://evil.example', '/\\evil.example', 'orders', '/a\r\nSet-Cookie: x=y', 42, undefined])(
    'refuses %j',
    (value) => expect(safeReturnTo(value)).toBeUndefined(),
  );
});

describe('isLoopbackHost (core\u2019s definition, asked through assertSecureUrl)', () => {
  it.each(['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]'])('%s is this machine', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });
  it.each(['example.com', 'localhost.example.com', '10.0.0.1', '128.0.0.1', '[::2]', ''])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('escapeHtml', () => {
  it('escapes every character that could open markup or leave an attribute', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&amp;</a>`)).toBe('&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;amp;&#60;/a&#62;');
  });
});

describe('Node adapter', () => {
  it('turns node requests into web requests and back (headers, every Set-Cookie, a parsed body)', async () => {
    const seen: Array<{ method: string; url: string; body: string; cookie: string | null }> = [];
    const server = createServer(async (req: IncomingMessage & { body?: unknown }, res) => {
      if (req.url === '/parsed') {
        // What Express's urlencoded() leaves behind: the stream read, the form in req.body.
        for await (const _ of req) {
          // drain
        }
        req.body = { csrf_token: 'abc', x: '1' };
      }
      const request = await toWebRequest(req);
      seen.push({ method: request.method, url: request.url, body: await request.text(), cookie: request.headers.get('cookie') });
      const headers = new Headers({ 'content-type': 'text/plain' });
      headers.append('set-cookie', 'a=1; Path=/');
      headers.append('set-cookie', 'b=2; Path=/');
      await sendWebResponse(res, new Response('done', { status: 201, headers }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      const posted = await fetch(`http://127.0.0.1:${port}/raw?q=1`, { method: 'POST', body: 'csrf_token=xyz', headers: { cookie: 'k=v', 'content-type': 'application/x-www-form-urlencoded' } });
      expect(posted.status).toBe(201);
      expect(await posted.text()).toBe('done');
      expect(posted.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
      await fetch(`http://127.0.0.1:${port}/parsed`, { method: 'POST', body: 'ignored', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(seen).toEqual([
        { method: 'POST', url: `http://127.0.0.1:${port}/raw?q=1`, body: 'csrf_token=xyz', cookie: 'k=v' },
        { method: 'POST', url: `http://127.0.0.1:${port}/parsed`, body: 'csrf_token=abc&x=1', cookie: null },
      ]);
    } finally {
      server.close();
    }
  });
});
