/**
 * One login through @oidc-rp/browser as a single-page app runs it, in the DOM environment:
 * `login()` discovers the provider and navigates to its authorize URL, the user signs in on
 * the real forms (in the provider's process), and the page comes back on the callback URL,
 * where `handleRedirectCallback()` finishes the login. Tokens go to the page's sessionStorage,
 * so a test can see what was stored.
 */
import { createBrowserClient, discovery, getUserInfo, hybridFlow, implicitFlow, par, type BrowserClient, type UserInfo } from '@oidc-rp/browser';
import { SPA_REDIRECT } from './config';
import type { ServerProcess } from '@oidc-rp/reference-server/testing';

export interface BrowserFlow {
  client: BrowserClient;
  userinfo?: UserInfo;
  error?: unknown;
  /** The URL the provider sent the page back to (absent when the flow stopped earlier). */
  callbackUrl?: string;
  /** The nonce of the authorize request, when it got that far. */
  nonce?: string;
}

export interface BrowserFlowOptions {
  issuer: string;
  clientId: string;
  /** `code` (default), the deprecated implicit `id_token token`, or the hybrid `code id_token` (both in the fragment). */
  responseType?: 'code' | 'id_token token' | 'code id_token';
  /** After the login, ask the userinfo endpoint about the user. */
  userinfo?: boolean;
  /** The client's per-request timeout (ms); its default (10 s) when left out. */
  timeout?: number;
  /** Push the logins (the `par()` part). */
  par?: boolean;
  /** The client's pinned signing algorithm (`signingAlgorithm`). */
  signingAlgorithm?: string | undefined;
}

/**
 * Runs the login (and userinfo) and reports what happened instead of throwing.
 *
 * @example
 * const flow = await runBrowserFlow(provider, { issuer, clientId: 'spa.id_token_wrong_aud' });
 * expect(flow.error).toMatchObject({ code: 'id_token_aud_mismatch' });
 */
export async function runBrowserFlow(provider: ServerProcess, options: BrowserFlowOptions): Promise<BrowserFlow> {
  const redirects: string[] = [];
  const client = createBrowserClient({
    provider: discovery(options.issuer),
    clientId: options.clientId,
    redirectUri: SPA_REDIRECT,
    tokenStorage: 'sessionStorage',
    ...(options.timeout !== undefined ? { http: { timeout: options.timeout } } : {}),
    ...(options.responseType === 'id_token token' ? { implicitFlow } : {}),
    ...(options.responseType === 'code id_token' ? { implicitFlow: hybridFlow('code id_token') } : {}),
    ...(options.par ? { par: par() } : {}),
    ...(options.signingAlgorithm !== undefined ? { signingAlgorithm: options.signingAlgorithm } : {}),
    // Leaving the page is the one thing a test page cannot do: navigations are recorded.
    navigate: {
      currentUrl: () => location.href,
      replaceUrl: (url) => history.replaceState(history.state, '', url),
      redirect: (url) => void redirects.push(url),
      openPopup: () => null,
    },
  });
  const flow: BrowserFlow = { client };
  try {
    await client.login();
    const authorizeUrl = redirects[0];
    if (!authorizeUrl) throw new Error('login() did not navigate to the provider');
    flow.nonce = new URL(authorizeUrl).searchParams.get('nonce') ?? undefined;
    const result = await provider.login(authorizeUrl);
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    flow.callbackUrl = result.location;
    await client.handleRedirectCallback(flow.callbackUrl);
    if (options.userinfo) flow.userinfo = await getUserInfo(client);
  } catch (error) {
    flow.error = error;
  }
  return flow;
}

/** sessionStorage entries holding a session (the client's token storage key prefix). */
export function storedSessions(): string[] {
  return Object.keys(sessionStorage).filter((key) => key.startsWith('oidc-rp.session'));
}
