import { type ResourceRequest, readAccessToken } from '@oidc-rp/core/api';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { type AccessTokenVerifier, protectedResourceMetadata, requireAccessToken } from '../../src/api/index';
import { serveFetch } from '../support/serve-fetch';

// Refuses every request as a real verifier refuses one without a token.
const verifier: AccessTokenVerifier = Object.assign(
  async (request: ResourceRequest) => {
    readAccessToken(request);
    throw new Error('only requests without a token are sent here');
  },
  { dpop: { required: true, algorithms: ['ES256'] } },
);

describe('protectedResourceMetadata (RFC 9728)', () => {
  it('serves the metadata at the well-known URL and names it in the 401 challenge, over HTTP', async () => {
    const server = await serveFetch((request) => app.fetch(request));
    const resource = protectedResourceMetadata({
      resource: server.origin,
      authorizationServers: ['https://id.example.com/acme'],
      scopesSupported: ['orders.read'],
      verifier,
    });
    const guard = requireAccessToken({ verifier, origin: server.origin, resourceMetadata: resource.url });
    const app = new Hono();
    app.get(resource.path, () => resource.handle());
    app.get('/orders', async (c) => {
      const result = await guard(c.req.raw);
      return result.ok ? c.json({}) : result.response;
    });
    try {
      const challenge = await fetch(`${server.origin}/orders`);
      expect(challenge.status).toBe(401);
      expect(challenge.headers.get('www-authenticate')).toBe(`DPoP resource_metadata="${server.origin}/.well-known/oauth-protected-resource", algs="ES256"`);
      const response = await fetch(resource.url);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({
        resource: server.origin,
        authorization_servers: ['https://id.example.com/acme'],
        scopes_supported: ['orders.read'],
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: ['ES256'],
        dpop_bound_access_tokens_required: true,
      });
    } finally {
      await server.close();
    }
  });

  it('inserts the well-known segment before the path of a resource with a path (§3.1)', () => {
    const resource = protectedResourceMetadata({ resource: 'https://api.example.com/v1/orders', authorizationServers: ['https://id.example.com'] });
    expect(resource.url).toBe('https://api.example.com/.well-known/oauth-protected-resource/v1/orders');
    expect(resource.metadata).not.toHaveProperty('dpop_signing_alg_values_supported');
  });

  it.each(['http://api.example.com', 'https://api.example.com/#x', 'https://api.example.com/?a=1', 'api'])('refuses the resource %s', (resource) => {
    expect(() => protectedResourceMetadata({ resource, authorizationServers: ['https://id.example.com'] })).toThrow(/resource must be/);
  });
});
