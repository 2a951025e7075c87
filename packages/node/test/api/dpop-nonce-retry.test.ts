// The guard's use_dpop_nonce challenge is one the SDK's own clients understand: core's
// protectedResourceRequest (what @oidc-rp/node and the browser send DPoP requests with) retries
// once with the nonce from DPoP-Nonce, over real HTTP.
import { dpop, protectedResourceRequest } from '@oidc-rp/core';
import { AccessTokenError, type ResourceRequest, readAccessToken } from '@oidc-rp/core/api';
import { Hono } from 'hono';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AccessTokenVariables, honoAccessToken, requireAccessToken } from '../../src/api/index';
import { serveFetch } from '../support/serve-fetch';

let server: { origin: string; close(): Promise<void> };
const proofsSeen: string[] = [];

/** Wants the nonce `n-1` in the proof (its payload only: this test is about the challenge, not the proof check). */
const verifier = Object.assign(
  async (request: ResourceRequest) => {
    const { scheme, token } = readAccessToken(request);
    proofsSeen.push(request.dpop ?? '');
    const payload = JSON.parse(Buffer.from(request.dpop?.split('.')[1] ?? '', 'base64url').toString() || '{}') as { nonce?: string };
    if (scheme !== 'DPoP' || payload.nonce !== 'n-1') {
      throw new AccessTokenError('dpop_nonce_required', 'use_dpop_nonce', 'Use the nonce in DPoP-Nonce.', { dpopNonce: 'n-1' });
    }
    return { claims: { iss: 'https://id.example.com', sub: 'alice', aud: 'x', exp: 4_000_000_000 }, scheme: 'DPoP' as const, scopes: [token] };
  },
  { dpop: { required: true, algorithms: ['ES256'] } },
);

beforeAll(async () => {
  const app = new Hono<{ Variables: AccessTokenVariables }>();
  app.use('*', honoAccessToken(requireAccessToken({ verifier, origin: 'http://127.0.0.1' })));
  app.get('/orders', (c) => c.json({ scopes: c.get('accessToken').scopes }));
  server = await serveFetch(app.fetch);
});
afterAll(() => server?.close());

it('a use_dpop_nonce challenge makes protectedResourceRequest retry once with the nonce, then succeed', async () => {
  const handle = await dpop();
  const response = await protectedResourceRequest(handle, 'bound-token', `${server.origin}/orders`);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ scopes: ['bound-token'] });
  expect(proofsSeen).toHaveLength(2);
});
