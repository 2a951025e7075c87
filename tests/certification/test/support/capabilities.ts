/**
 * Whether each need of a module run exists today: a fault the reference server knows, or an SDK
 * capability, probed by asking the package to do it (a login URL with that response type or
 * mode) or, where a capability is a new export, by looking for it. The readiness test holds the
 * data's `pending` to these answers, so a capability that lands fails it until its modules are
 * wired. When another branch lands a capability under a name not probed here, add the name.
 */
import * as browserSdk from '@oidc-rp/browser';
import * as browserSession from '@oidc-rp/browser/session';
import * as core from '@oidc-rp/core';
import * as nodeSdk from '@oidc-rp/node';
import { FAULTS, validateConfig } from '@oidc-rp/reference-server';
import type { Feature } from '../../src/modules';
import type { Need } from '../../src/runs';

const PROVIDER = {
  issuer: 'https://op.example',
  authorization_endpoint: 'https://op.example/authorize',
  token_endpoint: 'https://op.example/token',
  jwks_uri: 'https://op.example/jwks',
  userinfo_endpoint: 'https://op.example/userinfo',
  response_types_supported: ['code', 'code id_token', 'code token', 'code id_token token', 'id_token', 'id_token token'],
  response_modes_supported: ['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'],
  authorization_signing_alg_values_supported: ['RS256'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
  code_challenge_methods_supported: ['S256'],
};

/** The query of the login URL @oidc-rp/node builds with these options, or undefined when it refuses them. */
async function nodeLogin(options: Record<string, unknown>): Promise<URLSearchParams | undefined> {
  try {
    const { url } = await nodeClient(options).startLogin();
    return new URL(url).searchParams;
  } catch {
    return undefined;
  }
}

function nodeClient(options: Record<string, unknown>): nodeSdk.NodeClient {
  return nodeSdk.createNodeClient({
    provider: PROVIDER,
    clientId: 'probe',
    clientSecret: 'Vq8rLz3KpW6nXt1Yc9Hm4Jd7Bs2Gf5Ra',
    redirectUri: 'https://rp.example/callback',
    cookieSecret: 'k7Qm2Zx9LpV4rT8wNc3Hs6Yb1Jd5Fg0A',
    ...options,
  } as nodeSdk.NodeClientOptions);
}

/** The query of the authorize URL @oidc-rp/browser's login() navigates to with these options, or undefined. */
async function browserLogin(options: Record<string, unknown>): Promise<URLSearchParams | undefined> {
  try {
    const redirects: string[] = [];
    const client = browserSdk.createBrowserClient({
      provider: PROVIDER,
      clientId: 'probe',
      redirectUri: 'https://rp.example/callback',
      transactionStorage: browserSdk.memoryStorage(),
      tokenStorage: 'memory',
      navigate: { currentUrl: () => 'https://rp.example/', redirect: (url: string) => void redirects.push(url), replaceUrl: () => undefined },
      ...options,
    } as unknown as browserSdk.BrowserClientOptions);
    await client.login();
    return redirects[0] ? new URL(redirects[0]).searchParams : undefined;
  } catch {
    return undefined;
  }
}

/** The userinfo request getUserInfo sends with these options, or undefined when it refuses them. */
async function nodeUserinfoRequest(options: Record<string, unknown>): Promise<{ method: string; body: string; authorization: string | null } | undefined> {
  let sent: { method: string; body: string; authorization: string | null } | undefined;
  const client = nodeClient({
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      sent = { method: request.method, body: await request.text(), authorization: request.headers.get('authorization') };
      return Response.json({ sub: 'alice' });
    },
  });
  try {
    await client.getUserInfo('probe-token', { expectedSubject: 'alice', ...options } as never);
  } catch {
    return undefined;
  }
  return sent;
}

/** Whether getUserInfo sends the access token in a POST body when asked (`tokenIn: 'body'`, RFC 6750 2.2). */
async function nodeUserinfoInBody(): Promise<boolean> {
  const sent = await nodeUserinfoRequest({ tokenIn: 'body' });
  return sent?.method === 'POST' && new URLSearchParams(sent.body).get('access_token') === 'probe-token' && sent.authorization === null;
}

