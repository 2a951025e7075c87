// Concurrency at the reference server, through @oidc-rp/node over real HTTP: one code redeemed
// 50 times at once, one refresh token used 50 times at once. Exactly one wins; the rest get
// invalid_grant, and (as the server documents) the reuse revokes what the winner was given.
import { TokenEndpointError, createNodeClient, type NodeClient, type TokenSet } from '@oidc-rp/node';
import { createReferenceServer, demoConfig, type Listening } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CONCURRENCY = 50;
let listening: Listening;
let client: NodeClient;

beforeAll(async () => {
  const server = await createReferenceServer(demoConfig(), { logger: false, developmentKeys: true });
  listening = await server.listen({ port: 0, host: '127.0.0.1' });
  client = createNodeClient({
    issuer: `${listening.origin}/demo`,
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: 'http://127.0.0.1:3000/callback',
    scope: 'openid profile email offline_access',
  });
});
afterAll(() => listening.close());

async function signIn() {
  const { url, transaction } = await client.startLogin();
  const result = await completeLogin(url);
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  return { callback: result.location, transaction };
}

/** Splits settled results into the winners and the refusals, and checks every refusal is invalid_grant. */
function outcome(results: PromiseSettledResult<TokenSet>[]): TokenSet[] {
  const winners = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const refusals = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  for (const refusal of refusals) {
    expect(refusal).toBeInstanceOf(TokenEndpointError);
    expect(refusal).toMatchObject({ code: 'token_endpoint_error', status: 400, error: 'invalid_grant' });
  }
  return winners;
}

async function userinfoAccepts(tokens: TokenSet): Promise<boolean> {
  return client.getUserInfo(tokens.accessToken, { expectedSubject: 'alice' }).then(
    () => true,
    (error: unknown) => {
      expect(error).toMatchObject({ code: 'userinfo_error' });
      return false;
    },
  );
}

describe('races', () => {
  it(`${CONCURRENCY} concurrent redemptions of one code: exactly one succeeds, and the replays revoke its tokens`, async () => {
    const { callback, transaction } = await signIn();
    const results = await Promise.allSettled(Array.from({ length: CONCURRENCY }, () => client.finishLogin(callback, transaction)));
    const winners = outcome(results);
    expect(winners).toHaveLength(1);
    const [winner] = winners as [TokenSet];
    expect(winner.claims?.sub).toBe('alice');

    expect(await userinfoAccepts(winner)).toBe(false);
    await expect(client.refresh(winner.refreshToken ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it(`${CONCURRENCY} concurrent refreshes with one refresh token: exactly one succeeds, the family is revoked for the rest`, async () => {
    const { callback, transaction } = await signIn();
    const first = await client.finishLogin(callback, transaction);
    expect(await userinfoAccepts(first)).toBe(true);

    const results = await Promise.allSettled(
      Array.from({ length: CONCURRENCY }, () => client.refresh(first.refreshToken ?? '', { expectedSubject: 'alice' })),
    );
    const winners = outcome(results);
    expect(winners).toHaveLength(1);
    const [winner] = winners as [TokenSet];
    expect(winner.refreshToken).not.toBe(first.refreshToken);

    // The reuse revoked the whole family: the winner's new tokens too.
    await expect(client.refresh(winner.refreshToken ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await userinfoAccepts(winner)).toBe(false);
    expect(await userinfoAccepts(first)).toBe(false);
  });

  it('a login after the races still works', async () => {
    const { callback, transaction } = await signIn();
    const tokens = await client.finishLogin(callback, transaction);
    expect(await userinfoAccepts(tokens)).toBe(true);
    const refreshed = await client.refresh(tokens.refreshToken ?? '', { expectedSubject: 'alice' });
    expect(await userinfoAccepts(refreshed)).toBe(true);
  });
});
