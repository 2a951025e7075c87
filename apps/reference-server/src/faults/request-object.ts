/**
 * Request-object (RFC 9101) and signed-userinfo (OIDC Core 5.3.2) faults: a valid request object
 * refused as if a check had failed, and signed userinfo that breaks one rule, so a client's
 * handling of each can be tested over real HTTP. Consulted only for a client with faults.
 */
import { SignJWT, generateKeyPair } from 'jose';
import type { Fault } from '../config/fault-names';
import type { SigningKey } from '../keys/keys';

/**
 * The refusal a client's faults give a request object that passed every check, or undefined.
 *
 * @example
 * const faulty = faultyRequestObjectRefusal(client.faults);
 * if (faulty) throw refuse(faulty);
 */
export function faultyRequestObjectRefusal(faults: ReadonlySet<Fault>): string | undefined {
  return faults.has('request_object_refused') ? 'the request object signature does not verify with the keys registered for the client' : undefined;
}

/** The signed-userinfo faults, in the order they are tried. */
const USERINFO_FAULTS: readonly Fault[] = [
  'userinfo_encrypted',
  'userinfo_signed_alg_none',
  'userinfo_signed_wrong_alg',
  'userinfo_signed_unknown_key',
  'userinfo_signed_wrong_iss',
  'userinfo_signed_wrong_aud',
];

// Keys that are never published: what a forger would sign with.
let strangers: Promise<{ es256: CryptoKey; rs256: CryptoKey }> | undefined;
function strangerKeys(): Promise<{ es256: CryptoKey; rs256: CryptoKey }> {
  strangers ??= Promise.all([generateKeyPair('ES256'), generateKeyPair('RS256')]).then(([es, rs]) => ({ es256: es.privateKey, rs256: rs.privateKey }));
  return strangers;
}

/**
 * The userinfo JWT for a client whose faults break signed userinfo, or undefined when they break
 * none: encrypted (five parts, which no client here can read), unsigned (`alg: none`), signed with
 * another algorithm than the registered one, signed by a key the JWKS does not publish (same
 * `kid`), another `iss`, or another `aud`.
 *
 * @example
 * const body = (faults && (await faultySignedUserinfo(faults, claims, key))) ?? (await sign(claims));
 */
export async function faultySignedUserinfo(faults: ReadonlySet<Fault>, payload: Record<string, unknown>, key: SigningKey): Promise<string | undefined> {
  const fault = USERINFO_FAULTS.find((name) => faults.has(name));
  if (fault === undefined) return undefined;
  const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  switch (fault) {
    case 'userinfo_encrypted':
      return `${segment({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: key.kid })}.${'A'.repeat(342)}.${'A'.repeat(16)}.${segment(payload)}.${'A'.repeat(22)}`;
    case 'userinfo_signed_alg_none':
      return `${segment({ alg: 'none' })}.${segment(payload)}.`;
    case 'userinfo_signed_wrong_alg': {
      const other = key.alg === 'RS256' ? 'ES256' : 'RS256';
      const privateKey = other === 'ES256' ? (await strangerKeys()).es256 : (await strangerKeys()).rs256;
      return new SignJWT(payload).setProtectedHeader({ alg: other, kid: key.kid }).sign(privateKey);
    }
    case 'userinfo_signed_unknown_key': {
      const privateKey = key.alg === 'ES256' ? (await strangerKeys()).es256 : (await strangerKeys()).rs256;
      return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(privateKey);
    }
    case 'userinfo_signed_wrong_iss':
      return new SignJWT({ ...payload, iss: `${String(payload.iss)}/impostor` }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(await key.privateKey());
    default:
      return new SignJWT({ ...payload, aud: 'another-client' }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(await key.privateKey());
  }
}
