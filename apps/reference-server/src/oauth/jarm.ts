/**
 * JARM (JWT Secured Authorization Response Mode for OAuth 2.0): the authorization response
 * (success or error) as one signed JWT, `response`, carrying the parameters with `iss`, `aud`
 * (the client) and a short `exp`, delivered in the query, the fragment or a posted form. A
 * client gets it by asking for a `.jwt` response mode (or `jwt`, the response type's default),
 * or always when it registered `authorization_signed_response_alg`.
 */
import { SignJWT } from 'jose';
import { type Client, clientFaults, type ResponseType } from '../config/model';
import { faultyJarm } from '../faults/jarm';
import { nowSeconds, type RequestContext } from '../request/context';
import type { ResponseMode } from '../store/store';

/** The JARM response modes (JARM 2.3), in the order discovery lists them. */
export const JARM_RESPONSE_MODES = ['jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'] as const;

/** Seconds a response JWT is valid: long enough for a redirect, short enough to limit a replay (JARM 2.1 recommends minutes at most). */
export const JARM_LIFETIME = 60;

const PLAIN_MODES: readonly ResponseMode[] = ['query', 'fragment', 'form_post'];

/** How an authorize request's responses are delivered, and what is wrong with the mode it asked for. */
export interface ResponseDelivery {
  mode: ResponseMode;
  /** The parameters travel inside a signed `response` JWT. */
  jarm: boolean;
  /** Why the requested `response_mode` is refused (an `invalid_request`); the error itself still goes out as `mode`/`jarm` say. */
  problem?: string;
}

/**
 * The delivery of an authorize request's responses from its `response_mode`: `query`,
 * `fragment`, `form_post`, or their JARM forms; `jwt` is `query.jwt` for `code` and
 * `fragment.jwt` otherwise (JARM 2.3.4). A client that registered
 * `authorization_signed_response_alg` always gets JARM. Query delivery is never used for
 * tokens (JARM 2.3.1 allows query.jwt only for response types without a token).
 *
 * @example
 * responseDelivery('jwt', 'code', client); // { mode: 'query', jarm: true }
 */
export function responseDelivery(raw: string | undefined, type: ResponseType | undefined, client: Client): ResponseDelivery {
  const asked = raw === 'jwt' || raw?.endsWith('.jwt') === true;
  const jarm = asked || client.authorization_signed_response_alg !== undefined;
  const base = raw === undefined || raw === 'jwt' ? undefined : asked ? raw.slice(0, -'.jwt'.length) : raw;
  const known = PLAIN_MODES.find((m) => m === base);
  const tokens = type !== undefined && type !== 'code';
  const fallback: ResponseMode = type === undefined || type === 'code' ? 'query' : 'fragment';
  const mode = known !== undefined && !(known === 'query' && tokens) ? known : fallback;
  if (base !== undefined && known === undefined) {
    return { mode, jarm, problem: 'response_mode must be query, fragment, form_post, or for JARM jwt, query.jwt, fragment.jwt or form_post.jwt' };
  }
  if (known === 'query' && tokens) {
    const problem = asked
      ? 'query.jwt is not used for response types that return tokens (JARM 2.3.1); use fragment.jwt or form_post.jwt'
      : 'tokens are never sent in the query; use response_mode fragment or form_post';
    return { mode, jarm, problem };
  }
  return { mode, jarm };
}

/**
 * The parameters that go to the client instead of `params`: `{ response }`, the response JWT
 * signed with the tenant's current key (`aud` the client, `exp` {@link JARM_LIFETIME} ahead),
 * as the client's JARM faults make it.
 *
 * @example
 * const sent = target.jarm ? await jarmParameters(ctx, target.clientId, params) : params;
 */
export async function jarmParameters(ctx: RequestContext, clientId: string, params: Record<string, string>): Promise<Record<string, string>> {
  const claims: Record<string, unknown> = { ...params, aud: clientId, exp: nowSeconds(ctx.server) + JARM_LIFETIME };
  const key = (await ctx.keys()).current;
  const faults = clientFaults(ctx.tenant, clientId);
  if (faults) return faultyJarm(ctx, faults, claims, key, params);
  return { response: await new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(await key.privateKey()) };
}

/**
 * Discovery's JARM members (JARM 4): the response modes, JARM's included, and the one
 * algorithm responses are signed with, the tenant's.
 *
 * @example
 * return { ...metadata, ...jarmMetadata(ctx) };
 */
export function jarmMetadata(ctx: RequestContext): { response_modes_supported: string[]; authorization_signing_alg_values_supported: string[] } {
  return { response_modes_supported: [...PLAIN_MODES, ...JARM_RESPONSE_MODES], authorization_signing_alg_values_supported: [ctx.tenant.signing_alg] };
}
