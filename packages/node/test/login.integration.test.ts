// Logins against the reference server over real HTTP, driven through its HTML login and
// consent forms: code (secret / PKCE), form_post, hybrid, refresh rotation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthorizationResponseError,
  type NodeClientOptions,
  TokenEndpointError,
  createNodeClient,
  serviceProvider,
} from '../src/index';
import { type RunningServer, loginThroughForms, recordingFetch, startReferenceServer } from './support/reference-server';

let server: RunningServer;
let web: NodeClientOptions;

beforeAll(async () => {
  server = await startReferenceServer();
  web = {
    provider: serviceProvider(server.issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: 'http://127.0.0.1:3000/callback',
    scope: 'openid profile email offline_access',
  };
});
afterAll(() => server.close());

function redirectOf(result: Awaited<ReturnType<typeof loginThroughForms>>['result']): string {
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  return result.location;
}

function formOf(result: Awaited<ReturnType<typeof loginThroughForms>>['result']) {
  if (result.type !== 'form_post') throw new Error(`expected a form_post, got ${result.type}`);
  return result;
}

describe('code flow', () => {
  it('with the client secret and no PKCE (discovery): HTTP Basic, as the server advertises, no verifier', async () => {
    const { provider: _, ...rest } = web;
    const recorder = recordingFetch();
    const client = createNodeClient({ ...rest, issuer: server.issuer, pkce: false, fetch: recorder.fetch });
    const { url, transaction, result } = await loginThroughForms(client);
    expect(url.searchParams.has('code_challenge')).toBe(false);

    const tokens = await client.finishLogin(redirectOf(result), transaction);
    expect(tokens.claims).toMatchObject({ sub: 'alice', aud: 'web', iss: server.issuer, nonce: transaction.nonce, email: 'alice@example.com' });
    expect(tokens.tokenType).toBe('Bearer');
    expect(tokens.accessToken).toEqual(expect.any(String));
    expect(tokens.refreshToken).toEqual(expect.any(String));

    const exchange = recorder.posts.find((p) => p.body.get('grant_type') === 'authorization_code');
    expect(exchange?.url).toBe(`${server.issuer}/oidc/token`);
    expect(exchange?.authorization).toBe(`Basic ${btoa('web:web-secret-of-the-demo-Zq7Xk2Lm9Vb4')}`);
    expect(exchange?.body.has('client_secret')).toBe(false);
    expect(exchange?.body.has('code_verifier')).toBe(false);
  });

  it('with PKCE and client_secret_basic: the verifier beside HTTP Basic, never the verifier alone', async () => {
    const recorder = recordingFetch();
    const client = createNodeClient({ ...web, authMethod: 'client_secret_basic', fetch: recorder.fetch });
    const { url, transaction, result } = await loginThroughForms(client);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    const tokens = await client.finishLogin(new Request(redirectOf(result)), transaction);
    expect(tokens.claims?.sub).toBe('alice');
    const exchange = recorder.posts.find((p) => p.body.get('grant_type') === 'authorization_code');
    expect(exchange?.body.get('code_verifier')).toBe(transaction.codeVerifier);
    expect(exchange?.body.has('client_secret')).toBe(false);
    expect(exchange?.authorization).toBe(`Basic ${btoa('web:web-secret-of-the-demo-Zq7Xk2Lm9Vb4')}`);
  });

  it('refuses a code exchange carrying both the secret and the verifier in the body before sending it', async () => {
    const pkceClient = createNodeClient({ ...web, authMethod: 'client_secret_basic' });
    const explicit = createNodeClient({ ...web, authMethod: 'client_secret_post' });
    const { transaction, result } = await loginThroughForms(pkceClient);
    const before = server.count('POST', '/oidc/token');

    await expect(explicit.finishLogin(redirectOf(result), transaction)).rejects.toMatchObject({ code: 'pkce_with_client_secret' });
    const requestsBefore = server.requests.length;
    await expect(explicit.startLogin({ pkce: true })).rejects.toMatchObject({ code: 'pkce_with_client_secret' });
    expect(server.count('POST', '/oidc/token')).toBe(before);
    expect(server.requests.length).toBe(requestsBefore);
  });

  it('rejects a code redeemed twice with invalid_grant', async () => {
    const client = createNodeClient(web);
    const { transaction, result } = await loginThroughForms(client);
    await client.finishLogin(redirectOf(result), transaction);
    const replay = await client.finishLogin(redirectOf(result), transaction).catch((e: unknown) => e);
    expect(replay).toBeInstanceOf(TokenEndpointError);
    expect(replay).toMatchObject({ error: 'invalid_grant', status: 400 });
  });

  it("rejects a callback finished with another login's transaction (state mismatch), before any token request", async () => {
    const client = createNodeClient(web);
    const first = await loginThroughForms(client);
    const other = await client.startLogin();
    const before = server.count('POST', '/oidc/token');
    await expect(client.finishLogin(redirectOf(first.result), other.transaction)).rejects.toMatchObject({ code: 'state_mismatch' });
    expect(server.count('POST', '/oidc/token')).toBe(before);
  });

  it('surfaces a denied consent as an AuthorizationResponseError', async () => {
    const client = createNodeClient(web);
    // prompt=consent: the server remembers earlier grants and would not ask again otherwise.
    const { transaction, result } = await loginThroughForms(client, { prompt: 'consent' }, 'deny');
    const error = await client.finishLogin(redirectOf(result), transaction).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationResponseError);
    expect(error).toMatchObject({ code: 'authorization_error', error: 'access_denied' });
  });

  it('refuses a transaction started by another client', async () => {
    const client = createNodeClient(web);
    const { transaction, result } = await loginThroughForms(client);
    const stranger = createNodeClient({ ...web, clientId: 'other' });
    await expect(stranger.finishLogin(redirectOf(result), transaction)).rejects.toMatchObject({ code: 'transaction_invalid' });
  });
});

