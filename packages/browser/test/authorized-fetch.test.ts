import { OidcError } from '@oidc-rp/core';
import { describe, expect, it, vi } from 'vitest';
import type { GetAccessTokenOptions } from '../src/index';
import { authorizedFetch } from '../src/index';

/** A client whose current token is `current`; a call with `rejected` renews with `renew`. */
function client(current: () => Promise<string>, renew: (rejected: string) => Promise<string>) {
  return {
    getAccessToken: vi.fn((options?: GetAccessTokenOptions) => (options?.rejected ? renew(options.rejected) : current())),
  };
}

// A resource that accepts exactly the tokens in `valid` and echoes the request body.
function resource(valid: Set<string>) {
  const seen: { auth: string | null; body: string }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const auth = request.headers.get('authorization');
    seen.push({ auth, body: await request.text() });
    const ok = auth?.startsWith('Bearer ') && valid.has(auth.slice(7));
    return new Response(ok ? 'ok' : 'denied', { status: ok ? 200 : 401 });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, seen, calls: fetch };
}

describe('authorized fetch', () => {
  it('sends the access token as a Bearer header and keeps the caller headers', async () => {
    const api = resource(new Set(['t1']));
    const renew = vi.fn();
    const authorized = authorizedFetch(client(async () => 't1', renew), { fetch: api.fetch });
    const response = await authorized('http://127.0.0.1:9/api', { headers: { 'x-app': '1' } });
    expect(response.status).toBe(200);
    expect(api.seen[0]?.auth).toBe('Bearer t1');
    expect(renew).not.toHaveBeenCalled();
    const sent = api.calls.mock.calls[0]?.[0] as Request;
    expect(sent.headers.get('x-app')).toBe('1');
  });

  it('on a 401 renews once and retries once with the new token and the same body', async () => {
    const api = resource(new Set(['t2']));
    const renew = vi.fn(async (rejected: string) => {
      expect(rejected).toBe('t1');
      return 't2';
    });
    const authorized = authorizedFetch(client(async () => 't1', renew), { fetch: api.fetch });
    const response = await authorized('http://127.0.0.1:9/api', { method: 'POST', body: 'payload' });
    expect(response.status).toBe(200);
    expect(renew).toHaveBeenCalledTimes(1);
    expect(api.seen).toEqual([
      { auth: 'Bearer t1', body: 'payload' },
      { auth: 'Bearer t2', body: 'payload' },
    ]);
  });

  it('never loops: a second 401 is returned as is', async () => {
    const api = resource(new Set());
    const renew = vi.fn(async () => 't2');
    const authorized = authorizedFetch(client(async () => 't1', renew), { fetch: api.fetch });
    const response = await authorized('http://127.0.0.1:9/api');
    expect(response.status).toBe(401);
    expect(renew).toHaveBeenCalledTimes(1);
    expect(api.calls).toHaveBeenCalledTimes(2);
  });

  it('returns the first 401 when the renewal fails, without a retry', async () => {
    const api = resource(new Set());
    const renew = vi.fn(async () => {
      throw new OidcError('login_required', 'no session');
    });
    const authorized = authorizedFetch(client(async () => 't1', renew), { fetch: api.fetch });
    const response = await authorized('http://127.0.0.1:9/api');
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('denied');
    expect(api.calls).toHaveBeenCalledTimes(1);
  });

  it('uses the global fetch, looked up on each call, without the fetch option', async () => {
    const api = resource(new Set(['t1']));
    const authorized = authorizedFetch(client(async () => 't1', vi.fn()));
    vi.stubGlobal('fetch', api.fetch);
    try {
      expect((await authorized('http://127.0.0.1:9/api')).status).toBe(200);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(api.seen[0]?.auth).toBe('Bearer t1');
  });

  it('does not retry other failures', async () => {
    const fetch = vi.fn(async () => new Response('nope', { status: 403 }));
    const renew = vi.fn();
    const authorized = authorizedFetch(client(async () => 't1', renew), { fetch: fetch as unknown as typeof globalThis.fetch });
    expect((await authorized('http://127.0.0.1:9/api')).status).toBe(403);
    expect(renew).not.toHaveBeenCalled();
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('sends nothing when there is no access token', async () => {
    const api = resource(new Set());
    const noSession = async (): Promise<string> => {
      throw new OidcError('login_required', 'No user is logged in');
    };
    const authorized = authorizedFetch(client(noSession, vi.fn()), { fetch: api.fetch });
    await expect(authorized('http://127.0.0.1:9/api')).rejects.toMatchObject({ code: 'login_required' });
    expect(api.calls).not.toHaveBeenCalled();
  });
});
