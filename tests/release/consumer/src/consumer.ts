// Type-checked as a user's ESM (node16), bundler and node10 project would: every entry point and
// subpath of the packed packages, with real types (the @ts-expect-error lines fail to compile
// if a module resolved to `any` or did not resolve at all).
import { isOidcError, type OidcErrorCode, OidcError, serviceProvider, type TokenSet } from '@oidc-rp/core';
import { type BrowserClient, createBrowserClient } from '@oidc-rp/browser';
import { AuthProvider, useAuth } from '@oidc-rp/react';
import { createNodeClient, type NodeClient } from '@oidc-rp/node';
import { RedisTokenCache } from '@oidc-rp/node/redis';
import { type AccessTokenVerifier, jwtAccessTokenVerifier } from '@oidc-rp/node/api';
import { type AccessTokenGuard, requireAccessToken } from '@oidc-rp/node/api';
import { createReferenceServer, demoConfig, type ServerConfig } from '@oidc-rp/reference-server';
import { type CompleteLoginResult, completeLogin, CookieJar } from '@oidc-rp/reference-server/testing';

export const code: OidcErrorCode = 'invalid_options';
// @ts-expect-error not an error code
export const wrongCode: OidcErrorCode = 'no_such_code';

export function describeError(error: unknown): string {
  if (error instanceof OidcError) return error.code;
  return isOidcError(error) ? error.code : 'other';
}

export const provider = serviceProvider('http://127.0.0.1:4000/demo');
export const browser: BrowserClient = createBrowserClient({ provider, clientId: 'spa', redirectUri: 'http://127.0.0.1:5173/callback' });
// @ts-expect-error clientId is required
createBrowserClient({ provider, redirectUri: 'http://127.0.0.1:5173/callback' });

export const backend: NodeClient = createNodeClient({ provider, clientId: 'service', clientSecret: 'service-secret', grants: ['client_credentials'] });
export const token: Promise<TokenSet> = backend.getClientCredentialsToken({ scope: 'api.read' });
export const cacheClass: typeof RedisTokenCache = RedisTokenCache;
export const verifyAccessToken: AccessTokenVerifier = jwtAccessTokenVerifier({ issuer: 'http://127.0.0.1:4000/demo', jwksUri: 'http://127.0.0.1:4000/demo/oidc/jwks', audience: 'https://api.example' });
// @ts-expect-error audience is required
jwtAccessTokenVerifier({ issuer: 'http://127.0.0.1:4000/demo', jwksUri: 'http://127.0.0.1:4000/demo/oidc/jwks' });
export const guard: AccessTokenGuard = requireAccessToken({ verifier: async () => Promise.reject(new Error('no token')), origin: 'https://api.example.com' });
// @ts-expect-error origin is required
requireAccessToken({ verifier: async () => Promise.reject(new Error('no token')) });

export const provide: typeof AuthProvider = AuthProvider;
export const hook: typeof useAuth = useAuth;

export const config: ServerConfig = demoConfig();
export const server = createReferenceServer(config, { logger: false });
export const jar = new CookieJar();
export async function login(url: string): Promise<CompleteLoginResult> {
  return completeLogin(url, { cookies: jar });
}
