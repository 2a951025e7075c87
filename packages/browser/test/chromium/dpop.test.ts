// @vitest-environment node
/**
 * The dpop part in real Chromium, logging in through the reference server's real login page,
 * with the documented setup for a session that survives reloads: `dpop()` with
 * `crossTab({ storage: 'indexedDB' })`. The tenant requires DPoP for the client and server
 * nonces, so every token request and userinfo call without a good proof fails. What a user
 * relies on: the private key cannot be exported (also as read back from IndexedDB), the session
 * and its key survive a reload, logout deletes the key, two tabs refreshing at once make one
 * refresh with one key (the server's request journal), a nonce challenge is retried once, and a
 * lost or corrupt key ends the session with `dpop_key_unavailable` until a new login makes a new key.
 */
import { demoConfig } from '@oidc-rp/reference-server';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../src/index';
import { type ChromiumApp, type Reference, startChromiumApp } from '../support/chromium-app';
import { signInOnProviderPages } from '../support/provider-pages';

declare global {
  interface Window {
    /** The package, bundled from its sources. */
    oidcRp: typeof import('../../src/index');
    /** The app's one client: dpop() and crossTab({ storage: 'indexedDB' }). */
    client: BrowserClient;
    issuer: string;
  }
}

let env: ChromiumApp;
let appOrigin: string;
let reference: Reference;
let issuer: string;

// The app: every path serves the page; the page creates the client and runs init() (which finishes a callback).
const PAGE = `<!doctype html><title>app</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { createBrowserClient, crossTab, discovery, dpop } = window.oidcRp;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: 'spa',
    redirectUri: location.origin + '/callback',
    postLogoutRedirectUri: location.origin + '/',
    dpop: dpop(),
    crossTab: crossTab({ storage: 'indexedDB' }),
  });
  void window.client.init();
</script>`;

beforeAll(async () => {
  env = await startChromiumApp({
    page: PAGE,
    config: (origin) => {
      const config = demoConfig();
      const tenant = config.tenants.find((t) => t.id === 'demo')!;
      tenant.dpop_nonce = true;
      const spa = tenant.clients!.find((c) => c.client_id === 'spa')!;
      spa.require_dpop = true;
      spa.redirect_uris = [`${origin}/callback`];
      spa.post_logout_redirect_uris = [`${origin}/`];
      return config;
    },
  });
  ({ reference, issuer } = env);
  appOrigin = env.app.origin;
});

afterAll(() => env?.close());

/** A fresh profile (own cookies, IndexedDB and locks). */
const profile = (): Promise<BrowserContext> => env.profile();

