/**
 * How a cached token is written to Redis: JSON, or a compact JWE (`dir` + A256GCM, key
 * derived from the configured encryption key with HKDF-SHA-256, `key-derivation.ts`) when encryption at rest is
 * on. Every value names the hashed cache key it was written for, so a value copied to
 * another key (another client, issuer or scope) is refused rather than served.
 */

import { OidcError } from '@oidc-rp/core';
import { CompactEncrypt, compactDecrypt } from 'jose';
import type { CachedToken } from '../token-cache';
import { deriveKey } from '../key-derivation';

/** Turns entries into Redis values and back. Internal. */
export interface EntryCodec {
  encode(keyHash: string, entry: CachedToken): Promise<string>;
  /** Rejects with OidcError `cache_entry_invalid` when the value cannot be trusted. */
  decode(keyHash: string, value: string): Promise<CachedToken>;
}

const VERSION = 1;
const JWE_PATTERN = /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** `encryptionKeys` empty: JSON values. Otherwise the first key encrypts, every one decrypts (rotation). */
export function createEntryCodec(encryptionKeys: readonly string[]): EntryCodec {
  const keys = encryptionKeys.map((secret) => deriveKey(secret, 'redis token cache'));

  function parse(keyHash: string, json: string): CachedToken {
    let record: unknown;
    try {
      record = JSON.parse(json);
    } catch {
      // No cause: JSON.parse's message quotes the text, which may hold a token.
      throw invalid('it is not JSON');
    }
    if (!isRecord(record) || record.v !== VERSION || !isCachedToken(record.entry)) throw invalid('it is not a cached token');
    if (record.k !== keyHash) throw invalid('it was written for another issuer, client or scope');
    return record.entry;
  }

  return {
    async encode(keyHash, entry) {
      const json = JSON.stringify({ v: VERSION, k: keyHash, entry });
      const [key] = keys;
      if (!key) return json;
      return new CompactEncrypt(new TextEncoder().encode(json)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(await key);
    },

    async decode(keyHash, value) {
      if (keys.length === 0) {
        if (JWE_PATTERN.test(value)) throw invalid('it is encrypted and this instance has no encryptionKey');
        return parse(keyHash, value);
      }
      // With encryption on, a plain value could have been written by anyone with access to Redis.
      if (!JWE_PATTERN.test(value)) throw invalid('it is not encrypted although encryptionKey is set');
      for (const key of keys) {
        try {
          const { plaintext } = await compactDecrypt(value, await key, {
            keyManagementAlgorithms: ['dir'],
            contentEncryptionAlgorithms: ['A256GCM'],
          });
          return parse(keyHash, new TextDecoder().decode(plaintext));
        } catch (error) {
          if (error instanceof OidcError) throw error;
          // Another key (rotation) may still open it.
        }
      }
      throw invalid('it was encrypted with another encryptionKey or changed in Redis');
    },
  };
}


function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isCachedToken(value: unknown): value is CachedToken {
  if (!isRecord(value) || !isRecord(value.tokens)) return false;
  const { tokens } = value;
  return (
    typeof tokens.accessToken === 'string' &&
    tokens.accessToken !== '' &&
    (tokens.tokenType === 'Bearer' || tokens.tokenType === 'DPoP') &&
    (tokens.expiresAt === undefined || Number.isFinite(tokens.expiresAt)) &&
    Number.isFinite(value.renewAt) &&
    Number.isFinite(value.expiresAt)
  );
}

function invalid(why: string): OidcError {
  return new OidcError(
    'cache_entry_invalid',
    `A cached token in Redis was ignored because ${why}; a new token is requested instead. ` +
      'Give every instance the same encryptionKey (during a change, list the new key first and the old one after it).',
  );
}
