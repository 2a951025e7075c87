// pathnameOf (src/http/url-path.ts) reads the path off a Request's serialized URL; it must agree
// with URL's own parse for every URL a Request can have, or the journal and request log would
// record another path than the router served.
import { describe, expect, it } from 'vitest';
import { pathnameOf } from '../src/http/url-path';

describe('pathnameOf', () => {
  it.each([
    'http://127.0.0.1:4000/demo/oauth/token',
    'http://localhost/demo/oauth/token?x=1&y=/z',
    'http://localhost/demo/a#frag?not-query',
    'http://localhost/demo/a?q=1#f/g',
    'https://login.example.com:8443/',
    'http://[::1]:4000/demo/%2e%2e/x?y',
    'http://localhost/../demo/./oidc/jwks',
    'http://localhost//evil.example/x',
    'http://localhost',
  ])('agrees with URL for %s, as a Request serializes it', (raw) => {
    const href = new Request(raw).url;
    expect(pathnameOf(href)).toBe(new URL(href).pathname);
  });
});