describe('form_post and hybrid', () => {
  it('code with form_post, finished from the POST Request', async () => {
    const client = createNodeClient(web);
    const { url, transaction, result } = await loginThroughForms(client, { responseMode: 'form_post' });
    expect(url.searchParams.get('response_mode')).toBe('form_post');
    const form = formOf(result);
    expect(form.action).toBe('http://127.0.0.1:3000/callback');
    const request = new Request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.body,
    });
    const tokens = await client.finishLogin(request, transaction);
    expect(tokens.claims?.sub).toBe('alice');
  });

  it('refuses a form_post login finished from a GET (the response did not come the way it was sent)', async () => {
    const client = createNodeClient(web);
    const { transaction, result } = await loginThroughForms(client, { responseMode: 'form_post' });
    const form = formOf(result);
    const asQuery = new Request(`${form.action}?${form.body}`);
    await expect(client.finishLogin(asQuery, transaction)).rejects.toMatchObject({ code: 'authorization_response_invalid' });
  });

  it('hybrid "code id_token" by form_post: front-channel ID token checked (c_hash), code redeemed', async () => {
    const client = createNodeClient(web);
    const { url, transaction, result } = await loginThroughForms(client, { responseType: 'code id_token' });
    expect(url.searchParams.get('response_mode')).toBe('form_post');
    const form = formOf(result);
    expect(form.body.get('id_token')).toEqual(expect.any(String));
    const tokens = await client.finishLogin(form.body, transaction);
    expect(tokens.claims).toMatchObject({ sub: 'alice', nonce: transaction.nonce });
    expect(tokens.refreshToken).toEqual(expect.any(String));
  });

  it('hybrid: a code swapped in the response fails the c_hash check, and is never sent', async () => {
    const client = createNodeClient(web);
    const victim = await loginThroughForms(client, { responseType: 'code id_token' });
    const attacker = await loginThroughForms(client, { responseType: 'code id_token' });
    const swapped = new URLSearchParams(formOf(victim.result).body);
    swapped.set('code', formOf(attacker.result).body.get('code') as string);
    const before = server.count('POST', '/oidc/token');
    await expect(client.finishLogin(swapped, victim.transaction)).rejects.toMatchObject({ code: 'id_token_c_hash_mismatch' });
    expect(server.count('POST', '/oidc/token')).toBe(before);
  });

  it('hybrid "code token id_token" by form_post checks at_hash and c_hash', async () => {
    const client = createNodeClient(web);
    const { transaction, result } = await loginThroughForms(client, { responseType: 'code token id_token' });
    const form = formOf(result);
    expect(form.body.get('access_token')).toEqual(expect.any(String));
    const tokens = await client.finishLogin(form.body, transaction);
    expect(tokens.claims?.sub).toBe('alice');

    const tampered = await loginThroughForms(client, { responseType: 'code token id_token' });
    const body = new URLSearchParams(formOf(tampered.result).body);
    body.set('access_token', `${body.get('access_token')}x`);
    await expect(client.finishLogin(body, tampered.transaction)).rejects.toMatchObject({ code: 'id_token_at_hash_mismatch' });
  });
});

describe('refresh', () => {
  it('rotates the refresh token; the old one is then rejected with invalid_grant', async () => {
    const recorder = recordingFetch();
    const client = createNodeClient({ ...web, fetch: recorder.fetch });
    const { transaction, result } = await loginThroughForms(client);
    const login = await client.finishLogin(redirectOf(result), transaction);
    const first = login.refreshToken as string;

    const refreshed = await client.refresh(first, { expectedSubject: 'alice' });
    expect(refreshed.accessToken).not.toBe(login.accessToken);
    expect(refreshed.refreshToken).toEqual(expect.any(String));
    expect(refreshed.refreshToken).not.toBe(first);
    expect(refreshed.expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000));
    const post = recorder.posts.find((p) => p.body.get('grant_type') === 'refresh_token');
    expect(post?.url).toBe(`${server.issuer}/oauth/token`);
    expect(post?.body.get('client_secret')).toBe('web-secret-of-the-demo-Zq7Xk2Lm9Vb4');

    const reused = await client.refresh(first).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(TokenEndpointError);
    expect(reused).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses to refresh without a refresh token, without a request', async () => {
    const client = createNodeClient(web);
    const before = server.requests.length;
    await expect(client.refresh('')).rejects.toMatchObject({ code: 'refresh_token_missing' });
    expect(server.requests.length).toBe(before);
  });
});
