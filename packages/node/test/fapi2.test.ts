// The FAPI 2.0 preset's refusals, without a provider: what the profile fixes cannot be set or
// overridden, keys and DPoP handles must use its algorithms, and a provider's metadata that
// falls short of it is refused with the rule it breaks. (The whole login against oidc-provider
// configured for FAPI 2.0 is in tests/conformance.)
import { exportJWK, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DpopHandle, type Fapi2Options, type ProviderMetadata, createNodeClient, dpop, fapi2, generateDpopKeyPair } from '../src/index';

const ISSUER = 'https://bank.example.com';
const METADATA: ProviderMetadata = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  jwks_uri: `${ISSUER}/jwks`,
  pushed_authorization_request_endpoint: `${ISSUER}/par`,
  authorization_response_iss_parameter_supported: true,
  token_endpoint_auth_methods_supported: ['private_key_jwt'],
  code_challenge_methods_supported: ['S256'],
  id_token_signing_alg_values_supported: ['RS256', 'PS256'],
};

let handle: DpopHandle;
let ecJwk: JsonWebKey;
let rsaJwk: JsonWebKey;
beforeAll(async () => {
  handle = await dpop();
  ecJwk = await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);
  rsaJwk = { ...(await exportJWK((await generateKeyPair('RS256', { extractable: true })).privateKey)), alg: 'RS256' };
});

function base(extra: Partial<Fapi2Options> = {}): Fapi2Options {
  return { provider: METADATA, clientId: 'fapi-rp', privateKey: ecJwk, dpop: handle, redirectUri: 'https://app.example.com/cb', ...extra };
}

const refused = (code: string, message: RegExp) => expect.objectContaining({ code, message: expect.stringMatching(message) });

describe('fapi2() options', () => {
  it('fixes PAR, PKCE, the code flow and private_key_jwt, and keeps its mark through a spread', () => {
    const options = fapi2(base());
    expect(options).toMatchObject({ par: true, pkce: true, responseType: 'code', responseMode: 'query', clientAuth: expect.any(Function) });
    expect(() => createNodeClient({ ...options, timeout: 5000 })).not.toThrow();
  });

  it('refuses what the profile forbids, each with the rule', async () => {
    for (const forbidden of [{ clientSecret: 'x' }, { pkce: false }, { par: false }, { responseType: 'code id_token' }, { authMethod: 'client_secret_basic' }]) {
      expect(() => fapi2({ ...base(), ...forbidden } as Fapi2Options)).toThrow(refused('invalid_options', /FAPI 2.0 decides/));
    }
    expect(() => fapi2(base({ alg: 'RS256' as 'PS256' }))).toThrow(refused('invalid_options', /PS256, ES256 or EdDSA/));
    expect(() => fapi2({ ...base(), dpop: undefined as unknown as DpopHandle })).toThrow(refused('invalid_options', /sender-constrained/));
    const rs256 = await dpop({ keyPair: await generateDpopKeyPair('RS256') });
    expect(() => fapi2(base({ dpop: rs256 }))).toThrow(refused('invalid_options', /not RS256/));
  });

  it('refuses the profile overridden after fapi2(), or a clientAuth of its own', () => {
    expect(() => createNodeClient({ ...fapi2(base()), pkce: false })).toThrow(refused('invalid_options', /do not override/));
    const options = fapi2(base());
    expect(() => createNodeClient({ ...options, clientAuth: async () => undefined })).toThrow(refused('invalid_options', /private_key_jwt/));
    // A pinned signing algorithm must be one the profile allows.
    expect(() => createNodeClient({ ...options, signingAlgorithm: 'RS256' })).toThrow(refused('invalid_options', /not RS256: fix signingAlgorithm/));
    expect(createNodeClient({ ...options, signingAlgorithm: 'PS256' }).signingAlgorithm).toBe('PS256');
  });

  it('messageSigning fixes both halves: a signed request object and query.jwt, neither to be dropped afterwards', () => {
    const options = fapi2(base({ messageSigning: true }));
    expect(options).toMatchObject({ responseMode: 'query.jwt', requestObject: { signer: expect.anything() } });
    expect(() => createNodeClient({ ...options })).not.toThrow();
    expect(() => createNodeClient({ ...options, responseMode: 'query' })).toThrow(refused('invalid_options', /response mode query.jwt/));
    expect(() => createNodeClient({ ...options, requestObject: undefined })).toThrow(refused('invalid_options', /signs every request object/));
  });

  it('refuses, before anything is sent, a key whose JWK says RS256', async () => {
    const { clientAuth } = fapi2(base({ privateKey: rsaJwk }));
    const body = new URLSearchParams();
    await expect(clientAuth?.({ clientId: 'fapi-rp', provider: METADATA, body, headers: new Headers() })).rejects.toMatchObject({ code: 'invalid_options' });
    expect(body.has('client_assertion')).toBe(false);
  });
});

describe('fapi2() and the provider', () => {
  it('narrows the ID token algorithms to the profile', async () => {
    const provider = await createNodeClient(fapi2(base())).getProvider();
    expect(provider.id_token_signing_alg_values_supported).toEqual(['PS256']);
  });

  it.each([
    ['no PAR endpoint', { pushed_authorization_request_endpoint: undefined }, /PAR/],
    ['no RFC 9207 iss', { authorization_response_iss_parameter_supported: false }, /RFC 9207/],
    ['no private_key_jwt', { token_endpoint_auth_methods_supported: ['client_secret_basic'] }, /private_key_jwt/],
    ['no S256', { code_challenge_methods_supported: ['plain'] }, /S256/],
    ['RS256 ID tokens only', { id_token_signing_alg_values_supported: ['RS256'] }, /PS256, ES256, EdDSA/],
  ])('refuses a provider with %s, before any request', async (_name, change, rule) => {
    const requests: string[] = [];
    const client = createNodeClient(fapi2(base({ provider: { ...METADATA, ...change }, fetch: async (input) => {
      requests.push(String(input));
      return new Response(null, { status: 500 });
    } })));
    await expect(client.startLogin()).rejects.toMatchObject({ code: 'invalid_provider_metadata', message: expect.stringMatching(rule) });
    expect(requests).toEqual([]);
  });
});
