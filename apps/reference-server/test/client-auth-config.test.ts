// The config rules of keyed clients: public keys only, one source of keys, a registered method
// the client has credentials for, jwks_uri over https off loopback.
import { describe, expect, it } from 'vitest';
import { demoConfig, type ServerConfig, validateConfig } from '../src/index';
import { refusal } from './helpers';

const EC = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' };

function withClient(client: Record<string, unknown>, development = true): ServerConfig {
  const config = demoConfig();
  const tenant = config.tenants[0]!;
  tenant.development = development;
  if (!development) tenant.demo_login = false;
  tenant.clients = [{ client_id: 'keyed', grant_types: ['client_credentials'], scopes: ['api.read'], ...client } as never];
  return config;
}

describe('keyed clients in the config', () => {
  it('accepts public keys with a registered method, or a jwks_uri', () => {
    const tenant = validateConfig(withClient({ jwks: { keys: [EC] }, token_endpoint_auth_method: 'private_key_jwt' }))[0]!;
    expect(tenant.clients.get('keyed')?.jwks).toEqual([EC]);
    expect(tenant.clients.get('keyed')?.token_endpoint_auth_method).toBe('private_key_jwt');
    expect(() => validateConfig(withClient({ jwks_uri: 'https://rp.example/jwks' }, false))).not.toThrow();
  });

  it('refuses private key material, an empty key set and both key sources', () => {
    expect(refusal(withClient({ jwks: { keys: [{ ...EC, d: 'secret' }] } })).message).toMatch(/jwks\.keys\[0\]\.d.*public key only/);
    expect(refusal(withClient({ jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } })).message).toMatch(/kty/);
    expect(refusal(withClient({ jwks: { keys: [] } })).message).toMatch(/at least one/);
    expect(refusal(withClient({ jwks: { keys: [EC] }, jwks_uri: 'https://rp.example/jwks' })).message).toMatch(/not both/);
  });

  it('refuses a method the client has no credentials for, and an http jwks_uri off loopback outside development', () => {
    expect(refusal(withClient({ client_secret: 'a-long-enough-secret-0123456789abcdef', token_endpoint_auth_method: 'private_key_jwt' })).message).toMatch(/needs jwks/);
    expect(refusal(withClient({ jwks: { keys: [EC] }, token_endpoint_auth_method: 'client_secret_jwt' })).message).toMatch(/needs a client_secret/);
    expect(refusal(withClient({ grant_types: ['client_credentials'] })).message).toMatch(/client_secret, jwks or jwks_uri/);
    expect(refusal(withClient({ jwks_uri: 'http://rp.example/jwks' }, false)).message).toMatch(/must be https/);
  });
});
