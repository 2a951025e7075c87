/**
 * DPoP server nonces (RFC 9449 8): an HMAC of the tenant and the current time window, so every
 * instance holding the same secret (derived from the key encryption secret on a shared Redis)
 * hands out and accepts the same nonces without storing them. The current and the previous
 * window's nonce are accepted, so a nonce stays usable for at least one whole period.
 */
import { nodeCrypto } from './node-crypto';

/** Seconds each nonce is current. */
export const NONCE_PERIOD_SECONDS = 300;

/**
 * Server nonces per tenant on the server's clock; `rotate` and `expire` serve runtime control.
 *
 * @example
 * const nonces = new RotatingNonces(secret, () => Date.now());
 * nonces.accepted('demo').includes(proof.nonce);
 */
export class RotatingNonces {
  /** Extra windows added by `rotate` and `expire`: a test moves nonces on without moving the clock. */
  private shift = 0;

  /**
   * @param secret the HMAC key; without one, a random key made at the first nonce (a start
   *   loads no crypto for it).
   */
  constructor(
    private secret: Buffer | undefined,
    private readonly now: () => number,
  ) {}

  private window(): number {
    return Math.floor(this.now() / 1000 / NONCE_PERIOD_SECONDS) + this.shift;
  }

  private nonceOf(tenant: string, window: number): string {
    this.secret ??= nodeCrypto().randomBytes(32);
    return nodeCrypto().createHmac('sha256', this.secret).update(`${tenant}\n${window}`).digest('base64url');
  }

  /** The nonce to hand out now. */
  current(tenant: string): string {
    return this.nonceOf(tenant, this.window());
  }

  /** The nonces a proof may carry: the current one and the previous one. */
  accepted(tenant: string): readonly string[] {
    const window = this.window();
    return [this.nonceOf(tenant, window), this.nonceOf(tenant, window - 1)];
  }

  /** A new current nonce; the one before stays accepted (as at a scheduled rotation). */
  rotate(): void {
    this.shift += 1;
  }

  /** A new current nonce, and every nonce handed out so far refused. */
  expire(): void {
    this.shift += 2;
  }
}
