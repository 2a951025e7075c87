/**
 * OpenID Connect Back-Channel Logout 1.0, the provider's side: when a sign-in ends (RP-initiated
 * logout, or the `users.endSessions` control call), every client it gave tokens to that
 * registered a `backchannel_logout_uri` gets a logout token (section 2.4: `iss`, `aud`, `iat`,
 * a short `exp`, `jti`, `events`, `sub`, and `sid` when the client registered
 * `backchannel_logout_session_required`; never `nonce`; `typ: logout+jwt`), POSTed as a form.
 * Each attempt has a short timeout; failures (no answer, 5xx, 408, 429) are retried a bounded
 * number of times; each attempt and its result goes into the request journal.
 */
import { SignJWT } from 'jose';
import type { Logger } from '../config/logger';
import type { Tenant } from '../config/model';
import { randomToken } from '../crypto/secrets';
import type { SigningKey } from '../keys/keys';
import { type SessionClients, SessionClientTable } from './session-clients';

/** The `events` member that makes a JWT a logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/**
 * How the misbehaving mode bends one client's logout token (faults/logout-token-claims.ts):
 * its claims changed, or sent unsecured (`alg: none`).
 */
export interface LogoutTokenTamper {
  claims?: (claims: Record<string, unknown>) => void;
  unsigned?: boolean;
}

/** Lifetime of a logout token, in seconds: it is delivered at once or not at all. */
export const LOGOUT_TOKEN_SECONDS = 120;
/** Milliseconds each delivery attempt may take. */
export const ATTEMPT_TIMEOUT_MS = 2_000;
/** Pauses before the second and third attempts, in milliseconds. */
export const RETRY_DELAYS_MS: readonly number[] = [250, 1_000];
/** How long the logout page waits for deliveries before it answers (they go on after). */
export const LOGOUT_WAIT_MS = 2_000;

/** The outcome of the delivery of one logout token. */
export interface BackchannelDelivery {
  client_id: string;
  /** Whether the client answered 2xx. */
  delivered: boolean;
  /** Attempts made (at most 1 + the retries). */
  attempts: number;
  /** The last answer's status; 0 when there was none (timeout, refused connection). */
  status: number;
}

/** A client of an ended sign-in that was not sent a logout token, and why. */
export interface UnnotifiedClient {
  client_id: string;
  reason: string;
}

/** What ending a user's sessions did. */
export interface EndedSessions {
  /** Sign-ins ended. */
  sessions: number;
  deliveries: BackchannelDelivery[];
  /** The clients of the ended sign-ins that got no logout token, and why; absent when none. */
  not_notified?: UnnotifiedClient[];
  /** Why nothing was ended or delivered, when that is so. */
  hint?: string;
}

/** Why a client without a `backchannel_logout_uri` is not told of a logout. */
export const NO_BACKCHANNEL_URI =
  'no backchannel_logout_uri is registered for this client: register one (with backchannel_logout_session_required: true) so that it is told of logouts';

/** One delivery attempt, for the request journal (the token itself never). */
export interface DeliveryAttempt {
  /** The server clock when it started, ISO 8601. */
  time: string;
  tenant: string;
  client_id: string;
  /** The client's `backchannel_logout_uri`. */
  uri: string;
  attempt: number;
  /** The answer's status; 0 for none. */
  status: number;
  error?: 'timeout' | 'network';
}

/** What the module needs from the server. */
export interface BackchannelHost {
  now: () => number;
  logger: Logger;
  /** Records each attempt (the server puts it in the request journal). */
  record: (attempt: DeliveryAttempt) => void;
  fetch?: typeof fetch;
}

/**
 * The server's back-channel logout: the sign-ins it served, and the deliveries.
 *
 * @example
 * const backchannel = new Backchannel({ now, logger, record: (attempt) => journal.add(entryOf(attempt)) });
 * backchannel.signedIn('demo', issuer, user, 'web', expiresAt);
 * await backchannel.notify(tenant, key, backchannel.take('demo', user.sid));
 */
export class Backchannel {
  private readonly sessions: SessionClientTable;

  constructor(private readonly host: BackchannelHost) {
    this.sessions = new SessionClientTable(host.now);
  }

  /** Notes a sign-in (`clientId` undefined) or a client it authorized. */
  signedIn(tenant: string, issuer: string, user: Parameters<SessionClientTable['record']>[2], clientId: string | undefined, expiresAt: number): void {
    this.sessions.record(tenant, issuer, user, clientId, expiresAt);
  }

