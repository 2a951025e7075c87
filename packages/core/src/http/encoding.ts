/** Byte and text encodings used across the protocol (WebCrypto-friendly, no Node built-ins). */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** base64url without padding (RFC 4648 section 5). */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes base64url (padding optional); throws a TypeError on characters outside the alphabet. */
export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new TypeError('not base64url');
  // atob decodes unpadded input (forgiving-base64), so the padding is simply dropped.
  const binary = atob(text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** `n` bytes from the platform CSPRNG (crypto.getRandomValues), base64url-encoded. */
export function randomBase64url(n: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(n)));
}

/** The `hash` ('SHA-256', 'SHA-384', 'SHA-512') of the UTF-8 bytes of `text`. */
export async function digest(hash: string, text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(hash, utf8(text)));
}
