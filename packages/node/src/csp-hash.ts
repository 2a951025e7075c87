/**
 * The CSP source (`'sha256-…'`) that allows one fixed inline script or style, computed once per
 * text: the pages the SDK serves allow their own inline code by hash, never by nonce or
 * `'unsafe-inline'`.
 *
 * @example
 * const source = cspHash('body{margin:0}');
 * const csp = `style-src ${await source()}`;
 */
export function cspHash(text: string): () => Promise<string> {
  let hash: Promise<string> | undefined;
  return () => {
    hash ??= crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(text))
      .then((digest) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
    return hash;
  };
}