/** Whether the reference server lets a client register this response type. */
function serverAccepts(responseType: string): boolean {
  try {
    validateConfig({ tenants: [{ id: 'probe', clients: [{ client_id: 'probe', redirect_uris: ['https://rp.example/callback'], grant_types: ['authorization_code', 'implicit'], response_types: [responseType] }] }] } as never);
    return true;
  } catch {
    return false;
  }
}

/** Whether a runtime export of core or the package (its own or re-exported) has a name like this. */
const exportsMatching = (module: object, pattern: RegExp): boolean => [...Object.keys(module), ...Object.keys(core)].some((name) => pattern.test(name));
const part = (name: string): unknown => (browserSdk as Record<string, unknown>)[name];
const sameWords = (a: string | null | undefined, b: string) => typeof a === 'string' && a.split(' ').sort().join(' ') === b.split(' ').sort().join(' ');

const PROBES: Record<Feature, () => Promise<boolean>> = {
  'node.codeToken': async () => serverAccepts('code token') && sameWords((await nodeLogin({ responseType: 'code token', responseMode: 'form_post' }))?.get('response_type'), 'code token'),
  'node.fragment': async () => sameWords((await nodeLogin({ responseType: 'code id_token', responseMode: 'fragment' }))?.get('response_type'), 'code id_token'),
  // The browser's front-channel flows are parts given as its implicitFlow option.
  'browser.idToken': async () => part('idTokenFlow') !== undefined && sameWords((await browserLogin({ implicitFlow: part('idTokenFlow') }))?.get('response_type'), 'id_token'),
  'browser.hybrid': async () =>
    typeof part('hybridFlow') === 'function' && sameWords((await browserLogin({ implicitFlow: (part('hybridFlow') as (t: string) => unknown)('code id_token') }))?.get('response_type'), 'code id_token'),
  'node.frontChannelLogout': async () => exportsMatching(nodeSdk, /front.?channel.?logout/i),
  'node.sessionManagement': async () => exportsMatching(nodeSdk, /check.?session|session.?management/i),
  // Session Management is the browser's `@oidc-rp/browser/session` entry.
  'browser.sessionManagement': async () => exportsMatching({ ...browserSdk, ...browserSession }, /check.?session|session.?management/i),
  'node.thirdPartyLogin': async () => exportsMatching(nodeSdk, /third.?party|initiate.?login/i),
  'node.claimSources': async () => exportsMatching(nodeSdk, /claim.?sources|distributed|aggregated/i),
  'node.userinfoInBody': nodeUserinfoInBody,
  'node.requestObject': async () => exportsMatching(nodeSdk, /request.?object/i),
  'node.signedUserinfo': async () => exportsMatching(nodeSdk, /signed.?userinfo|userinfo.?jwt/i),
  'node.webfinger': async () => exportsMatching(nodeSdk, /webfinger/i),
  'node.jarm': async () => (await nodeLogin({ responseMode: 'query.jwt' })) !== undefined,
};

/**
 * The probes' own controls, which must hold today: what exists answers yes (else a probe's
 * helper is broken and would call everything missing).
 *
 * @example
 * expect(await probeControls()).toMatchObject({ nodeFormPost: 'code id_token', browserCode: 'code' });
 */
export async function probeControls(): Promise<Record<string, unknown>> {
  return {
    nodeFormPost: (await nodeLogin({ responseType: 'code id_token', responseMode: 'form_post' }))?.get('response_type'),
    browserCode: (await browserLogin({}))?.get('response_type'),
    browserImplicit: (await browserLogin({ implicitFlow: browserSdk.implicitFlow }))?.get('response_type'),
    serverHybrid: serverAccepts('code id_token'),
    nodeUserinfo: await nodeUserinfoRequest({}),
  };
}

/**
 * Which features exist, each probed once.
 *
 * @example
 * const available = await probeFeatures(); available.has('node.fragment');
 */
export async function probeFeatures(): Promise<ReadonlySet<Feature>> {
  const found = new Set<Feature>();
  for (const [feature, probe] of Object.entries(PROBES) as [Feature, () => Promise<boolean>][]) if (await probe()) found.add(feature);
  return found;
}

/** Whether a need is met. */
export function isMet(need: Need, features: ReadonlySet<Feature>): boolean {
  return 'fault' in need ? (FAULTS as readonly string[]).includes(need.fault) : features.has(need.feature);
}
