/**
 * One login through @oidc-rp/node as a backend runs it: `handleLogin` answers the browser's
 * GET /login with a redirect and a sealed transaction cookie, the user signs in on the
 * provider's real HTML forms (`completeLogin`, real HTTP), and the browser comes back to the
 * callback with that cookie, where `handleCallback` finishes the login.
 */
import { type ClientAuth, type DpopHandle, MemoryTokenCache, type NodeRequestObjectOptions, createNodeClient, type NodeClient, type NodeClientOptions, type NodeResponseMode, type ResponseType, type TokenSet, type UserInfo } from '@oidc-rp/node';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { CLIENT_SECRET, NODE_REDIRECT, SCOPE } from './config';

const APP = 'http://127.0.0.1:3000';

export interface NodeFlow {
  client: NodeClient;
  tokens?: TokenSet;
  userinfo?: UserInfo;
  /** Whatever the flow threw. */
  error?: unknown;
  /** The parameters the provider sent to the callback (empty when the flow stopped earlier). */
  callback: URLSearchParams;
  /** The nonce of the authorize request, when it got that far. */
  nonce?: string;
  /** Keys the client wrote to its token cache. */
  cacheWrites: string[];
  /** The client's requests to the provider: path, status, whether a DPoP proof went with it, and the Authorization scheme. */
  sent: SentRequest[];
}

export interface SentRequest {
  path: string;
  status: number;
  proof: boolean;
  scheme?: string;
}

export interface NodeFlowOptions {
  issuer: string;
  clientId: string;
  responseType?: ResponseType;
  /** After the login, ask the userinfo endpoint about the user. */
  userinfo?: boolean;
  /** The client's per-request timeout (ms); its default (10 s) when left out. */
  timeout?: number;
  /** Send DPoP proofs with this handle (`createNodeClient({ dpop })`). */
  dpop?: DpopHandle;
  /** Push the logins (`createNodeClient({ par: true })`). */
  par?: boolean;
  /** Authenticate with this instead of the client secret (e.g. `privateKeyJwt(key)`). */
  clientAuth?: ClientAuth;
  /** The client's pinned signing algorithm (`createNodeClient({ signingAlgorithm })`). */
  signingAlgorithm?: string;
  /** Default: `query` for `code`, `form_post` otherwise; `jwt` asks for JARM. */
  responseMode?: NodeResponseMode;
  /** Authenticate with the client secret by this method (e.g. `client_secret_basic`) instead of the client's choice. */
  authMethod?: NodeClientOptions['authMethod'];
  /** Options that replace the flow's own client options (e.g. a `fapi2()` preset); the recording fetch and cache stay. */
  clientOptions?: NodeClientOptions;
  /** Logins as request objects (`createNodeClient({ requestObject })`). */
  requestObject?: NodeRequestObjectOptions;
  /** The client's registered userinfo algorithm (`createNodeClient({ userinfoSigningAlgorithm })`). */
  userinfoSigningAlgorithm?: string;
}

/** A fetch that records each request's path, status, DPoP proof and Authorization scheme. */
function recordingFetch(sent: SentRequest[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    const scheme = headers.get('authorization')?.split(' ')[0];
    sent.push({ path: new URL(String(input instanceof Request ? input.url : input)).pathname, status: response.status, proof: headers.has('dpop'), ...(scheme ? { scheme } : {}) });
    return response;
  };
}

/** A token cache that records what is written to it. */
function recordingCache(writes: string[]): MemoryTokenCache {
  const cache = new MemoryTokenCache();
  const set = cache.set.bind(cache);
  cache.set = (key, value, ttl) => {
    writes.push(key);
    return set(key, value, ttl);
  };
  return cache;
}

/**
 * Runs the login (and userinfo) and reports what happened instead of throwing.
 *
 * @example
 * const flow = await runNodeFlow({ issuer, clientId: 'node.id_token_wrong_aud' });
 * expect(flow.error).toMatchObject({ code: 'id_token_aud_mismatch' });
 */
export async function runNodeFlow(options: NodeFlowOptions): Promise<NodeFlow> {
  const cacheWrites: string[] = [];
  const sent: SentRequest[] = [];
  const responseType = options.responseType ?? 'code';
  const base: NodeClientOptions = options.clientOptions ?? {
    issuer: options.issuer,
    clientId: options.clientId,
    ...(options.clientAuth ? { clientAuth: options.clientAuth } : { clientSecret: CLIENT_SECRET }),
    ...(options.authMethod ? { authMethod: options.authMethod } : {}),
    redirectUri: NODE_REDIRECT,
    scope: SCOPE,
    responseType,
    responseMode: options.responseMode ?? (responseType === 'code' ? 'query' : 'form_post'),
    cookieSecret: 'conformance-OV0rZnPlj-o9ioSgs8cfPBGlwSm6kqjT',
  };
  const client = createNodeClient({
    ...base,
    tokenCache: recordingCache(cacheWrites),
    fetch: recordingFetch(sent),
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
    ...(options.dpop ? { dpop: options.dpop } : {}),
    ...(options.par !== undefined ? { par: options.par } : {}),
    ...(options.signingAlgorithm !== undefined ? { signingAlgorithm: options.signingAlgorithm } : {}),
    ...(options.requestObject ? { requestObject: options.requestObject } : {}),
    ...(options.userinfoSigningAlgorithm !== undefined ? { userinfoSigningAlgorithm: options.userinfoSigningAlgorithm } : {}),
  });
  const flow: NodeFlow = { client, callback: new URLSearchParams(), cacheWrites, sent };
  try {
    const started = await client.handleLogin(new Request(`${APP}/login`));
    const cookie = started.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    const authorizeUrl = new URL(started.headers.get('location') ?? '');
    flow.nonce = authorizeUrl.searchParams.get('nonce') ?? undefined;
    const result = await completeLogin(authorizeUrl);
    let request: Request;
    if (result.type === 'redirect') {
      const location = new URL(result.location);
      flow.callback = location.hash ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
      // A response in the fragment never reaches the server in the URL: the callback's relay page
      // posts it back from the app's own origin, as a browser running that page does.
      request = location.hash
        ? new Request(`${location.origin}${location.pathname}`, {
            method: 'POST',
            headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: location.origin, 'sec-fetch-site': 'same-origin' },
            body: flow.callback,
          })
        : new Request(result.location, { headers: { cookie } });
    } else {
      flow.callback = result.body;
      request = new Request(result.action, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: result.body,
      });
    }
    flow.tokens = (await client.handleCallback(request)).tokens;
    if (options.userinfo) {
      flow.userinfo = await client.getUserInfo(flow.tokens.accessToken, { expectedSubject: flow.tokens.claims?.sub ?? '' });
    }
  } catch (error) {
    flow.error = error;
  }
  return flow;
}
