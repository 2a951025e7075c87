// A tenant's signing key is made when the tenant first signs or publishes, once: not at start
// (a config's unused tenants cost no RSA generation), and one generation however many first
// requests arrive together.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReferenceServer, demoConfig, type Listening, type ReferenceServer, type ServerConfig } from '../src/index';

/** The demo tenant three times over, as `a`, `b` and `c`. */
function threeTenants(): ServerConfig {
  const config = demoConfig();
  const demo = config.tenants[0] as NonNullable<ServerConfig['tenants'][number]>;
  return { ...config, tenants: ['a', 'b', 'c'].map((id) => ({ ...structuredClone(demo), id })) };
}

/** Counts the key pairs generated from now on (jose generates through WebCrypto). */
function countGenerations(): () => number {
  const generate = vi.spyOn(crypto.subtle, 'generateKey');
  return () => generate.mock.calls.length;
}

let server: ReferenceServer | undefined;
let listening: Listening | undefined;
afterEach(async () => {
  await listening?.close();
  await server?.close();
  server = undefined;
  listening = undefined;
});

describe('signing keys made on demand', () => {
  it('a new server generates no key until a tenant signs or publishes, and discovery needs none', async () => {
    const generations = countGenerations();
    server = await createReferenceServer(threeTenants(), { logger: false });
    listening = await server.listen({ port: 0 });
    const discovery = await fetch(`${listening.origin}/b/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    await discovery.json();
    expect(generations()).toBe(0);

    const jwks = await fetch(`${listening.origin}/b/oidc/jwks`);
    expect(((await jwks.json()) as { keys: unknown[] }).keys).toHaveLength(1);
    expect(generations()).toBe(1);
  });

  it('twenty concurrent first requests to a tenant share one generation and publish the same key', async () => {
    const generations = countGenerations();
    server = await createReferenceServer(threeTenants(), { logger: false });
    listening = await server.listen({ port: 0 });
    const origin = listening.origin;
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await fetch(`${origin}/a/oidc/jwks`);
        return ((await res.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
      }),
    );
    expect(new Set(answers.map((kids) => kids.join(' '))).size).toBe(1);
    expect(answers[0]).toHaveLength(1);
    expect(generations()).toBe(1);
  });

  it('a rotation before first use makes the first key, then its successor; both are published', async () => {
    server = await createReferenceServer(threeTenants(), { logger: false });
    const { kid } = await server.rotateSigningKey('c');
    const res = await server.fetch(new Request('http://127.0.0.1/c/oidc/jwks'));
    const kids = ((await res.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    expect(kids).toHaveLength(2);
    expect(kids[0]).toBe(kid);
  });
});
