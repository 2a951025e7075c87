/**
 * Minting tokens: opaque or RFC 9068 JWT access tokens, rotating refresh tokens, and ID tokens
 * with `nonce`, `auth_time`, `sid`, `at_hash` and `c_hash` per OIDC Core. Every token is
 * recorded under its grant id so it can be revoked with its grant.
 */
import { SignJWT } from 'jose';
import { clientFaults } from '../config/model';
import { leftHalfHash, randomToken, storageKey } from '../crypto/secrets';
import { faultyIdToken } from '../faults/id-token';
import { impostorIssuer } from '../faults/responses';
import { nowSeconds, type RequestContext } from '../request/context';
import type { AccessTokenRecord, Authentication, RefreshTokenRecord } from '../store/store';
import { releasedClaims } from './claims';

/** An access token and its lifetime in seconds. */
export interface IssuedAccessToken {
  token: string;
  expiresIn: number;
}

/**
 * The user's claims the scopes release, or none when the user is no longer configured.
 *
 * @example
 * const claims = userClaims(ctx, grant.user, grant.scopes);
 */
function userClaims(ctx: RequestContext, user: Authentication | undefined, scopes: readonly string[]): Record<string, unknown> {
  const configured = user && ctx.tenant.users.get(user.username);
  return configured ? releasedClaims(ctx.tenant, configured, scopes) : {};
}

/**
 * `aud` of an access token (a JWT's claim, an introspection answer's member): the RFC 8707
 * resources the token is for, else the client's `access_token_audience`, else the issuer.
 *
 * @example
 * const aud = audienceOf(ctx, record.clientId, grantedResources(record));
 */
export function audienceOf(ctx: RequestContext, clientId: string, resources: readonly string[] | undefined): string | string[] {
  if (resources !== undefined && resources.length > 0) return resources.length === 1 ? (resources[0] as string) : [...resources];
  const configured = ctx.tenant.clients.get(clientId)?.access_token_audience;
  if (configured === undefined) return ctx.issuer;
  return configured.length === 1 ? (configured[0] as string) : [...configured];
}

/**
 * Issues an access token for a user (or, without `user`, for the client itself). A JWT access
 * token carries the user's released claims and the audience of {@link audienceOf}.
 *
 * @example
 * const { token, expiresIn } = await issueAccessToken(ctx, { clientId, scopes, user, grantId, resources });
 */
