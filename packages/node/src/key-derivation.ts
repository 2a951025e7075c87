/**
 * Every key this package derives from a configured secret, in one place: HKDF-SHA-256
 * (RFC 5869) with a fixed, non-zero salt and an `info` of its own per purpose, 256 bits out.
 * Purposes never share a key, so a value sealed for one (a login transaction) can never be
 * opened as another (a session). The salt and info are public; the secret alone is the key's
 * strength, which is why every secret is checked first (`secret-strength.ts`).
 */

/** What a key is for. */
export type KeyPurpose = 'transaction cookie' | 'session cookie' | 'session store entry' | 'redis token cache' | 'session refresh record';

/** Salt and info of each purpose; a changed value makes every existing sealed value unreadable. */
const DERIVATIONS: Record<KeyPurpose, { salt: string; info: string }> = {
  'transaction cookie': { salt: 'oidc-rp/node salt: transaction cookie', info: 'oidc-rp/node sealed login transaction v2' },
  'session cookie': { salt: 'oidc-rp/node salt: session cookie', info: 'oidc-rp/node session v2' },
  'session store entry': { salt: 'oidc-rp/node salt: session store entry', info: 'oidc-rp/node session store entry v2' },
  'redis token cache': { salt: 'oidc-rp/node salt: redis token cache', info: 'oidc-rp/node redis token cache v2' },
  'session refresh record': { salt: 'oidc-rp/node salt: session refresh record', info: 'oidc-rp/node session refresh record v1' },
};

const encoder = new TextEncoder();
const derived = new Map<string, Promise<Uint8Array>>();

/**
 * The 256-bit AES key of `secret` for `purpose`, derived once per process (a handful of
 * secrets and purposes: the map stays tiny).
 *
 * @example
 * const key = await deriveKey(secret, 'session cookie');
 */
export function deriveKey(secret: string, purpose: KeyPurpose): Promise<Uint8Array> {
  const id = `${purpose}\u0000${secret}`;
  let key = derived.get(id);
  if (!key) {
    key = hkdf(secret, DERIVATIONS[purpose]);
    derived.set(id, key);
  }
  return key;
}

async function hkdf(secret: string, { salt, info }: { salt: string; info: string }): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode(salt), info: encoder.encode(info) },
    material,
    256,
  );
  return new Uint8Array(bits);
}
