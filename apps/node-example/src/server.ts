// Runs the example on http://127.0.0.1:3000 (part of `pnpm demo`). Settings from the
// environment: OIDC_ISSUER, BASE_URL, PORT, COOKIE_SECRET.
import { serve } from '@hono/node-server';
import { createExampleApp } from './app';

const port = Number(process.env.PORT ?? 3000);
const baseUrl = process.env.BASE_URL ?? `http://127.0.0.1:${port}`;
const issuer = process.env.OIDC_ISSUER ?? 'http://127.0.0.1:4000/demo';

let cookieSecret = process.env.COOKIE_SECRET;
if (!cookieSecret) {
  // Fine on loopback for the demo; a deployment sets COOKIE_SECRET, the same on every instance.
  cookieSecret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  console.log('COOKIE_SECRET not set: using a random one for this process.');
}

const app = createExampleApp({
  issuer,
  baseUrl,
  cookieSecret,
  web: { clientId: process.env.WEB_CLIENT_ID ?? 'web', clientSecret: process.env.WEB_CLIENT_SECRET ?? 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' },
  service: {
    clientId: process.env.SERVICE_CLIENT_ID ?? 'service',
    clientSecret: process.env.SERVICE_CLIENT_SECRET ?? 'service-secret',
    scope: process.env.SERVICE_SCOPE ?? 'api.read',
  },
  spaOrigin: process.env.SPA_ORIGIN ?? 'http://127.0.0.1:5173',
});

serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  console.log(`node example listening on http://127.0.0.1:${info.port} (provider ${issuer})`);
});
