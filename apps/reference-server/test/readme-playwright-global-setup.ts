// global-setup.ts
import { demoConfig } from '@oidc-rp/reference-server';
import { createTestServer } from '@oidc-rp/reference-server/testing';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const config = demoConfig();
  const spa = config.tenants[0]?.clients?.find((c) => c.client_id === 'spa');
  if (!spa) throw new Error('the demo config has a client "spa"');
  spa.redirect_uris = ['http://localhost:5173/callback']; // your app's callback
  const op = await createTestServer({ config, listen: true });
  process.env.OIDC_ISSUER = op.issuer; // your app reads its issuer from here
  return () => op.close();
}
