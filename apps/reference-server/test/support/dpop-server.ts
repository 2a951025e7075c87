// A reference server on port 0 with a hand-moved clock, and the requests the DPoP tests make
// over real HTTP: sign-ins, token requests with or without a proof, userinfo.
import { createReferenceServer, demoConfig, type Listening, type ReferenceServer, type ServerConfig } from '../../src/index';
import { completeLogin, CookieJar } from '../../src/testing';
import { Clock, pkce, SPA_REDIRECT, WEB_REDIRECT } from '../helpers';
import { type DpopKey, makeProof } from './dpop';

export interface DpopServer {
  server: ReferenceServer;
  listening: Listening;
  clock: Clock;
  issuer: string;
  /** The clock in epoch seconds, for proofs' `iat`. */
  now(): number;
  /** A form POST to `path` under the tenant (token endpoints, revocation). */
  token(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  userinfo(headers: Record<string, string>): Promise<Response>;
  /** A proof for `path` (POST unless `htm`) by `key` at the server's clock. */
  proof(key: DpopKey, path: string, extra?: { htm?: string; accessToken?: string; nonce?: string }): Promise<string>;
  /** A code of the confidential web client. */
  webCode(extra?: Record<string, string>): Promise<string>;
  /** A code of the public SPA client and its verifier. */
  spaCode(extra?: Record<string, string>): Promise<{ code: string; verifier: string }>;
  close(): Promise<void>;
}

export async function startDpopServer(change?: (config: ServerConfig) => void, options: { clock?: Clock; controlApi?: boolean } = {}): Promise<DpopServer> {
  const config = demoConfig();
  change?.(config);
  const clock = options.clock ?? new Clock();
  // The public development keys only where the server is not exposed (checkExposure refuses them otherwise).
  const exposed = config.public_origin !== undefined || config.trust_proxy === true || (config.trusted_hosts?.length ?? 0) > 0;
  const developmentKeys = config.store === undefined && !exposed;
  const server = await createReferenceServer(config, { now: clock.now, logger: false, developmentKeys, ...(options.controlApi ? { controlApi: true } : {}) });
  const listening = await server.listen({ port: 0 });
  const issuer = `${config.public_origin ?? listening.origin}/demo`;
  const local = `${listening.origin}/demo`;
  const now = () => Math.floor(clock.ms / 1000);
  async function code(params: Record<string, string>): Promise<string> {
    const url = new URL(`${local}/oidc/authorize`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const result = await completeLogin(url, { fetch: (r) => fetch(r), cookies: new CookieJar() });
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    const value = new URL(result.location).searchParams.get('code');
    if (!value) throw new Error('no code in the redirect');
    return value;
  }
  return {
    server,
    listening,
    clock,
    issuer,
    now,
    token: (path, form, headers = {}) =>
      fetch(`${local}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() }),
    userinfo: (headers) => fetch(`${local}/oidc/userinfo`, { headers }),
    proof: (key, path, extra = {}) => makeProof(key, { htu: `${issuer}${path}`, now: now(), ...extra }),
    webCode: (extra = {}) =>
      code({ response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'openid profile offline_access', state: 's', nonce: 'n', ...extra }),
    async spaCode(extra = {}) {
      const { verifier, challenge } = pkce();
      const value = await code({
        response_type: 'code', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid profile offline_access', state: 's',
        code_challenge: challenge, code_challenge_method: 'S256', ...extra,
      });
      return { code: value, verifier };
    },
    close: () => server.close(),
  };
}

export function webExchange(code: string): Record<string, string> {
  return { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' };
}

export function spaExchange(code: string, verifier: string): Record<string, string> {
  return { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: verifier };
}

export async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}
