import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { discoverByIdentifier, webFingerIssuer } from '../src/signed';
import { normaliseIdentifier } from '../src/provider/webfinger';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();
const REL = 'http://openid.net/specs/connect/1.0/issuer';
const ISSUER = 'https://id.example.com/tenant';

function metadata(issuer = ISSUER) {
  return { issuer, authorization_endpoint: `${ISSUER}/authorize`, token_endpoint: `${ISSUER}/token`, jwks_uri: `${ISSUER}/jwks` };
}

async function code(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (error: { code: string }) => error.code,
  );
}

describe('normaliseIdentifier (OpenID Connect Discovery 2.1)', () => {
  it.each([
    ['acct:joe@example.com', 'acct:joe@example.com', 'example.com'],
    ['joe@example.com', 'acct:joe@example.com', 'example.com'],
    ['https://example.com/joe', 'https://example.com/joe', 'example.com'],
    ['https://example.com/joe#frag', 'https://example.com/joe', 'example.com'],
    ['example.com', 'https://example.com/', 'example.com'],
    ['example.com:8080', 'https://example.com:8080/', 'example.com:8080'],
    ['joe@example.com:8080', 'https://joe@example.com:8080/', 'example.com:8080'],
    ['example.com/joe', 'https://example.com/joe', 'example.com'],
  ])('%s -> %s at %s', (input, resource, host) => {
    expect(normaliseIdentifier(input)).toEqual({ resource, host });
  });

  it.each(['', 'acct:nohost', 'mailto:joe@example.com', 'a b@example.com'])('refuses %j', (input) => {
    expect(normaliseIdentifier(input)).toBeUndefined();
  });
});

describe('webFingerIssuer and discoverByIdentifier', () => {
  it('asks the host for the issuer rel and discovers the issuer it names', async () => {
    server.use(
      http.get('https://example.com/.well-known/webfinger', () => HttpResponse.json({ subject: 'acct:joe@example.com', links: [{ rel: REL, href: ISSUER }] })),
      http.get(`${ISSUER}/.well-known/openid-configuration`, () => HttpResponse.json(metadata())),
    );
    const provider = await discoverByIdentifier('joe@example.com');
    expect(provider.issuer).toBe(ISSUER);
    const query = new URL(requests[0]!.url).searchParams;
    expect(query.get('resource')).toBe('acct:joe@example.com');
    expect(query.get('rel')).toBe(REL);
  });

  it('refuses a configuration that names another issuer than WebFinger did', async () => {
    server.use(
      http.get('https://example.com/.well-known/webfinger', () => HttpResponse.json({ links: [{ rel: REL, href: ISSUER }] })),
      http.get(`${ISSUER}/.well-known/openid-configuration`, () => HttpResponse.json(metadata('https://evil.example.com'))),
    );
    expect(await code(discoverByIdentifier('acct:joe@example.com'))).toBe('discovery_issuer_mismatch');
  });

  it('refuses an answer without an https issuer link, and an error answer', async () => {
    server.use(http.get('https://example.com/.well-known/webfinger', () => HttpResponse.json({ links: [{ rel: REL, href: 'http://id.example.com' }] })));
    expect(await code(webFingerIssuer('example.com'))).toBe('webfinger_invalid');
    server.use(http.get('https://example.com/.well-known/webfinger', () => HttpResponse.json({ links: [{ rel: 'other', href: ISSUER }] })));
    expect(await code(webFingerIssuer('example.com'))).toBe('webfinger_invalid');
    server.use(http.get('https://example.com/.well-known/webfinger', () => new HttpResponse('nope', { status: 404 })));
    expect(await code(webFingerIssuer('example.com'))).toBe('webfinger_failed');
  });

  it('uses http only for a loopback host, and only when asked', async () => {
    server.use(http.get('http://127.0.0.1:4000/.well-known/webfinger', () => HttpResponse.json({ links: [{ rel: REL, href: 'http://127.0.0.1:4000/demo' }] })));
    expect(await webFingerIssuer('acct:joe@127.0.0.1:4000', { loopbackHttp: true })).toBe('http://127.0.0.1:4000/demo');
    server.use(http.get('https://example.com/.well-known/webfinger', () => HttpResponse.json({ links: [{ rel: REL, href: ISSUER }] })));
    expect(await webFingerIssuer('acct:joe@example.com', { loopbackHttp: true })).toBe(ISSUER);
    expect(requests.at(-1)!.url.startsWith('https://example.com/')).toBe(true);
  });
});
