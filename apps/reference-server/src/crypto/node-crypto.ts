/**
 * node:crypto, loaded at its first use: starting the server and serving its JWKS need none of
 * it, and loading it is several milliseconds of every command-line start. A function rather
 * than a top-level import, so the CommonJS CLI bundle does not require it when it loads.
 */
import type * as Crypto from 'node:crypto';

let loaded: typeof Crypto | undefined;

/**
 * The node:crypto module.
 *
 * @example
 * const digest = nodeCrypto().createHash('sha256').update('text').digest('base64url');
 */
export function nodeCrypto(): typeof Crypto {
  loaded ??= process.getBuiltinModule('node:crypto');
  return loaded;
}
