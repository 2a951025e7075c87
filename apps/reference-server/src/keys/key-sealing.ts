/**
 * Sealing of the signing-key document kept in a shared store: JWE (`dir`, A256GCM) under a key
 * derived with HKDF-SHA256 from the configured key encryption secret. The protected header
 * names the document's place (tenant and algorithm) and is authenticated with the content, so
 * a document that was altered, written under another secret, or copied from another tenant's
 * place does not open. Whoever can write to Redis can still delete the document, or put back an
 * older one; the version inside it lets running instances refuse that (shared-keys.ts).
 */
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';
import { deriveKey } from '../crypto/derive-key';

const CONTENT_TYPE = 'oidc-rp-signing-keys';

/** Why a sealed document was refused (never its content). */
export class UnsealError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnsealError';
  }
}

/**
 * Seals and opens key documents with one secret.
 *
 * @example
 * const sealer = new KeySealer(process.env.OIDC_RP_KEY_ENCRYPTION_SECRET!);
 * const sealed = await sealer.seal(json, 'acme:RS256');
 * const json2 = await sealer.open(sealed, 'acme:RS256');
 */
export class KeySealer {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new Uint8Array(deriveKey(secret, 'signing-key document'));
  }

  /**
   * The document as a compact JWE bound to `place`.
   *
   * @example
   * await redis.setIfAbsent(key, await sealer.seal(text, place));
   */
  async seal(text: string, place: string): Promise<string> {
    return new CompactEncrypt(new TextEncoder().encode(text))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: CONTENT_TYPE, place })
      .encrypt(this.key);
  }

  /**
   * The document sealed for `place`; throws {@link UnsealError} saying why it cannot be used.
   *
   * @example
   * const text = await sealer.open(stored, place);
   */
  async open(sealed: string, place: string): Promise<string> {
    if (sealed.trimStart().startsWith('{')) {
      throw new UnsealError('it is not encrypted (written by a server without a key encryption secret, or by someone with write access to Redis)');
    }
    let header: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(sealed) as Record<string, unknown>;
    } catch {
      throw new UnsealError('it is not a sealed key document');
    }
    if (header.alg !== 'dir' || header.enc !== 'A256GCM' || header.cty !== CONTENT_TYPE) throw new UnsealError('it is not a sealed key document');
    if (header.place !== place) throw new UnsealError(`it was sealed for another tenant or algorithm (${String(header.place)})`);
    try {
      const { plaintext } = await compactDecrypt(sealed, this.key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
      return new TextDecoder().decode(plaintext);
    } catch {
      throw new UnsealError('it does not decrypt with the configured key encryption secret (written under another secret, or tampered with)');
    }
  }
}
