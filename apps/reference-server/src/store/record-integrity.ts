/**
 * Integrity of the grant records kept in Redis (sessions, interactions, consents, codes, access
 * and refresh tokens): each is stored as `MAC.JSON`, the MAC an HMAC-SHA256 over the Redis key
 * and the JSON under a key derived from the key encryption secret. Whoever can write to Redis
 * but does not hold the secret cannot make a record the server accepts: a forged record, or a
 * genuine one moved to another key (another code, another kind), reads as absent.
 */
import { deriveKey } from '../crypto/derive-key';
import { nodeCrypto } from '../crypto/node-crypto';

const MAC_LENGTH = 43; // base64url of 32 bytes

/**
 * Authenticates records with one secret.
 *
 * @example
 * const integrity = new RecordIntegrity(secret);
 * const stored = integrity.wrap(key, JSON.stringify(record));
 * integrity.unwrap(key, stored); // the JSON, or undefined when forged or moved
 */
export class RecordIntegrity {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = deriveKey(secret, 'grant records');
  }

  private mac(place: string, json: string): string {
    return nodeCrypto().createHmac('sha256', this.key).update(place).update('\n').update(json).digest('base64url');
  }

  /**
   * The value to store under `place` (the full Redis key).
   *
   * @example
   * await redis.command(['SET', key, integrity.wrap(key, json)]);
   */
  wrap(place: string, json: string): string {
    return `${this.mac(place, json)}.${json}`;
  }

  /**
   * The JSON stored under `place`, or undefined when its MAC does not hold.
   *
   * @example
   * const json = integrity.unwrap(key, await redis.get(key));
   */
  unwrap(place: string, stored: string): string | undefined {
    if (stored.length <= MAC_LENGTH || stored[MAC_LENGTH] !== '.') return undefined;
    const json = stored.slice(MAC_LENGTH + 1);
    const expected = Buffer.from(this.mac(place, json));
    const given = Buffer.from(stored.slice(0, MAC_LENGTH));
    return given.length === expected.length && nodeCrypto().timingSafeEqual(given, expected) ? json : undefined;
  }
}
