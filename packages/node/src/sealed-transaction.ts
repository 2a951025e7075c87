/**
 * A login transaction sealed into a compact JWE (`dir` + A256GCM): encrypted, so the
 * browser cannot read the PKCE verifier or nonce, and authenticated, so it cannot change
 * them. The key is derived from a configured secret with HKDF, so every instance that
 * shares the secret can unseal: a fleet of backends needs no sticky sessions.
 */

import { OidcError } from '@oidc-rp/core';
import { invalidOptions } from '@oidc-rp/core/internal';
import type { AuthorizationTransaction } from '@oidc-rp/core';
import { nowSeconds, open, seal } from './sealing';
import { checkSecrets } from './secret-strength';

/**
 * How to seal: the secret(s) and the lifetime.
 *
 * @example
 * ```ts
 * // Rotation: seal with the new secret, still open cookies sealed with the old one.
 * const options: SealOptions = { secret: [process.env.COOKIE_SECRET!, process.env.OLD_COOKIE_SECRET!], maxAge: 600 };
 * ```
 */
export interface SealOptions {
  /** At least 32 characters of random data (see README, Secrets). An array rotates: the first seals, every one unseals. */
  secret: string | string[];
  /** Seconds the sealed value stays valid. Default 600 (10 minutes). */
  maxAge?: number;
}

const DEFAULT_MAX_AGE = 600;
const PURPOSE = 'transaction cookie';

/**
 * Seals a login transaction into a compact string fit for a cookie (about 700 bytes).
 *
 * @example
 * ```ts
 * const { url, transaction } = await client.startLogin();
 * const sealed = await sealTransaction(transaction, { secret: process.env.COOKIE_SECRET! });
 * // Set-Cookie: oidc-rp.tx=<sealed>; HttpOnly; Secure; SameSite=Lax; Max-Age=600
 * ```
 */
export async function sealTransaction(transaction: AuthorizationTransaction, options: SealOptions): Promise<string> {
  const secrets = checkSecrets(options.secret, 'secret', 'the transaction cookie secret');
  const maxAge = options.maxAge ?? DEFAULT_MAX_AGE;
  if (!Number.isFinite(maxAge) || maxAge <= 0) {
    throw invalidOptions('The transaction maxAge must be a positive number of seconds.');
  }
  if (typeof transaction !== 'object' || transaction === null || typeof transaction.state !== 'string') {
    throw invalidOptions('sealTransaction needs the transaction returned by startLogin().');
  }
  const now = nowSeconds();
  return seal({ tx: transaction }, secrets, PURPOSE, now + Math.floor(maxAge), now);
}

/**
 * Opens a value made by {@link sealTransaction}. Rejects with OidcError
 * `transaction_expired` after its max age, and `transaction_invalid` when it was changed,
 * sealed with another secret, or is not a sealed transaction at all.
 *
 * @example
 * ```ts
 * const transaction = await unsealTransaction(cookieValue, { secret: process.env.COOKIE_SECRET! });
 * const tokens = await client.finishLogin(request, transaction);
 * ```
 */
export async function unsealTransaction(sealed: string, options: Pick<SealOptions, 'secret'>): Promise<AuthorizationTransaction> {
  const secrets = checkSecrets(options.secret, 'secret', 'the transaction cookie secret');
  const opened = await open(sealed, secrets, PURPOSE);
  if (opened.ok) {
    if (!isTransaction(opened.payload.tx)) throw invalid('its content is not a login transaction');
    return opened.payload.tx;
  }
  if (opened.reason === 'expired') {
    throw new OidcError(
      'transaction_expired',
      'The login transaction has expired (the user took longer than its max age to log in): start a new login.',
    );
  }
  if (opened.cause !== undefined) throw invalid('it is malformed', opened.cause);
  throw invalid('it was changed or sealed with a different cookieSecret');
}

function isTransaction(value: unknown): value is AuthorizationTransaction {
  if (typeof value !== 'object' || value === null) return false;
  const tx = value as Record<string, unknown>;
  return ['state', 'redirectUri', 'responseType', 'responseMode', 'scope', 'clientId', 'issuer'].every(
    (field) => typeof tx[field] === 'string',
  );
}

function invalid(why: string, cause?: unknown): OidcError {
  return new OidcError(
    'transaction_invalid',
    `The login transaction cookie was rejected: ${why}. Start a new login; if this keeps happening, ` +
      'check that every instance uses the same cookieSecret.',
    cause === undefined ? undefined : { cause },
  );
}
