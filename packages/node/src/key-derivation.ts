/**
 * Derives a 256-bit AES key from a configured secret with HKDF-SHA-256. `purpose` separates
 * keys derived from the same secret for different uses (sealed cookies, cache encryption).
 */
export async function deriveAesKey(secret: string, purpose: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: purpose },
    material,
    256,
  );
  return new Uint8Array(bits);
}
