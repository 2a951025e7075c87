/**
 * FIXED DEVELOPMENT SIGNING KEYS — NEVER FOR PRODUCTION.
 *
 * These private keys are published in this package's source for everyone to read: anybody can
 * sign tokens with them. They exist so a test server can sign its first token without
 * generating a key pair (RSA generation takes hundreds of milliseconds). The server refuses them
 * for a tenant that is not `"development": true` and for a listener on a non-loopback host.
 */
import { type CryptoKey, importJWK, type JWK } from 'jose';
import type { SigningAlg } from '../config/model';
import type { SigningKey } from './keys';

const DEVELOPMENT_JWKS: Readonly<Record<SigningAlg, JWK>> = {
  RS256: {
    kty: 'RSA',
    n: 's-xoRYd6ZB9U3UJoyTC3VHFmxWE0kdlL8Za4ZEb67uPRJKzU5RJYANmq8mn9T411dFdoqoVzH-w6nLw-nmCjRF2MvEX-ppp6GuuGyzE-oaqiT2DCl4_Em0gPb3su7_JuCAVLYvsmgfUeOww-FtE94A4dkRIkyGqKy3pgfxdMVdRFASZVbJYtQgAymKPvzQlzZZTZDRaxerhl5MiR0XdML76Wrs2aYg72XYz7B-OBOdrZ0FH7SbjjoGHfng1Nc8PTQPGhYJJSrwODH8VFpfNkPVzBk0NJ8cxIwRHR_NlwbSFh9Qfz2P6SZ8WTtsl19d-Scv1EqJVlO4CnBmuCcgiwww',
    e: 'AQAB',
    d: 'PEIX5flqry-jH3tHVuJe9AQK1F4q2hH5kk7VMJhpICrid7L-lj2fhaFg1FFVChipVq6TmlCZbv6R3r5ZBnf9Fj9yi_exQqEH9g4dld3HSSO5unYAlfwLb6ohqUeLP8dkvIDxb5QHoIy0dDg0bzXi0DBKDLUT5p9wHpe8y7PE2BVv8g5Rl1AXTyRUfNLpLN27rPDSXZ-ZBoHM-MNAX4m9H13yKPtPCsjaHmGGlfgqGubyrLpbjhK8lzwfX3y2SuHqKHJoVrefSXIpTKdHXuxLAb0-supNqacoPdjT3ukSpurrMITkVKHlowQVzoLGpwVT0vnDK4a2uNIMBaaBLgT_IQ',
    p: '7xt5WrP46Y7Mh_XCNrJqc2V_D_BZNlnKEImTismk2IAVWpB0zPSCjdLnOZk3ZOSlF5RBOKcuzK1Xvw86CROUW8ZmcR7hsJw1tDFbhmLRDMsX9ylyrDPpTxDqbg4XT4ceydg6A6wBfA0LwCR1k6ThLHNqU0lUtph9pBNWtvrf9NM',
    q: 'wKKGwzUo6i5BQjxANVJih9YLXdm2BT7TiXkz6viKreWgeC-XckEHzuuTEjsHmPeZUoy3rwAZjavlalVez4NfGX2juxWpPQtVic3ydBzS5C0071xy2OwfWKnC8sz7VLgVrJyWdQcFh0rJBqOAReafroeM_inY6PWObQ4WaARmnlE',
    dp: 'qtHR7L7OgO0HqcolKbZk3nQQRm7LDU0wUog249wS7Kj0mHLDPvkfm_qkPj37mRTP7Px5a-PkR00_druGFp3qS3Z-ESqiye2PYGAypttJxf4B7Q2rYuLjNx06nc1rUeGSWVkkeSMVHG6limuBpC0SwRLjTwUAhEKE4AcA2FB6Vwk',
    dq: 'o2i7fNiZjp4SScemiBUM9EHEfqZyW9zBwXqJaifQLFgAWjO0-vzjTMpVhj-A4GgZLgekwdUJ2D4bbKpitRGyGIOV4twrJld5Bl8n7wuMcndO0kXQPud-Z84KS8FK6sEF0dk7YKbGL9Bm2zTTWXibuIfQOMLy-Btl6Gjs5OvmySE',
    qi: 'qMy7q6k4-6VBohPuv66fX7UXXMwo7IX2ih1z3BEff3pyRmtI6c2wLveGLq4tC9qdmJr-H0F3vXsEpZxue0uCc_Tq0gQAKVrIZcIoXxq4rTkuRcsMkTUOwhVzyTh9Wr8r5H2__HBGb9ZTfBXWv4wlOGe1FJ94sZ6dVaqbF1Gnj1o',
  },
  ES256: {
    kty: 'EC',
    x: 'MxEsY306G-mKJZf2q_VE4kCRj4M4kES3FbPb9JPWuWA',
    y: 'T9_8-RTHB_eRHrzos6C50aTXkW8zBQ8DpEvLSK-OZI4',
    crv: 'P-256',
    d: 'AW3Fi-CMNUixzq7dI8q3C3wEbz1h8GfO654Dk6DTp8I',
  },
};

/**
 * The RFC 7638 thumbprint of each public key above, its `kid`: written out so that publishing
 * the JWKS needs no hashing (test/development-keys.test.ts recomputes them).
 */
const DEVELOPMENT_KIDS: Readonly<Record<SigningAlg, string>> = {
  RS256: 'R8ArEWxYhGVxBBkeE4dNBW38n0Zu5LcQSDJHpTQiGow',
  ES256: 'FHt4pWf-objFBit2z68I3sy-0qKbalh7-50jHhtL9zM',
};

const keys = new Map<SigningAlg, SigningKey>();

function developmentKey(alg: SigningAlg): SigningKey {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = DEVELOPMENT_JWKS[alg];
  const kid = DEVELOPMENT_KIDS[alg];
  let imported: Promise<CryptoKey> | undefined;
  // Imported at the first signature, once per process: serving the JWKS needs only the public half.
  const privateKey = (): Promise<CryptoKey> => {
    imported ??= importJWK(DEVELOPMENT_JWKS[alg], alg) as Promise<CryptoKey>;
    return imported;
  };
  return { kid, alg, privateKey, publicJwk: { ...publicJwk, kid, alg, use: 'sig' } };
}

/**
 * The fixed development key for `alg`, one per process. Never for production: the private key
 * is public.
 *
 * @example
 * const keys = KeySet.fromKeys(await developmentSigningKey('RS256'), [], Date.now);
 */
export function developmentSigningKey(alg: SigningAlg): Promise<SigningKey> {
  let key = keys.get(alg);
  if (!key) {
    key = developmentKey(alg);
    keys.set(alg, key);
  }
  return Promise.resolve(key);
}

/** Hosts a listener of a server with development keys may bind: loopback only. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Why development keys cannot be used for a listener on `host`, or undefined when they can.
 *
 * @example
 * developmentKeysHostProblem('0.0.0.0'); // 'development signing keys are public ...'
 */
export function developmentKeysHostProblem(host: string): string | undefined {
  if (LOOPBACK.has(host)) return undefined;
  return `development signing keys are public and serve loopback only: listen on 127.0.0.1 (not ${host}), or leave out developmentKeys`;
}