async function open(context: BrowserContext, path = '/'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${appOrigin}${path}`);
  return page;
}

const status = (page: Page) => page.evaluate(async () => (await window.client.init()).status);

/**
 * Logs in through the reference server's login (and consent) page, or its single sign-on when
 * the provider still knows the browser; back on the app, signed in. The authorize URL it used.
 */
async function logIn(page: Page): Promise<URL> {
  if (new URL(page.url()).pathname === '/callback') await page.goto(`${appOrigin}/`); // so that coming back shows
  const authorize = page.waitForRequest((request) => request.url().includes('/oidc/authorize'));
  await page.evaluate(() => void window.client.login());
  const authorizeUrl = new URL((await authorize).url());
  await signInOnProviderPages(page, appOrigin);
  return authorizeUrl;
}

/** The key pair stored for the client, read straight from IndexedDB: what export does with it. */
function storedKey(page: Page) {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('oidc-rp');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const value = await new Promise<unknown>((resolve, reject) => {
      const request = db.transaction('kv').objectStore('kv').get(`oidc-rp.dpop:spa:${window.issuer}`);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    db.close();
    const pair = value as CryptoKeyPair | undefined;
    if (!pair) return { stored: false } as const;
    const exported = await crypto.subtle.exportKey('jwk', pair.privateKey).then(
      () => 'exported',
      (error: Error) => error.name,
    );
    return {
      stored: true,
      isCryptoKey: pair.privateKey instanceof CryptoKey,
      extractable: pair.privateKey.extractable,
      algorithm: (pair.privateKey.algorithm as EcKeyAlgorithm).namedCurve,
      exported,
    } as const;
  });
}

/** Puts `value` (or nothing) where the client keeps its key. */
function replaceStoredKey(page: Page, value: 'delete' | 'garbage') {
  return page.evaluate(async (what) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('oidc-rp');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    await new Promise<void>((resolve, reject) => {
      const transaction = db.transaction('kv', 'readwrite');
      const store = transaction.objectStore('kv');
      const name = `oidc-rp.dpop:spa:${window.issuer}`;
      if (what === 'delete') store.delete(name);
      else store.put({ privateKey: 'not a key', publicKey: 42 }, name);
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error);
    });
    db.close();
  }, value);
}

const jkt = (page: Page) => page.evaluate(async () => (await window.client.dpop!.handle()).jkt);
const userinfoStatus = (page: Page) =>
  page.evaluate(async () => (await window.oidcRp.authorizedFetch(window.client)(`${window.issuer}/oidc/userinfo`)).status);
const journal = (after: number, endpoint: string) =>
  reference
    .requests()
    .filter((entry) => entry.seq > after && entry.endpoint?.endsWith(endpoint) && entry.method !== 'OPTIONS')
    .map(({ grant_type, status }) => ({ grant_type, status }));
const lastSeq = () => reference.requests().at(-1)?.seq ?? 0;

/**
 * What injected script does before the user's next login: makes an extractable ES256 pair, keeps
 * its private JWK, and puts the pair where the client keeps its key. Its thumbprint and private JWK.
 */
function plantExtractableKey(page: Page) {
  return page.evaluate(async () => {
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const privateJwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
    const { crv, kty, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify({ crv, kty, x, y })));
    const jkt = btoa(String.fromCharCode(...new Uint8Array(digest))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('oidc-rp', 1);
      request.onupgradeneeded = () => request.result.createObjectStore('kv');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    await new Promise<void>((resolve, reject) => {
      const transaction = db.transaction('kv', 'readwrite');
      transaction.objectStore('kv').put(pair, `oidc-rp.dpop:spa:${window.issuer}`);
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error);
    });
    db.close();
    return { jkt, privateJwk };
  });
}

/** A DPoP proof (RFC 9449) signed outside the browser with the planted private key (Node's WebCrypto). */
async function plantedKeyProof(privateJwk: JsonWebKey, htu: string, nonce?: string): Promise<string> {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const { crv, kty, x, y } = privateJwk;
  const header = encode({ alg: 'ES256', typ: 'dpop+jwt', jwk: { crv, kty, x, y } });
  const payload = encode({ htm: 'POST', htu, jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000), ...(nonce ? { nonce } : {}) });
  const key = await crypto.subtle.importKey('jwk', privateJwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, new TextEncoder().encode(`${header}.${payload}`));
  return `${header}.${payload}.${Buffer.from(signature).toString('base64url')}`;
}

/** The stored session's refresh token, as injected script reads it from IndexedDB. */
function stolenRefreshToken(page: Page) {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('oidc-rp');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const value = await new Promise<unknown>((resolve, reject) => {
      const request = db.transaction('kv').objectStore('kv').get(`oidc-rp.session:spa:${window.issuer}`);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    db.close();
    return (JSON.parse(String(value)) as { refreshToken?: string }).refreshToken;
  });
}

describe('L5: a key pair planted in IndexedDB by injected script', () => {
  it('is not used at the next login: the tokens are bound to a key the SDK made, and the stolen refresh token is refused outside the browser', async () => {
    const context = await profile();
    const page = await open(context);
    expect(await status(page)).toBe('unauthenticated');
    const planted = await plantExtractableKey(page);
    const authorize = await logIn(page);
    expect(await status(page)).toBe('authenticated');

    // The login bound its tokens to a new, non-extractable key, and the planted pair is gone.
    expect(authorize.searchParams.get('dpop_jkt')).not.toBe(planted.jkt);
    expect(await jkt(page)).toBe(authorize.searchParams.get('dpop_jkt'));
    expect(await storedKey(page)).toMatchObject({ stored: true, extractable: false, exported: 'InvalidAccessError' });
    expect(await userinfoStatus(page)).toBe(200);

    // Outside the browser: the refresh token with a proof by the planted key gets nothing.
    const refreshToken = await stolenRefreshToken(page);
    expect(typeof refreshToken).toBe('string');
    const tokenUrl = `${issuer}/oauth/token`;
    const refreshWithPlantedKey = async (nonce?: string) => {
      const proof = await plantedKeyProof(planted.privateJwk, tokenUrl, nonce);
      const res = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(refreshToken), client_id: 'spa' }),
      });
      return { nonce: res.headers.get('dpop-nonce') ?? undefined, body: (await res.json()) as { error?: string; access_token?: string } };
    };
    // The tenant demands server nonces: the first answer gives one, the proof with it is judged on its key.
    const first = await refreshWithPlantedKey();
    expect(first.body.access_token).toBeUndefined();
    const second = first.body.error === 'use_dpop_nonce' ? await refreshWithPlantedKey(first.nonce) : first;
    expect(second.body).toMatchObject({ error: 'invalid_dpop_proof' });
    expect(second.body.access_token).toBeUndefined();
    // The session goes on in the browser with its own key.
    expect(await page.evaluate(async () => typeof (await window.client.getAccessToken({ forceRefresh: true })))).toBe('string');
    await context.close();
  });

  it('found beside an existing session at a reload, it is not used either: the session ends (dpop_key_unavailable) and the pair is removed', async () => {
    const context = await profile();
    const page = await open(context);
    await logIn(page);
    await plantExtractableKey(page);
    await page.reload();
    await page.waitForFunction(() => window.client.getSnapshot().status !== 'loading');
    expect(await page.evaluate(() => window.client.getSnapshot().error?.code)).toBe('dpop_key_unavailable');
    expect(await page.evaluate(() => window.client.getSnapshot().status)).not.toBe('authenticated');
    expect(await storedKey(page)).toEqual({ stored: false });
    await context.close();
  });
});

describe('the dpop part in Chromium (DPoP required, nonces on)', () => {
  it('keeps a non-extractable key in IndexedDB that survives a reload with the session, and deletes it at logout', async () => {
    const context = await profile();
    const page = await open(context);
    expect(await status(page)).toBe('unauthenticated');
    const authorize = await logIn(page);
    const key = await jkt(page);
    expect(authorize.searchParams.get('dpop_jkt')).toBe(key);

    // Non-extractable, read back from IndexedDB as the key object itself.
    expect(await storedKey(page)).toEqual({ stored: true, isCryptoKey: true, extractable: false, algorithm: 'P-256', exported: 'InvalidAccessError' });
    expect(await page.evaluate(async () => crypto.subtle.exportKey('pkcs8', (await window.client.dpop!.handle()).keyPair.privateKey).then(() => 'exported', (e: Error) => e.name))).toBe(
      'InvalidAccessError',
    );
    // The token is DPoP-bound: authorizedFetch sends it with a proof, and it is refused as Bearer.
    expect(await userinfoStatus(page)).toBe(200);
    const bearer = await page.evaluate(async () => {
      const token = await window.client.getAccessToken();
      return (await fetch(`${window.issuer}/oidc/userinfo`, { headers: { Authorization: `Bearer ${token}` } })).status;
    });
    expect(bearer).toBe(401);

    // A reload: the session and the key are still there, and they still work together.
    await page.reload();
    expect(await status(page)).toBe('authenticated');
    expect(await jkt(page)).toBe(key);
    expect(await userinfoStatus(page)).toBe(200);
    const before = lastSeq();
    expect(await page.evaluate(async () => typeof (await window.client.getAccessToken({ forceRefresh: true })))).toBe('string');
    expect(journal(before, '/token').at(-1)).toEqual({ grant_type: 'refresh_token', status: 200 });

    // Logout: the key is gone with the session, in this profile for good.
    await page.evaluate(() => window.client.logout({ redirect: false }));
    expect(await storedKey(page)).toEqual({ stored: false });
    await page.reload();
    expect(await status(page)).toBe('unauthenticated');
    expect(await storedKey(page)).toEqual({ stored: false });
    await context.close();
  });

  it('two tabs refreshing at once make one refresh, with the one key both tabs hold', async () => {
    const context = await profile();
    const first = await open(context);
    await logIn(first);
    const second = await open(context);
    expect(await status(second)).toBe('authenticated');
    const key = await jkt(first);
    expect(await jkt(second)).toBe(key);

    const before = lastSeq();
    const tokens = await Promise.all(
      [first, second].map((tab) => tab.evaluate(async () => window.client.getAccessToken({ forceRefresh: true }))),
    );
    expect(tokens[0]).toBe(tokens[1]);
    const refreshes = journal(before, '/token');
    // One refresh (after the nonce retry of a page that had no nonce yet): never two, never invalid_grant.
    expect(refreshes.filter((entry) => entry.status === 200)).toEqual([{ grant_type: 'refresh_token', status: 200 }]);
    expect(refreshes.every((entry) => entry.status === 200 || entry.status === 400)).toBe(true);
    expect(refreshes.length).toBeLessThanOrEqual(2);
    expect(await jkt(first)).toBe(key);
    expect(await jkt(second)).toBe(key);
    expect(await userinfoStatus(first)).toBe(200);
    expect(await userinfoStatus(second)).toBe(200);
    await context.close();
  });

  it('two tabs starting a login at once make one key', async () => {
    const context = await profile();
    const [a, b] = await Promise.all([open(context), open(context)]);
    const urls = await Promise.all(
      [a, b].map(async (tab) => {
        const authorize = tab.waitForRequest((request) => request.url().includes('/oidc/authorize'));
        await tab.evaluate(() => void window.client.login());
        return new URL((await authorize).url()).searchParams.get('dpop_jkt');
      }),
    );
    expect(urls[0]).toEqual(expect.any(String));
    expect(urls[1]).toBe(urls[0]);
    await context.close();
  });

  it('retries exactly once when the resource demands a new nonce', async () => {
    const context = await profile();
    const page = await open(context);
    await logIn(page);
    await reference.control.dpop.expireNonce();
    const before = lastSeq();
    expect(await userinfoStatus(page)).toBe(200);
    expect(journal(before, '/oidc/userinfo').map((entry) => entry.status)).toEqual([401, 200]);
    await context.close();
  });

  it('a key deleted while the page runs ends the session (dpop_key_unavailable); a corrupt one found at a reload too; a new login makes a new key', async () => {
    const context = await profile();
    const page = await open(context);
    await logIn(page);
    const first = await jkt(page);

    await replaceStoredKey(page, 'delete');
    const code = await page.evaluate(async () =>
      window.oidcRp
        .authorizedFetch(window.client)(`${window.issuer}/oidc/userinfo`)
        .then(
          () => 'sent',
          (error: { code: string }) => error.code,
        ),
    );
    expect(code).toBe('dpop_key_unavailable');
    expect(await page.evaluate(() => window.client.getSnapshot().status)).toBe('unauthenticated');
    expect(await page.evaluate(() => window.client.getSnapshot().error?.code)).toBe('dpop_key_unavailable');

    await logIn(page);
    const second = await jkt(page);
    expect(second).not.toBe(first);

    await replaceStoredKey(page, 'garbage');
    await page.reload();
    await page.waitForFunction(() => window.client.getSnapshot().status !== 'loading');
    expect(await page.evaluate(() => window.client.getSnapshot().error?.code)).toBe('dpop_key_unavailable');
    expect(await page.evaluate(() => window.client.getSnapshot().status)).not.toBe('authenticated');
    // The session went with it: a reload does not bring it back.
    await page.reload();
    expect(await status(page)).toBe('unauthenticated');

    await logIn(page);
    const third = await jkt(page);
    expect(third).not.toBe(second);
    expect(await storedKey(page)).toMatchObject({ stored: true, extractable: false, exported: 'InvalidAccessError' });
    expect(await userinfoStatus(page)).toBe(200);
    await context.close();
  });
});
