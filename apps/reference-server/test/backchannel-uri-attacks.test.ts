// A backchannel_logout_uri is where the server POSTs logout tokens, so a URI on a private
// network aims the server at what only it can reach (169.254.169.254 is a cloud metadata
// service). Refused at config time, in the file and over the HTTP control API, unless the
// client names the rare case with backchannel_logout_private_network; loopback works as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createReferenceServer, demoConfig, type ReferenceServer, type ServerConfig, validateConfig } from '../src/index';
import { CONTROL_REQUEST_HEADER } from '../src/control/access';

/** The demo tenant as a production one: no development flag, https redirect URIs. */
function production(): ServerConfig {
  const config = demoConfig();
  const tenant = config.tenants[0] as NonNullable<ServerConfig['tenants'][number]>;
  tenant.development = false;
  tenant.demo_login = false;
  for (const client of tenant.clients ?? []) {
    if (client.redirect_uris) client.redirect_uris = [`https://${client.client_id}.example/callback`];
    if (client.post_logout_redirect_uris) client.post_logout_redirect_uris = [];
    // The demo's http back-channel URI is for development tenants only.
    delete client.backchannel_logout_uri;
  }
  return config;
}

function withUri(uri: string, extra: Record<string, unknown> = {}): ServerConfig {
  const config = production();
  const web = config.tenants[0]?.clients?.find((c) => c.client_id === 'web');
  Object.assign(web ?? {}, { backchannel_logout_uri: uri, ...extra });
  return config;
}

function refusal(config: ServerConfig): ConfigError {
  try {
    validateConfig(config);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the config was accepted');
}

const PRIVATE = [
  'https://169.254.169.254/latest/meta-data/',
  'https://2852039166/bcl', // 169.254.169.254 written as one number
  'https://10.0.0.5/bcl',
  'https://172.20.1.1:8443/bcl',
  'https://192.168.1.10/bcl',
  'https://100.64.0.1/bcl',
  'https://0.0.0.0/bcl',
  'https://[fd00::1]/bcl',
  'https://[fe80::1]/bcl',
  'https://[::ffff:169.254.169.254]/bcl',
  'https://[::]/bcl',
];

describe('I9: a backchannel_logout_uri on a private network', () => {
  it('is refused at config time, naming the key and the way out', () => {
    for (const uri of PRIVATE) {
      const error = refusal(withUri(uri));
      expect(error.field, uri).toBe('tenants[0].clients[1].backchannel_logout_uri');
      expect(error.message, uri).toMatch(/private network.*"backchannel_logout_private_network": true/);
    }
    expect(refusal(withUri(PRIVATE[0] as string)).message).toMatch(/link-local address \(169\.254\.0\.0\/16/);
  });

  it('is accepted when the client sets backchannel_logout_private_network; public hosts and loopback as before', () => {
    for (const uri of PRIVATE) expect(() => validateConfig(withUri(uri, { backchannel_logout_private_network: true })), uri).not.toThrow();
    for (const uri of ['https://rp.example.com/bcl', 'https://8.8.8.8/bcl', 'https://127.0.0.1:3000/bcl', 'https://[::1]/bcl', 'https://172.32.0.1/bcl']) {
      expect(() => validateConfig(withUri(uri)), uri).not.toThrow();
    }
    const flag = withUri('https://rp.example.com/bcl', { backchannel_logout_private_network: 'yes' });
    expect(refusal(flag).field).toBe('tenants[0].clients[1].backchannel_logout_private_network');
  });

  describe('over the HTTP control API', () => {
    let server: ReferenceServer;
    let origin: string;
    beforeAll(async () => {
      server = await createReferenceServer(production(), { logger: false, controlApi: true });
      origin = (await server.listen({ port: 0 })).origin;
    });
    afterAll(() => server?.close());

    const patchWeb = (body: unknown) =>
      fetch(`${origin}/_control/clients/web`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', [CONTROL_REQUEST_HEADER]: '1' },
        body: JSON.stringify(body),
      });

    it('a client changed to POST its logout tokens to the metadata service is refused, and keeps its old setting', async () => {
      const res = await patchWeb({ backchannel_logout_uri: 'https://169.254.169.254/latest/meta-data/iam/' });
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toMatch(/backchannel_logout_uri.*link-local/);
      const listed = (await (await fetch(`${origin}/_control/clients`, { headers: { [CONTROL_REQUEST_HEADER]: '1' } })).json()) as unknown;
      expect(JSON.stringify(listed)).not.toContain('169.254.169.254');
      expect((await patchWeb({ backchannel_logout_uri: 'https://rp.example.com/bcl' })).status).toBe(200);
    });
  });
});
