// Issue 23 item 8 over real HTTP. The attack: an app's session secret is a phrase someone made
// up; the attacker, knowing the cookie format (this package is public), guesses it offline and
// forges a session cookie for alice. The forge is faithful (sealed with the app's own secret it
// is accepted, below), so what stops the attack is that a guessable secret never runs: the
// session layer refuses it at creation. Guard: a random secret logs in end to end against the
// reference server.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../src/sealing';
import { Agent, SECRET, type SessionWorld, startSessionWorld } from './support/session-app';

/** What an attacker tries first: every one of these is at least 32 characters long. */
const GUESSES = [
  'my-app-session-secret-2024-prod!',
  'ChangeMe-ChangeMe-ChangeMe-2024!',
  'correct-horse-battery-staple-now',
  'Session0123456789Session01234567',
  'a'.repeat(32),
];

let world: SessionWorld;
beforeAll(async () => {
  world = await startSessionWorld();
});
afterAll(() => world.close());

/** A session cookie for alice, sealed the way the session layer seals one, with `secret`. */
async function forgedCookie(secret: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const record = {
    id: randomUUID(),
    csrf: 'forged',
    claims: { sub: 'alice', iss: world.issuer, aud: 'web', name: 'Forged Alice' },
    accessToken: 'forged-access-token',
    createdAt: now,
    absoluteExpiresAt: now + 3600,
  };
  return `oidc-rp.session=${await seal({ s: record }, [secret], 'session cookie', now + 3600, now)}`;
}

describe('a guessable session secret', () => {
  it('the forge is faithful: a cookie sealed with the running app\u2019s secret is taken as alice', async () => {
    world.use({ secret: SECRET });
    const { status, body } = await new Agent(world.appOrigin).json<{ user: { sub: string } }>('/me', { cookie: await forgedCookie(SECRET) });
    expect(status).toBe(200);
    expect(body.user.sub).toBe('alice');
  });

  it.each(GUESSES)('%s: the session layer refuses to start with it, naming the option and how to generate one', (secret) => {
    let error: { code?: string; message?: string } | undefined;
    try {
      world.use({ secret });
    } catch (e) {
      error = e as typeof error;
    }
    expect(error).toMatchObject({
      code: 'invalid_options',
      message: expect.stringMatching(/^`secret` \(the session secret\) does not look random .*openssl rand -base64 32/),
    });
    expect(error?.message).not.toContain(secret);
  });

  it('so no cookie forged with a guess is ever accepted: the app that runs has a random secret', async () => {
    world.use({ secret: randomBytes(32).toString('base64url') });
    for (const guess of GUESSES) {
      const { status, body } = await new Agent(world.appOrigin).json('/me', { cookie: await forgedCookie(guess) });
      expect(status).toBe(401);
      expect(body).not.toHaveProperty('user');
    }
  });

  it('guard: a random secret (openssl rand -base64 32) logs in end to end against the reference server', async () => {
    const secret = randomBytes(32).toString('base64');
    world.use({ secret });
    const agent = new Agent(world.appOrigin);
    const callback = await agent.logIn();
    expect(callback.status).toBe(303);
    const { status, body } = await agent.json<{ user: { sub: string; iss: string } }>('/me');
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ sub: 'alice', iss: world.issuer });
  });

  it('guard: a rotation list of random secrets keeps sessions sealed with the old one', async () => {
    const old = randomBytes(32).toString('base64url');
    world.use({ secret: old });
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    world.use({ secret: [randomBytes(32).toString('hex'), old] });
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
  });
});
