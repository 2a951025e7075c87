// The session layer of this app, created on first use from the environment (so `next build`
// needs no settings): OIDC_ISSUER, APP_BASE_URL, SESSION_SECRET, WEB_CLIENT_ID, WEB_CLIENT_SECRET,
// SESSION_REFRESH_LEEWAY (seconds before the access token's expiry at which it is refreshed).
import { createHash } from 'node:crypto';
import { type SessionAuth, createNodeClient, createSessionAuth } from '@oidc-rp/node';

let auth: SessionAuth | undefined;

export function getAuth(): SessionAuth {
  if (auth) return auth;
  const baseUrl = process.env.APP_BASE_URL ?? 'http://127.0.0.1:3001';
  const secret = process.env.SESSION_SECRET;
  if (!secret) throw new Error('Set SESSION_SECRET (at least 32 random characters, e.g. `openssl rand -base64 32`).');
  const client = createNodeClient({
    issuer: process.env.OIDC_ISSUER ?? 'http://127.0.0.1:4000/demo',
    clientId: process.env.WEB_CLIENT_ID ?? 'web',
    clientSecret: process.env.WEB_CLIENT_SECRET ?? 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: new URL('/auth/callback', baseUrl).href,
    scope: 'openid profile email offline_access',
    cookieSecret: secret,
  });
  const leeway = process.env.SESSION_REFRESH_LEEWAY;
  auth = createSessionAuth({ client, secret, baseUrl, ...(leeway ? { refreshLeeway: Number(leeway) } : {}) });
  return auth;
}

/** A short SHA-256 fingerprint of a token, to tell tokens apart on a page without showing one. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 12);
}
