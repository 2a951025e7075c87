import { HttpResponse, type JsonBodyType, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { discover, serviceProvider, tokenEndpointFor } from '../src/index';
import { assertSecureUrl } from '../src/internal';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const ISSUER = 'https://login.example.com/acme';
const WELL_KNOWN = `${ISSUER}/.well-known/openid-configuration`;

function metadata(overrides: Record<string, unknown> = {}) {
  return {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/oidc/authorize`,
    token_endpoint: `${ISSUER}/oidc/token`,
    jwks_uri: `${ISSUER}/oidc/jwks`,
    userinfo_endpoint: `${ISSUER}/oidc/userinfo`,
    response_types_supported: ['code'],
    id_token_signing_alg_values_supported: ['RS256'],
    authorization_response_iss_parameter_supported: true,
    ...overrides,
  };
}

function serve(body: unknown, init?: ResponseInit, url = WELL_KNOWN) {
  server.use(http.get(url, () => HttpResponse.json(body as JsonBodyType, init)));
}

async function discoveryError(issuer: string, options?: Parameters<typeof discover>[1]) {
  return discover(issuer, options).then(
    () => {
      throw new Error('expected discover to reject');
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe('discover', () => {
  it('fetches and returns the metadata of an exactly matching issuer', async () => {
    serve(metadata());
    await expect(discover(ISSUER)).resolves.toEqual(metadata());
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe('GET');
    expect(requests[0]!.url).toBe(WELL_KNOWN);
    expect(requests[0]!.headers.get('accept')).toBe('application/json');
  });

  it('handles an issuer with a trailing slash (the document must name it with the slash)', async () => {
    serve(metadata({ issuer: `${ISSUER}/` }));
    await expect(discover(`${ISSUER}/`)).resolves.toMatchObject({ issuer: `${ISSUER}/` });
    expect(requests[0]!.url).toBe(WELL_KNOWN);
  });

  it('rejects a document naming another issuer with discovery_issuer_mismatch', async () => {
    serve(metadata({ issuer: 'https://evil.example.com' }));
    expect((await discoveryError(ISSUER)).code).toBe('discovery_issuer_mismatch');
  });

  it('rejects an issuer that differs only by a trailing slash', async () => {
    serve(metadata({ issuer: `${ISSUER}/` }));
    expect((await discoveryError(ISSUER)).code).toBe('discovery_issuer_mismatch');
    serve(metadata());
    expect((await discoveryError(`${ISSUER}/`)).code).toBe('discovery_issuer_mismatch');
  });

  it('reports a 404 as discovery_failed with the status', async () => {
    serve({ error: 'not_found' }, { status: 404 });
    const error = await discoveryError(ISSUER);
    expect(error.code).toBe('discovery_failed');
    expect(error.message).toContain('404');
  });

  it('reports a non-JSON body as discovery_failed', async () => {
    server.use(http.get(WELL_KNOWN, () => HttpResponse.html('<html>Welcome</html>')));
    expect((await discoveryError(ISSUER)).code).toBe('discovery_failed');
  });

  it('reports an empty body as discovery_failed', async () => {
    server.use(http.get(WELL_KNOWN, () => new HttpResponse(null, { status: 200 })));
    expect((await discoveryError(ISSUER)).code).toBe('discovery_failed');
  });

  it.each<[string, unknown]>([
    ['a JSON array', [metadata()]],
    ['a document without issuer', metadata({ issuer: undefined })],
    ['a document without token_endpoint', metadata({ token_endpoint: undefined })],
    ['a document without jwks_uri', metadata({ jwks_uri: undefined })],
    ['a non-string endpoint', metadata({ userinfo_endpoint: 42 })],
    ['an http endpoint off loopback', metadata({ token_endpoint: 'http://login.example.com/token' })],
    ['a malformed list', metadata({ id_token_signing_alg_values_supported: 'RS256' })],
    ['a non-boolean flag', metadata({ authorization_response_iss_parameter_supported: 'yes' })],
  ])('rejects %s as invalid_provider_metadata', async (_, document) => {
    serve(document);
    expect((await discoveryError(ISSUER)).code).toBe('invalid_provider_metadata');
  });

  it('refuses an http issuer off loopback before any request', async () => {
    expect((await discoveryError('http://login.example.com/acme')).code).toBe('invalid_options');
    expect(requests).toHaveLength(0);
  });

  it('accepts an http issuer off loopback with allowInsecure', async () => {
    const insecure = 'http://login.example.com/acme';
    const doc = metadata({
      issuer: insecure,
      authorization_endpoint: `${insecure}/authorize`,
      token_endpoint: `${insecure}/token`,
      jwks_uri: `${insecure}/jwks`,
      userinfo_endpoint: `${insecure}/userinfo`,
    });
    serve(doc, undefined, `${insecure}/.well-known/openid-configuration`);
    await expect(discover(insecure, { allowInsecure: true })).resolves.toEqual(doc);
  });

  it('accepts an http issuer on loopback', async () => {
    const local = 'http://127.0.0.1:4000/demo';
    const doc = metadata({
      issuer: local,
      authorization_endpoint: `${local}/oidc/authorize`,
      token_endpoint: `${local}/oidc/token`,
      jwks_uri: `${local}/oidc/jwks`,
      userinfo_endpoint: `${local}/oidc/userinfo`,
    });
    serve(doc, undefined, `${local}/.well-known/openid-configuration`);
    await expect(discover(local)).resolves.toEqual(doc);
  });

  it('refuses an issuer with a query or that is not a URL', async () => {
    expect((await discoveryError(`${ISSUER}?tenant=1`)).code).toBe('invalid_options');
    expect((await discoveryError('login.example.com')).code).toBe('invalid_options');
    expect(requests).toHaveLength(0);
  });

  it('uses the custom fetch', async () => {
    const seen: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      seen.push(String(input));
      return Response.json(metadata());
    };
    await expect(discover(ISSUER, { fetch })).resolves.toMatchObject({ issuer: ISSUER });
    expect(seen).toEqual([WELL_KNOWN]);
    expect(requests).toHaveLength(0);
  });
});

describe('discover: redirects', () => {
  const redirect = (to: string, status = 302) => () => new HttpResponse(null, { status, headers: { location: to } });

  it('follows a redirect within the issuer origin', async () => {
    server.use(http.get(WELL_KNOWN, redirect('/acme/v2/openid-configuration', 301)));
    serve(metadata(), undefined, `${ISSUER}/v2/openid-configuration`);
    await expect(discover(ISSUER)).resolves.toEqual(metadata());
    expect(requests.map((r) => r.url)).toEqual([WELL_KNOWN, `${ISSUER}/v2/openid-configuration`]);
  });

  it.each([
    ['an https→http downgrade on the same host', 'http://login.example.com/acme/.well-known/openid-configuration'],
    ['another host', 'https://evil.example.com/.well-known/openid-configuration'],
    ['another port', 'https://login.example.com:8443/acme/.well-known/openid-configuration'],
    ['loopback', 'http://127.0.0.1:8080/.well-known/openid-configuration'],
  ])('refuses a redirect to %s with redirect_refused, before requesting it', async (_, target) => {
    server.use(http.get(WELL_KNOWN, redirect(target, 307)));
    const error = await discoveryError(ISSUER);
    expect(error.code).toBe('redirect_refused');
    expect(requests.map((r) => r.url)).toEqual([WELL_KNOWN]);
  });

  it('refuses a redirect loop and an unusable Location', async () => {
    server.use(http.get(WELL_KNOWN, redirect(WELL_KNOWN)));
    expect((await discoveryError(ISSUER)).code).toBe('redirect_refused');
    expect(requests.length).toBe(6);
    server.use(http.get(WELL_KNOWN, redirect('http://[bad')));
    expect((await discoveryError(ISSUER)).code).toBe('redirect_refused');
  });

  it('refuses any redirect whose target the runtime hides (a browser opaqueredirect)', async () => {
    const hidden = Response.error();
    Object.defineProperty(hidden, 'type', { value: 'opaqueredirect' });
    const error = await discoveryError(ISSUER, { fetch: async () => hidden });
    expect(error.code).toBe('redirect_refused');
  });
});

describe('discover: endpoints on another host class than the issuer', () => {
  it.each([
    ['loopback jwks_uri for a public issuer', { jwks_uri: 'http://127.0.0.1:8080/jwks' }, 'loopback'],
    ['IPv4-mapped loopback', { jwks_uri: 'https://[::ffff:127.0.0.1]/jwks' }, 'loopback'],
    ['RFC 1918 token endpoint', { token_endpoint: 'https://10.1.2.3/token' }, 'private'],
    ['link-local (cloud metadata) userinfo', { userinfo_endpoint: 'https://169.254.169.254/userinfo' }, 'private'],
    ['an .internal name', { jwks_uri: 'https://metadata.google.internal/jwks' }, 'private'],
    ['a single-label name', { jwks_uri: 'https://keycloak/jwks' }, 'private'],
    ['a unique-local IPv6 address', { jwks_uri: 'https://[fd00::1]/jwks' }, 'private'],
  ])('refuses %s with host_class_mismatch', async (_, overrides, endpointClass) => {
    serve(metadata(overrides));
    const error = await discoveryError(ISSUER);
    expect(error.code).toBe('host_class_mismatch');
    expect(error.message).toContain(`on a ${endpointClass} host`);
    expect(error.message).toContain('allowHostClassMismatch');
  });

  it('accepts them with allowHostClassMismatch, and endpoints on other public hosts always', async () => {
    serve(metadata({ jwks_uri: 'https://10.1.2.3/jwks' }));
    await expect(discover(ISSUER, { allowHostClassMismatch: true })).resolves.toMatchObject({ jwks_uri: 'https://10.1.2.3/jwks' });
    serve(metadata({ jwks_uri: 'https://keys.example.net/jwks', token_endpoint: 'https://[2001:db8::1]/token' }));
    await expect(discover(ISSUER)).resolves.toMatchObject({ jwks_uri: 'https://keys.example.net/jwks' });
  });

  it('refuses a public jwks_uri for a loopback issuer (the other way round)', async () => {
    const local = 'http://127.0.0.1:4000/demo';
    serve(metadata({ issuer: local, authorization_endpoint: `${local}/a`, token_endpoint: `${local}/t`, userinfo_endpoint: `${local}/u` }), undefined, `${local}/.well-known/openid-configuration`);
    expect((await discoveryError(local)).code).toBe('host_class_mismatch');
  });
});

describe('serviceProvider', () => {
  it('builds the service preset from the base URL, trailing slash removed', () => {
    const provider = serviceProvider('https://login.example.com/acme/');
    expect(provider).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oidc/authorize`,
      token_endpoint: `${ISSUER}/oidc/token`,
      jwks_uri: `${ISSUER}/oidc/jwks`,
      userinfo_endpoint: `${ISSUER}/oidc/userinfo`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      end_session_endpoint: `${ISSUER}/oidc/logout`,
      authorization_response_iss_parameter_supported: true,
      pkce_replaces_client_secret: true,
      id_token_signing_alg_values_supported: ['RS256', 'ES256'],
    });
  });

  it('picks the token endpoint per grant', () => {
    const provider = serviceProvider(ISSUER);
    expect(tokenEndpointFor(provider, 'authorization_code')).toBe(`${ISSUER}/oidc/token`);
    expect(tokenEndpointFor(provider, 'refresh_token')).toBe(`${ISSUER}/oauth/token`);
    expect(tokenEndpointFor(provider, 'client_credentials')).toBe(`${ISSUER}/oauth/token`);
  });

  it('falls back to token_endpoint for grants without their own endpoint', () => {
    const provider = { ...metadata() };
    expect(tokenEndpointFor(provider, 'refresh_token')).toBe(`${ISSUER}/oidc/token`);
  });

  it('applies overrides', () => {
    const provider = serviceProvider(ISSUER, { id_token_signing_alg_values_supported: ['ES256'] });
    expect(provider.id_token_signing_alg_values_supported).toEqual(['ES256']);
  });

  it('refuses an insecure or invalid base URL', () => {
    expect(() => serviceProvider('http://login.example.com/acme')).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(() => serviceProvider('acme')).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});

describe('assertSecureUrl', () => {
  it.each(['https://example.com', 'http://localhost:3000/cb', 'http://127.0.0.1:4000', 'http://127.1.2.3', 'http://[::1]:8080/'])(
    'accepts %s',
    (url) => {
      expect(() => assertSecureUrl(url, 'The URL')).not.toThrow();
    },
  );

  it.each(['http://example.com', 'http://128.0.0.1', 'http://localhost.example.com', 'ftp://example.com', 'not a url'])(
    'refuses %s',
    (url) => {
      expect(() => assertSecureUrl(url, 'The URL')).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    },
  );
});