  /** The sign-in `sid`, forgotten from now on (its logout is about to be sent). */
  take(tenant: string, sid: string): SessionClients | undefined {
    return this.sessions.take(tenant, sid);
  }

  /** Every live sign-in of a user, forgotten from now on. */
  takeUser(tenant: string, username: string): SessionClients[] {
    return this.sessions.takeUser(tenant, username);
  }

  /** The clients of an ended sign-in that will get no logout token: those without a `backchannel_logout_uri`. */
  unnotified(tenant: Tenant, session: SessionClients | undefined): UnnotifiedClient[] {
    if (!session) return [];
    return [...session.clients].filter((id) => tenant.clients.get(id)?.backchannel_logout_uri === undefined).map((id) => ({ client_id: id, reason: NO_BACKCHANNEL_URI }));
  }

  /**
   * Sends a logout token to each client of an ended sign-in that registered a
   * `backchannel_logout_uri`; resolves when every delivery has succeeded or given up. `key`
   * signs them, or chooses the key per client (the misbehaving mode's wrong-algorithm fault);
   * `tamper` bends a client's token (the misbehaving mode's logout-token claim faults).
   */
  async notify(
    tenant: Tenant,
    key: SigningKey | ((clientId: string) => Promise<SigningKey>),
    session: SessionClients | undefined,
    tamper?: (clientId: string) => LogoutTokenTamper | undefined,
  ): Promise<BackchannelDelivery[]> {
    if (!session) return [];
    const targets = [...session.clients].map((id) => tenant.clients.get(id)).filter((c) => c?.backchannel_logout_uri !== undefined);
    return Promise.all(
      targets.map(async (client) => {
        const { client_id: clientId, backchannel_logout_uri: uri, backchannel_logout_session_required: withSid } = client as NonNullable<typeof client>;
        const signer = typeof key === 'function' ? await key(clientId) : key;
        const token = await this.logoutToken(signer, session, clientId, withSid, tamper?.(clientId));
        return this.deliver(tenant.id, clientId, uri as string, token);
      }),
    );
  }

  private async logoutToken(key: SigningKey, session: SessionClients, clientId: string, withSid: boolean, tamper?: LogoutTokenTamper): Promise<string> {
    const iat = Math.floor(this.host.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: session.issuer,
      sub: session.sub,
      aud: clientId,
      iat,
      exp: iat + LOGOUT_TOKEN_SECONDS,
      jti: randomToken(16),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      ...(withSid ? { sid: session.sid } : {}),
    };
    tamper?.claims?.(claims);
    if (tamper?.unsigned) return unsecuredLogoutToken(claims);
    return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'logout+jwt' }).sign(await key.privateKey());
  }

  private async deliver(tenant: string, clientId: string, uri: string, token: string): Promise<BackchannelDelivery> {
    const send = this.host.fetch ?? fetch;
    // Bounded: the last attempt always returns.
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt - 2]));
      const time = new Date(this.host.now()).toISOString();
      let status = 0;
      let failure: 'timeout' | 'network' | undefined;
      try {
        const response = await send(uri, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ logout_token: token }).toString(),
          redirect: 'manual', // a client's answer is its own; never followed elsewhere
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        status = response.status;
        await response.body?.cancel().catch(() => undefined);
      } catch (error) {
        failure = error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'network';
      }
      this.host.record({ time, tenant, client_id: clientId, uri, attempt, status, ...(failure ? { error: failure } : {}) });
      const delivered = status >= 200 && status < 300;
      // 400 says the client refused this token: sending it again changes nothing.
      const retry = status === 0 || status >= 500 || status === 408 || status === 429;
      if (delivered || !retry || attempt === 1 + RETRY_DELAYS_MS.length) {
        if (!delivered) this.host.logger.warn?.(`tenant ${tenant}: back-channel logout to client ${clientId} failed after ${attempt} attempt(s) (status ${status})`);
        return { client_id: clientId, delivered, attempts: attempt, status };
      }
    }
  }
}

/**
 * Waits for `deliveries` at most `ms`: the logout page answers in bounded time, the deliveries go on.
 *
 * @example
 * await waitAtMost(backchannel.notify(tenant, key, session), LOGOUT_WAIT_MS);
 */
export async function waitAtMost(deliveries: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([deliveries.then(() => undefined, () => undefined), elapsed]);
  clearTimeout(timer);
}

/** An unsecured logout token (RFC 7519 6): `alg: none` and an empty signature. */
function unsecuredLogoutToken(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'logout+jwt' })}.${part(claims)}.`;
}
