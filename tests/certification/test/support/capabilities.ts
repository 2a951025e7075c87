/**
 * Whether each need of a module run exists today: a fault the reference server knows, or an SDK
 * capability, probed by asking the package to do it (a login URL with that response type or
 * mode) or, where a capability is a new export, by looking for it. The readiness test holds the
 * data's `pending` to these answers, so a capability that lands fails it until its modules are
 * wired. When another branch lands a capability under a name not probed here, add the name.
 */
import * as browserSdk from '@oidc-rp/browser';
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
  response_types_supported: ['code', 'code id_token', 'code token', 'code id_token token', 'id_token', 'id_token token'],
  response_modes_supported: ['query', 'fragment', 'form_post'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
  code_challenge_methods_supported: ['S256'],
};

/** The response_type of the login URL @oidc-rp/node builds with these options, or undefined when it refuses them. */
async function nodeLoginResponseType(options: Record<string, unknown>): Promise<string | undefined> {
  try {
    const client = nodeSdk.createNodeClient({
      provider: PROVIDER,
      clientId: 'probe',
      clientSecret: 'Vq8rLz3KpW6nXt1Yc9Hm4Jd7Bs2Gf5Ra',
      redirectUri: 'https://rp.example/callback',
      cookieSecret: 'k7Qm2Zx9LpV4rT8wNc3Hs6Yb1Jd5Fg0A',
      ...options,
    } as nodeSdk.NodeClientOptions);
    const { url } = await client.startLogin();
    return new URL(url).searchParams.get('response_type') ?? undefined;
  } catch {
    return undefined;
  }
}

/** The response_type of the authorize URL @oidc-rp/browser's login() navigates to with these options, or undefined. */
async function browserLoginResponseType(options: Record<string, unknown>): Promise<string | undefined> {
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
    return redirects[0] ? (new URL(redirects[0]).searchParams.get('response_type') ?? undefined) : undefined;
  } catch {
    return undefined;
  }
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

const exportsMatching = (module: object, pattern: RegExp): boolean => Object.keys(module).some((name) => pattern.test(name));
const sameWords = (a: string | undefined, b: string) => a !== undefined && a.split(' ').sort().join(' ') === b.split(' ').sort().join(' ');

const PROBES: Record<Feature, () => Promise<boolean>> = {
  'node.codeToken': async () => serverAccepts('code token') && sameWords(await nodeLoginResponseType({ responseType: 'code token', responseMode: 'form_post' }), 'code token'),
  'node.fragment': async () => sameWords(await nodeLoginResponseType({ responseType: 'code id_token', responseMode: 'fragment' }), 'code id_token'),
  'browser.idToken': async () => sameWords(await browserLoginResponseType({ implicitFlow: browserSdk.implicitFlow, responseType: 'id_token' }), 'id_token'),
  'browser.hybrid': async () => sameWords(await browserLoginResponseType({ responseType: 'code id_token' }), 'code id_token'),
  'node.frontChannelLogout': async () => exportsMatching(nodeSdk, /front.?channel/i),
  'node.sessionManagement': async () => exportsMatching(nodeSdk, /check.?session|session.?management/i),
  'browser.sessionManagement': async () => exportsMatching(browserSdk, /check.?session|session.?management/i),
  'node.thirdPartyLogin': async () => exportsMatching(nodeSdk, /third.?party|initiate.?login/i),
  'node.claimSources': async () => exportsMatching(core, /claim.?sources|distributed|aggregated/i),
  'node.userinfoInBody': async () => exportsMatching(core, /userinfo.*body|bearer.?body/i),
  'node.requestObject': async () => exportsMatching(nodeSdk, /request.?object/i),
  'node.signedUserinfo': async () => exportsMatching(core, /signed.?userinfo|userinfo.?jwt/i),
  'node.webfinger': async () => exportsMatching(core, /webfinger/i),
  'node.jarm': async () => exportsMatching(nodeSdk, /jarm/i),
};

/**
 * The probes' own controls, which must hold today: what exists answers yes (else a probe's
 * helper is broken and would call everything missing).
 *
 * @example
 * expect(await probeControls()).toEqual({ nodeFormPost: 'code id_token', browserCode: 'code', browserImplicit: 'id_token token', serverHybrid: true });
 */
export async function probeControls(): Promise<Record<string, unknown>> {
  return {
    nodeFormPost: await nodeLoginResponseType({ responseType: 'code id_token', responseMode: 'form_post' }),
    browserCode: await browserLoginResponseType({}),
    browserImplicit: await browserLoginResponseType({ implicitFlow: browserSdk.implicitFlow }),
    serverHybrid: serverAccepts('code id_token'),
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
