/**
 * The pieces of an API-side test over real HTTP on 127.0.0.1 (port 0): an issuer whose JWKS is
 * served by a counting node:http server and which signs whatever token a test needs (hostile
 * ones included), DPoP proofs of any shape, and a small protected resource that hands each
 * request to a verifier and answers with its challenge. The resource builds `ResourceRequest.url`
 * from its configured public origin, never from the `Host` header.
 */
import { createHash, createHmac, generateKeyPairSync, type KeyObject, type KeyPairKeyObjectResult, randomBytes, sign } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isOidcError } from '@oidc-rp/core';
import type { AccessTokenVerifier, ResourceRequest } from '@oidc-rp/core/api';
import { outlastClientKeepAlive } from '../../../../test-support/keep-alive';

export type Json = Record<string, unknown>;

const b64 = (value: Json | string) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A key pair with its public JWK. */
export interface TestKey {
  alg: 'RS256' | 'ES256' | 'PS256' | 'EdDSA';
  kid: string;
  privateKey: KeyObject;
  publicJwk: Json;
}

/**
 * The RSA key pairs the tests use in fixed roles, each made once per process: an RSA-2048 pair
 * costs a tenth of a second of CPU or more to make (an EC one almost nothing), and no test here is
 * about key generation. Distinct roles are distinct keys, so an attacker's key is never the issuer's.
 */
export type RsaRole = 'issuer' | 'attacker' | 'stranger';
const rsaPairs = new Map<RsaRole, KeyPairKeyObjectResult>();

/** The RSA key of `role` (made once per process) under `kid`, for `alg` RS256 or PS256. */
export function rsaKey(role: RsaRole, kid = `${role}-${randomBytes(4).toString('hex')}`, alg: 'RS256' | 'PS256' = 'RS256'): TestKey {
  let pair = rsaPairs.get(role);
  if (!pair) {
    pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    rsaPairs.set(role, pair);
  }
  return { alg, kid, privateKey: pair.privateKey, publicJwk: pair.publicKey.export({ format: 'jwk' }) as Json };
}

/** A freshly made key pair (RSA ones when a test needs a key no other test holds; else see {@link rsaKey}). */
export function makeKey(alg: TestKey['alg'], kid = `${alg}-${randomBytes(4).toString('hex')}`): TestKey {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { alg, kid, privateKey: pair.privateKey, publicJwk: pair.publicKey.export({ format: 'jwk' }) as Json };
}

/** Signs `header.payload` with `key` under `alg` (any alg, for hostile tokens: `none`, HS256 with any secret). */
export function signJws(header: Json, payload: Json | string, key: KeyObject | Buffer | undefined, alg = header.alg as string): string {
  const input = `${b64(header)}.${b64(payload)}`;
  if (alg === 'none' || key === undefined) return `${input}.`;
  let signature: Buffer;
  if (alg.startsWith('HS')) signature = createHmac('sha256', key as Buffer).update(input).digest();
  else if (alg === 'EdDSA') signature = sign(null, Buffer.from(input), key as KeyObject);
  else if (alg === 'ES256') signature = sign('sha256', Buffer.from(input), { key: key as KeyObject, dsaEncoding: 'ieee-p1363' });
  else if (alg === 'PS256') signature = sign('sha256', Buffer.from(input), { key: key as KeyObject, padding: 6, saltLength: 32 });
  else signature = sign('sha256', Buffer.from(input), key as KeyObject);
  return `${input}.${signature.toString('base64url')}`;
}

export const thumbprint = (jwk: Json) => {
  const { kty, crv, x, y, n, e } = jwk;
  const members = kty === 'EC' ? { crv, kty, x, y } : kty === 'RSA' ? { e, kty, n } : { crv, kty, x };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
};
export const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A JWKS over HTTP that counts its requests, and the issuer that signs with its keys. */
export interface TestIssuer {
  issuer: string;
  jwksUri: string;
  keys: TestKey[];
  jwksRequests: () => number;
  /** An RFC 9068 token by `key` (default the first), with `claims` over the defaults and `header` over `{ alg, kid, typ: 'at+jwt' }`. */
  token(claims?: Json, header?: Json, key?: TestKey): string;
  close(): Promise<void>;
}

