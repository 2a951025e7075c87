/**
 * The verdicts both runners share: what an accepted run shows (a session for alice, userinfo
 * answered, the module's extra checks) and where an RP that rejects must have stopped.
 */
import { expect } from 'vitest';
import type { ModuleRun } from '../../src/runs';
import type { RunJournal } from './journal';
import { hasAccessToken } from './response-types';

/** What the app ended up with. */
export interface AppVerdict {
  error?: unknown;
  signedIn: boolean;
  tokens?: { idToken?: string | undefined; expiresAt?: number | undefined; claims?: Record<string, unknown> | undefined };
  userinfo?: Record<string, unknown>;
  /** Userinfo with its aggregated and distributed claims resolved (the claim modules). */
  resolved?: Record<string, unknown>;
}


/**
 * Where the bad response reached the RP, and so after which request nothing may follow: the
 * discovery document; the authorization response (its own faults, JARM ones included, and every ID token fault when
 * the response carries the ID token); the token response; the userinfo answer.
 */
export function rejectionPoint(run: ModuleRun): 'discovery' | 'authorization' | 'token' | 'userinfo' {
  const { step, fault } = run.definition;
  if (step === 'discovery') return 'discovery';
  if (step === 'userinfo') return 'userinfo';
  if (fault?.startsWith('redirect_') || fault?.startsWith('jarm_') || fault === 'authorize_error_login_required') return 'authorization';
  return run.responseType.includes('id_token') ? 'authorization' : 'token';
}

/**
 * The run completed: alice signed in, userinfo answered (when the response type gives an access
 * token), and the journal shows the flow of the response type.
 *
 * @example
 * expectAccepted(run, { signedIn: true, tokens, userinfo }, journal);
 */
export function expectAccepted(run: ModuleRun, verdict: AppVerdict, journal: RunJournal | undefined): void {
  expect(verdict.error, `the RP refused: ${String(verdict.error)}`).toBeUndefined();
  expect(verdict.signedIn).toBe(true);
  expect(verdict.tokens?.claims?.sub).toBe('alice');
  if (hasAccessToken(run.responseType)) expect(verdict.userinfo?.sub).toBe('alice');
  if (!journal) return;
  const codeFlow = run.responseType.includes('code');
  expect(journal.calls('token').filter((c) => c.status === 200), 'token requests answered').toHaveLength(codeFlow ? 1 : 0);
  expect(journal.calls('userinfo').at(-1)?.status).toBe(hasAccessToken(run.responseType) ? 200 : undefined);
}

function idTokenHeader(idToken: string | undefined): Record<string, unknown> {
  const [header = ''] = (idToken ?? '').split('.');
  return JSON.parse(Buffer.from(header, 'base64url').toString('utf8') || '{}') as Record<string, unknown>;
}

/**
 * The module's extra checks of an accepted run.
 *
 * @example
 * expectChecks(run, verdict, journal);
 */
export function expectChecks(run: ModuleRun, verdict: AppVerdict, journal: RunJournal): void {
  for (const check of run.definition.checks ?? []) {
    switch (check) {
      case 'basicAuth':
        expect(journal.calls('token').map((c) => c.authorization)).toEqual(['basic']);
        break;
      case 'bearerHeader':
        expect(journal.calls('userinfo').map((c) => c.authorization)).toEqual(['bearer']);
        break;
      case 'nonceSent':
        expect(journal.calls('authorize')[0]?.params.nonce).toBe('[redacted]');
        break;
      case 'scopeClaims': {
        const scope = (journal.calls('authorize')[0]?.params.scope ?? '').split(' ');
        expect(scope).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
        const claims = { ...verdict.tokens?.claims, ...verdict.userinfo };
        expect(claims).toMatchObject({ name: 'Alice Liddell', email: 'alice@example.com' });
        break;
      }
      case 'rs256':
        expect(idTokenHeader(verdict.tokens?.idToken).alg).toBe('RS256');
        break;
      case 'discoveryFirst':
        // A single-page app loads again at its callback, and may read discovery again there.
        expect(journal.calls('discovery').length).toBeGreaterThanOrEqual(1);
        expect(journal.calls('discovery').every((c) => c.status === 200)).toBe(true);
        expect(journal.first('discovery')).toBeLessThan(Math.min(journal.first('authorize'), journal.first('par'), journal.first('jwks')));
        break;
      case 'jwksFetched':
        expect(journal.calls('jwks').length).toBeGreaterThanOrEqual(1);
        expect(journal.calls('jwks').every((c) => c.status === 200)).toBe(true);
        break;
      case 'noExpiresIn':
        expect(verdict.tokens?.expiresAt).toBeUndefined();
        break;
      case 'dpopNonce':
        expect(journal.calls('token').map((c) => c.status)).toEqual([400, 200]);
        break;
      case 'userinfoDpopRetry':
        expect(journal.calls('userinfo').map((c) => c.status)).toEqual([401, 200]);
        break;
      case 'bearerBody':
        expect(journal.calls('userinfo').map((c) => ({ method: c.method, authorization: c.authorization, token: c.params.access_token }))).toEqual([
          { method: 'POST', authorization: undefined, token: '[redacted]' },
        ]);
        break;
      case 'aggregatedClaims':
        expect(verdict.resolved).toMatchObject({ sub: 'alice', address: expect.anything(), phone_number: expect.anything() });
        break;
      case 'distributedClaims':
        expect(verdict.resolved).toMatchObject({ sub: 'alice', credit_score: expect.anything() });
        expect(journal.entries.filter((e) => e.endpoint === '/oidc/claims-source' && e.method !== 'OPTIONS').map((e) => e.status)).toEqual([200]);
        break;
      case 'logoutState':
        break; // checked by the logout runner
    }
  }
}