export async function issueAccessToken(
  ctx: RequestContext,
  grant: { clientId: string; scopes: string[]; user?: Authentication; grantId: string; resources?: readonly string[] | undefined; jkt?: string | undefined },
): Promise<IssuedAccessToken> {
  const lifetime = ctx.tenant.lifetimes.access_token;
  const iat = nowSeconds(ctx.server);
  let token = randomToken();
  // The client's format (a client removed mid-grant falls back to the tenant's).
  const format = ctx.tenant.clients.get(grant.clientId)?.access_token_format ?? ctx.tenant.access_token_format;
  if (format === 'jwt') {
    const key = (await ctx.keys()).current;
    token = await new SignJWT({
      ...userClaims(ctx, grant.user, grant.scopes),
      client_id: grant.clientId,
      scope: grant.scopes.join(' '),
      ...(grant.user ? { auth_time: grant.user.authTime } : {}),
      // RFC 9449 6.1: a DPoP-bound token names its key's thumbprint.
      ...(grant.jkt !== undefined ? { cnf: { jkt: grant.jkt } } : {}),
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(ctx.issuer)
      .setSubject(grant.user?.sub ?? grant.clientId)
      .setAudience(audienceOf(ctx, grant.clientId, grant.resources))
      .setIssuedAt(iat)
      .setExpirationTime(iat + lifetime)
      .setJti(randomToken(16))
      .sign(await key.privateKey());
  }
  const record: AccessTokenRecord = {
    tenant: ctx.tenant.id,
    clientId: grant.clientId,
    scopes: grant.scopes,
    grantId: grant.grantId,
    expiresAt: iat + lifetime,
    ...(grant.user ? { user: grant.user } : {}),
    ...(grant.jkt !== undefined ? { jkt: grant.jkt } : {}),
    ...(grant.resources !== undefined && grant.resources.length > 0 ? { resources: [...grant.resources] } : {}),
  };
  await ctx.server.store.saveAccessToken(storageKey(token), record, lifetime);
  return { token, expiresIn: lifetime };
}

/**
 * Issues the next refresh token of a grant's family.
 *
 * @example
 * const refreshToken = await issueRefreshToken(ctx, { clientId, scopes, user, grantId });
 */
export async function issueRefreshToken(
  ctx: RequestContext,
  grant: { clientId: string; scopes: string[]; user: Authentication; grantId: string; resources?: readonly string[] | undefined; jkt?: string | undefined },
): Promise<string> {
  const lifetime = ctx.tenant.lifetimes.refresh_token;
  const token = randomToken();
  const { resources, jkt, ...rest } = grant;
  const record: RefreshTokenRecord = {
    tenant: ctx.tenant.id,
    ...rest,
    ...(resources !== undefined && resources.length > 0 ? { resources: [...resources] } : {}),
    ...(jkt !== undefined ? { jkt } : {}),
    expiresAt: nowSeconds(ctx.server) + lifetime,
  };
  await ctx.server.store.saveRefreshToken(storageKey(token), record, lifetime);
  return token;
}

/**
 * Signs an ID token for `clientId`. `accessToken` / `code` add `at_hash` / `c_hash`.
 *
 * @example
 * const idToken = await issueIdToken(ctx, { clientId, user, scopes, nonce, code });
 */
export async function issueIdToken(
  ctx: RequestContext,
  p: { clientId: string; user: Authentication; scopes: readonly string[]; nonce?: string; accessToken?: string; code?: string },
): Promise<string> {
  const key = (await ctx.keys()).current;
  const iat = nowSeconds(ctx.server);
  const claims: Record<string, unknown> = {
    ...userClaims(ctx, p.user, p.scopes),
    auth_time: p.user.authTime,
    sid: p.user.sid,
  };
  if (p.nonce !== undefined) claims.nonce = p.nonce;
  if (p.accessToken !== undefined) claims.at_hash = leftHalfHash(p.accessToken);
  if (p.code !== undefined) claims.c_hash = leftHalfHash(p.code);
  const payload = { ...claims, iss: ctx.issuer, sub: p.user.sub, aud: p.clientId, iat, exp: iat + ctx.tenant.lifetimes.id_token };
  const faults = clientFaults(ctx.tenant, p.clientId);
  if (faults) return faultyIdToken(ctx, faults, payload);
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(await key.privateKey());
}

/**
 * The misbehaving mode's ID token in a refresh response (which this service's refresh never
 * carries otherwise): for a client with `refresh_id_token_wrong_iss` or
 * `refresh_id_token_wrong_sub`, an ID token signed with the tenant's key, for the refreshed
 * access token, naming another issuer or another user; undefined for every other client.
 *
 * @example
 * const idToken = await refreshedIdToken(ctx, { clientId, user: record.user, scopes, accessToken });
 */
export async function refreshedIdToken(
  ctx: RequestContext,
  p: { clientId: string; user: Authentication; scopes: readonly string[]; accessToken: string },
): Promise<string | undefined> {
  const faults = clientFaults(ctx.tenant, p.clientId);
  const wrongIss = faults?.has('refresh_id_token_wrong_iss') === true;
  const wrongSub = faults?.has('refresh_id_token_wrong_sub') === true;
  if (!wrongIss && !wrongSub) return undefined;
  const key = (await ctx.keys()).current;
  const iat = nowSeconds(ctx.server);
  const payload = {
    ...userClaims(ctx, p.user, p.scopes),
    auth_time: p.user.authTime,
    sid: p.user.sid,
    at_hash: leftHalfHash(p.accessToken),
    iss: wrongIss ? impostorIssuer(ctx) : ctx.issuer,
    sub: wrongSub ? `${p.user.sub}-impostor` : p.user.sub,
    aud: p.clientId,
    iat,
    exp: iat + ctx.tenant.lifetimes.id_token,
  };
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(await key.privateKey());
}

/**
 * The record of a live access token of this tenant: known, unexpired, grant not revoked.
 *
 * @example
 * const record = await findLiveAccessToken(ctx, bearer);
 * if (!record) throw new OAuthError('invalid_token', '...', 401);
 */
export async function findLiveAccessToken(ctx: RequestContext, token: string): Promise<AccessTokenRecord | undefined> {
  const record = await ctx.server.store.findAccessToken(storageKey(token));
  if (!record || record.tenant !== ctx.tenant.id || record.expiresAt <= nowSeconds(ctx.server)) return undefined;
  if (await ctx.server.store.isGrantRevoked(record.grantId)) return undefined;
  return record;
}

/**
 * Revokes every token of a grant, for as long as any of them could live.
 *
 * @example
 * await revokeGrant(ctx, code.grantId);
 */
export async function revokeGrant(ctx: RequestContext, grantId: string): Promise<void> {
  const { access_token, refresh_token } = ctx.tenant.lifetimes;
  await ctx.server.store.revokeGrant(grantId, Math.max(access_token, refresh_token));
}

/**
 * A new grant id (one per code or implicit response; refresh rotation keeps it).
 *
 * @example
 * const grantId = newGrantId();
 */
export function newGrantId(): string {
  return randomToken(16);
}
