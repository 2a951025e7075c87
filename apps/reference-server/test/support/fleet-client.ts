// The relying party's side of the fleet tests: sign-ins and token requests through the load
// balancer, optionally pinned to one instance with the `x-instance` header.
import { completeLogin, CookieJar, type CompleteLoginOptions } from '../../src/testing';
import type { Fleet } from './fleet';

export type Pin = 'a' | 'b' | undefined;

export const WEB_REDIRECT = 'http://127.0.0.1:3000/callback';

/** fetch through the load balancer; `pin` chooses the instance, otherwise they alternate. */
export function via(pin: Pin): (request: Request) => Promise<Response> {
  return (request) => {
    if (pin) request.headers.set('x-instance', pin);
    return fetch(request);
  };
}

export function authorizeUrl(fleet: Fleet, extra: Record<string, string> = {}): URL {
  const url = new URL(`${fleet.issuer}/oidc/authorize`);
  const params = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'openid profile email offline_access', state: 's', nonce: 'n', ...extra };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url;
}

/** Signs in through the HTML forms and returns the code (throws on an error redirect). */
export async function signIn(fleet: Fleet, pin: Pin, options: CompleteLoginOptions = {}): Promise<string> {
  const result = await completeLogin(authorizeUrl(fleet), { fetch: via(pin), cookies: new CookieJar(), ...options });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const code = new URL(result.location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${new URL(result.location).search.replace(/code=[^&]*/, 'code=…')}`);
  return code;
}

export function post(fleet: Fleet, pin: Pin, path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return via(pin)(
    new Request(`${fleet.issuer}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    }),
  );
}

export function get(fleet: Fleet, pin: Pin, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return via(pin)(new Request(`${fleet.issuer}${path}`, { headers, redirect: 'manual' }));
}

export function redeem(fleet: Fleet, pin: Pin, code: string): Promise<Response> {
  return post(fleet, pin, '/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
}

export function refresh(fleet: Fleet, pin: Pin, refreshToken: string): Promise<Response> {
  return post(fleet, pin, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
}

export function userinfo(fleet: Fleet, pin: Pin, accessToken: string): Promise<Response> {
  return get(fleet, pin, '/oidc/userinfo', { authorization: `Bearer ${accessToken}` });
}

export function clientCredentials(fleet: Fleet, pin: Pin): Promise<Response> {
  return post(fleet, pin, '/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' });
}

export async function body(res: Response): Promise<Record<string, string>> {
  return (await res.json()) as Record<string, string>;
}