export async function startIssuer(audience: string, keys = [rsaKey('issuer'), makeKey('ES256')], now = () => Math.floor(Date.now() / 1000)): Promise<TestIssuer> {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: k.alg, use: 'sig' })) }));
  });
  const origin = await listen(server);
  const issuer = `${origin}/tenant`;
  return {
    issuer,
    jwksUri: `${origin}/jwks`,
    keys,
    jwksRequests: () => requests,
    token(claims = {}, header = {}, key = keys[0] as TestKey) {
      const iat = now();
      const payload = { iss: issuer, sub: 'alice', aud: audience, client_id: 'spa', scope: 'orders:read profile', iat, exp: iat + 300, jti: randomBytes(8).toString('hex'), ...claims };
      for (const [name, value] of Object.entries(payload)) if (value === undefined) delete (payload as Json)[name];
      const fullHeader = { alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header };
      for (const [name, value] of Object.entries(fullHeader)) if (value === undefined) delete (fullHeader as Json)[name];
      return signJws(fullHeader, payload, key.privateKey, fullHeader.alg as string);
    },
    close: () => close(server),
  };
}

/** A DPoP proof by `key` for a request, each part overridable (`undefined` leaves a claim out). */
export function proof(key: TestKey, request: { method: string; url: string; token?: string }, claims: Json = {}, header: Json = {}, now = () => Math.floor(Date.now() / 1000)): string {
  const payload: Json = { jti: randomBytes(12).toString('base64url'), htm: request.method, htu: request.url, iat: now(), ...(request.token ? { ath: ath(request.token) } : {}), ...claims };
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
  const fullHeader: Json = { typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk, ...header };
  return signJws(fullHeader, payload, key.privateKey, fullHeader.alg as string);
}

/** What the protected resource answered. */
export interface ResourceAnswer {
  status: number;
  challenge: string | null;
  dpopNonce: string | null;
  body: Json;
}

/**
 * A protected resource on 127.0.0.1 calling `verifier` for every request; `errors` collects the
 * messages of every refusal (so a test can show no token leaked into one).
 */
export async function startResource(verifier: () => AccessTokenVerifier) {
  const messages: string[] = [];
  let publicOrigin = '';
  // Headers up to 4 MB reach the verifier, so its own bound is what the oversized cases meet.
  const server = createServer({ maxHeaderSize: 4 << 20 }, (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    const dpopHeader = request.headersDistinct.dpop;
    const authorization = request.headersDistinct.authorization;
    const resourceRequest: ResourceRequest = {
      method: request.method ?? 'GET',
      // The configured public origin, never the Host header.
      url: new URL(request.url ?? '/', publicOrigin).href,
      authorization: authorization ? authorization.join(', ') : null,
      dpop: dpopHeader ? dpopHeader.join(', ') : null,
    };
    verifier()(resourceRequest).then(
      (verified) => json(response, 200, { sub: verified.claims.sub, scheme: verified.scheme, scopes: verified.scopes }),
      (error: unknown) => {
        messages.push(error instanceof Error ? `${error.message} ${String(error.stack)}` : String(error));
        const e = error as { code?: string; challenge?: string; dpopNonce?: string };
        if (!isOidcError(error) || !e.challenge) return json(response, 503, { code: e.code ?? 'unexpected' });
        const status = e.challenge === 'invalid_request' ? 400 : e.challenge === 'insufficient_scope' ? 403 : 401;
        const scheme = resourceRequest.authorization?.toLowerCase().startsWith('dpop') ? 'DPoP' : 'Bearer';
        const headers: Record<string, string> = { 'www-authenticate': `${scheme} error="${e.challenge}"` };
        if (e.dpopNonce) headers['dpop-nonce'] = e.dpopNonce;
        json(response, status, { code: e.code }, headers);
      },
    );
  });
  publicOrigin = await listen(server);
  return {
    origin: publicOrigin,
    messages,
    async call(path: string, headers: Record<string, string | string[]> = {}, method = 'GET'): Promise<ResourceAnswer> {
      const { request } = await import('node:http');
      return new Promise((resolve, reject) => {
        // A new connection per call: a kept-alive socket the server times out between two slow
        // steps of a loaded machine would be reused and reset (ECONNRESET).
        const req = request(new URL(path, publicOrigin), { method, headers, agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              challenge: (res.headers['www-authenticate'] as string | undefined) ?? null,
              dpopNonce: (res.headers['dpop-nonce'] as string | undefined) ?? null,
              body: JSON.parse(text) as Json,
            }),
          );
        });
        req.on('error', reject).end();
      });
    },
    close: () => close(server),
  };
}

function json(response: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

async function listen(server: Server): Promise<string> {
  outlastClientKeepAlive(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
