/**
 * The config file's shape as a zod schema: types, allowed keys, enums and single-field rules.
 * schema.ts runs it, then applies the rules that span fields (uniqueness, grants versus response
 * types, redirect URIs per tenant) and fills in defaults. `config.schema.json`, published with the
 * package for editors, is generated from this schema (`pnpm run config-schema`).
 */
// zod/mini: the same validation as classic zod, but tree-shakable; classic zod would add about
// 750 KB to the bundled command line and a visible share of its start-up.
import * as z from 'zod/mini';
import { FAULT_NAMES } from './fault-names';

/**
 * Claims the server sets itself. A user's claims and a tenant's `scope_claims` may not use them:
 * a configured value would either be overwritten or, worse, override a protocol check.
 */
export const PROTOCOL_CLAIMS: readonly string[] = [
  'iss', 'aud', 'exp', 'iat', 'nbf', 'nonce', 'azp', 'at_hash', 'c_hash', 's_hash', 'auth_time', 'jti',
  'sid', 'acr', 'amr', 'client_id', 'scope', 'cnf', 'act', 'may_act', 'typ',
];

/** OIDC Core 5.1 claims with their JSON type; they keep their standard scopes (claims.ts). */
export const STANDARD_CLAIM_TYPES: Readonly<Record<string, 'string' | 'boolean' | 'number' | 'object'>> = {
  name: 'string', given_name: 'string', family_name: 'string', middle_name: 'string', nickname: 'string',
  preferred_username: 'string', profile: 'string', picture: 'string', website: 'string', email: 'string',
  email_verified: 'boolean', gender: 'string', birthdate: 'string', zoneinfo: 'string', locale: 'string',
  phone_number: 'string', phone_number_verified: 'boolean', address: 'object', updated_at: 'number',
};

/**
 * Builds the whole config file's schema. Building it costs about 10 ms of CPU, a visible share
 * of the command line's start-up, and a start with the built-in demo config never uses it: so it
 * is built on the first validation and kept.
 */
function buildConfigFileSchema() {
  function strict<T extends z.core.$ZodLooseShape>(shape: T) {
    const keys = Object.keys(shape).join(', ');
    return z.strictObject(shape, {
      error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown key; allowed keys are ${keys}` : 'must be an object'),
    });
  }

  const text = z.string({ error: 'must be a non-empty string' }).check(
    z.minLength(1, { error: 'must be a non-empty string' }),
    z.refine((v) => ![...v].some((ch) => ch < ' ' || ch === '\u007f'), { error: 'must not contain control characters' }),
  );

  /** `schema` documented for editors (the description lands in config.schema.json). */
  function described<T extends z.ZodMiniType>(schema: T, description: string): T {
    return schema.check(z.describe(description)) as T;
  }

  /** An optional key, documented. */
  function optional<T extends z.ZodMiniType>(schema: T, description?: string) {
    return z.optional(description === undefined ? schema : described(schema, description));
  }

  function list<T extends z.ZodMiniType>(item: T) {
    return z.array(item, { error: 'must be an array' });
  }

  function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
    return z.enum(values, { error: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}` });
  }

  const flag = z.boolean({ error: 'must be true or false' });

  /** RFC 6749 3.3 scope token. */
  const scopeToken = text.check(z.refine((s) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s), { error: 'is not a valid scope token (RFC 6749 3.3)' }));

  const SECONDS = 'must be a whole number of seconds between 1 and 315360000';
  const seconds = z.int({ error: SECONDS }).check(z.gte(1, { error: SECONDS }), z.lte(315_360_000, { error: SECONDS }));

  const lifetimes = strict({
    authorization_code: optional(seconds),
    access_token: optional(seconds),
    id_token: optional(seconds),
    refresh_token: optional(seconds),
  });

  const claimName = text.check(
    z.refine((name) => !PROTOCOL_CLAIMS.includes(name), {
      error: (issue) => `"${String(issue.input)}" is a protocol claim the server sets itself; choose another name`,
    }),
  );

  /** Plain JSON all the way down: no Date, Map or class instance, no NaN or Infinity. */
  function isPlainJson(value: unknown): boolean {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
    if (typeof value === 'number') return Number.isFinite(value);
    if (Array.isArray(value)) return value.every(isPlainJson);
    if (typeof value !== 'object') return false;
    const proto = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && Object.values(value).every(isPlainJson);
  }

  /** A user's claims: any JSON; protocol claims refused, standard claims with their standard type. */
  const userClaims = z.record(z.string(), z.unknown(), { error: 'must be an object' }).check(
    z.superRefine((claims, ctx) => {
      for (const [name, value] of Object.entries(claims)) {
        if (!isPlainJson(value)) {
          ctx.addIssue({ code: 'custom', path: [name], message: 'must be JSON (string, number, boolean, null, array or object)' });
        } else if (name === 'sub') {
          const ok = typeof value === 'string' && value.length > 0 && ![...value].some((ch) => ch < ' ' || ch === '\u007f');
          if (!ok) ctx.addIssue({ code: 'custom', path: [name], message: 'must be a non-empty string' });
        } else if (PROTOCOL_CLAIMS.includes(name)) {
          ctx.addIssue({ code: 'custom', path: [name], message: 'is a protocol claim the server sets itself; it cannot be configured on a user' });
        } else if (STANDARD_CLAIM_TYPES[name] !== undefined) {
          const want = STANDARD_CLAIM_TYPES[name];
          const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
          if (got !== want) ctx.addIssue({ code: 'custom', path: [name], message: `is a standard claim and must be a ${want} (OIDC Core 5.1)` });
        }
      }
    }),
    z.describe('Claims of the user: any JSON. `sub` defaults to the username; protocol claims (iss, aud, exp, nonce, ...) are refused.'),
  );

  const user = strict({
    username: text,
    password: text,
    claims: z.optional(userClaims),
  });

  const grantType = oneOf(['authorization_code', 'refresh_token', 'client_credentials', 'implicit']);

  const faultName = oneOf(FAULT_NAMES as unknown as [string, ...string[]]);

  const client = strict({
    client_id: text,
    client_name: optional(text, 'The name people see on the login, consent and tenant pages. Default: the client_id.'),
    client_secret: optional(text, 'Absent: a public client (PKCE, no secret).'),
    redirect_uris: optional(list(text)),
    post_logout_redirect_uris: optional(list(text)),
    grant_types: optional(list(grantType), 'Default ["authorization_code"].'),
    response_types: optional(
      list(text),
      'Default ["code"] with the authorization_code grant. One of "code", "code id_token", "code token", "code token id_token", "token", "id_token token", "id_token" (any word order).',
    ),
    scopes: optional(list(scopeToken), 'Scopes the client may request. Default ["openid"].'),
    skip_consent: optional(flag, 'Never show the consent page for this client. Default false.'),
    require_dpop: optional(flag, 'Token requests of this client must carry a DPoP proof (RFC 9449); its access tokens are then always DPoP-bound. Default false.'),
    resources: optional(
      list(text),
      'RFC 8707: the resources (APIs, absolute URIs) this client may ask access tokens for with the resource parameter; any other is refused with invalid_target. Default none.',
    ),
    dpop_unbound_refresh: optional(
      flag,
      'A confidential client only: its refresh tokens from a DPoP login are not bound to the DPoP key, so a refresh without a proof gets a Bearer access token (RFC 9449 5 allows it; its credentials hold the token). Default false: they stay bound, and each refresh needs a proof by that key.',
    ),
    access_token_audience: optional(
      z.union([text, list(text).check(z.minLength(1, { error: 'must be a non-empty string or a non-empty list of them' }))], {
        error: 'must be a non-empty string or a list of them',
      }),
      "`aud` of this client's JWT access tokens when the request names no RFC 8707 resource. Default: the issuer.",
    ),
    access_token_format: optional(
      oneOf(['opaque', 'jwt']),
      "This client's access tokens: \"opaque\" (random strings) or \"jwt\" (RFC 9068, typ at+jwt). Default: the tenant's access_token_format.",
    ),
    introspection_audiences: optional(
      list(text),
      'RFC 7662: audiences (RFC 8707 resources) of the tokens this confidential client may introspect as a resource server, besides its own tokens. Default none.',
    ),
    initiate_login_uri: optional(
      text,
      'Third-party initiated login (OIDC Core 4): where {base}/oidc/initiate-login?client_id=... sends the browser, with iss, login_hint and target_link_uri. https, or http on a loopback host in a development tenant.',
    ),
    backchannel_logout_uri: optional(
      text,
      "Back-Channel Logout 1.0: where logout tokens are POSTed when the user's session ends. https, or http on a loopback host in a development tenant.",
    ),
    backchannel_logout_private_network: optional(
      flag,
      'Lets backchannel_logout_uri be an IP address of a private network (10/8, 172.16/12, 192.168/16, 100.64/10, link-local 169.254/16, fc00::/7, fe80::/10), refused otherwise: the server would POST wherever the config points, cloud metadata services included. Default false.',
    ),
    backchannel_logout_session_required: optional(flag, 'Logout tokens carry the session id (sid) for this client. Default false.'),
    frontchannel_logout_uri: optional(
      text,
      "Front-Channel Logout 1.0: the client page the logout page loads in an iframe when the user's session ends. https, or http on a loopback host in a development tenant.",
    ),
    frontchannel_logout_session_required: optional(flag, 'The front-channel logout URI gets iss and sid query parameters. Default false.'),
    fault: optional(
      z.union([faultName, list(faultName)], { error: `must be one of ${FAULT_NAMES.map((f) => JSON.stringify(f)).join(', ')}, or a list of them` }),
      'Conformance testing only: make the server misbehave for this client.',
    ),
    jwks: optional(
      strict({ keys: list(z.record(z.string(), z.unknown(), { error: 'must be a JWK object' })) }),
      'Public keys for private_key_jwt (RFC 7523), as a JWK Set: { "keys": [ { "kty": "EC", "crv": "P-256", "x": "…", "y": "…", "kid": "…" } ] }.',
    ),
    jwks_uri: optional(text, 'Where the public keys for private_key_jwt are fetched (https; http on loopback or in a development tenant). Not with jwks.'),
    token_endpoint_auth_method: optional(
      oneOf(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none']),
      'The one authentication method the client may use at the token, revocation and PAR endpoints. Default: any it has credentials for.',
    ),
    require_pushed_authorization_requests: optional(flag, 'Authorize requests of this client must come through the PAR endpoint (RFC 9126). Default false.'),
    authorization_signed_response_alg: optional(
      oneOf(['RS256', 'ES256']),
      "JARM: every authorization response goes to this client as a JWT signed with this algorithm, which must be the tenant's signing_alg. Default: JARM only when the client asks for a .jwt response_mode.",
    ),
    request_object_signing_alg: optional(
      oneOf(['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'none']),
      'RFC 9101: the one algorithm of the client\'s request objects, verified with its jwks or jwks_uri; "none" accepts unsigned ones. Default: any asymmetric algorithm.',
    ),
    require_signed_request_object: optional(flag, 'RFC 9101: every authorize and PAR request of this client must carry a signed request object. Default false.'),
    request_uris: optional(list(text), 'RFC 9101: the only URLs the client\'s request objects may be fetched from by request_uri (https; http on loopback). Default: any https URL of a public host.'),
    userinfo_signed_response_alg: optional(
      oneOf(['RS256', 'ES256']),
      "OIDC Core 5.3.2: userinfo answered as a JWT (application/jwt) signed with the tenant's key; must be the tenant's signing_alg. Default: plain JSON.",
    ),
  });

  const registration = strict({
    access: described(
      oneOf(['open', 'initial_access_token']),
      '"open": anyone may register a client; "initial_access_token": only a caller sending the initial_access_token as a Bearer token (RFC 7591 3).',
    ),
    initial_access_token: optional(text, 'With "access": "initial_access_token": the token, at least 32 random characters.'),
    scopes: optional(list(scopeToken), 'Scopes a registered client may hold; its scope metadata is checked against them. Default ["openid"].'),
    resources: optional(list(text), 'RFC 8707 resources (absolute URIs) registered clients may ask access tokens for. Default none.'),
    max_clients: optional(
      z.number({ error: 'must be a whole number' }).check(z.int({ error: 'must be a whole number' }), z.gte(1, { error: 'must be at least 1' }), z.lte(100000, { error: 'must be at most 100000' })),
      'Most clients registered at once (per instance: registered clients live in its memory). Default 1000.',
    ),
  });

  const tenant = strict({
    id: text,
    name: optional(text, "The name people see on the tenant's pages. Default: the id."),
    development: optional(flag, 'Allows http redirect URIs on any host. Default false.'),
    demo_login: optional(
      flag,
      'Development tenants only: login_hint signs that user in without a password, the login page offers the users as one-click buttons, and the tenant page shows their passwords. Default false.',
    ),
    profile: optional(
      oneOf(['contract', 'standard']),
      '"contract" (default): the service contract exactly. "standard": every grant at the discovery token_endpoint, secret and PKCE together, expires_in always, standard discovery fields only.',
    ),
    signing_alg: optional(oneOf(['RS256', 'ES256'])),
    access_token_format: optional(oneOf(['opaque', 'jwt']), '"opaque" (default) or "jwt" (RFC 9068): the access tokens of every client of the tenant that sets no access_token_format of its own.'),
    require_dpop: optional(flag, "Token requests of every client of the tenant must carry a DPoP proof (RFC 9449). Default false."),
    dpop_nonce: optional(flag, 'The token endpoints and userinfo demand a server nonce in DPoP proofs (use_dpop_nonce, DPoP-Nonce header). Default false.'),
    require_pushed_authorization_requests: optional(flag, 'Authorize requests of every client of the tenant must come through the PAR endpoint (RFC 9126). Default false.'),
    client_assertion_audience: optional(
      oneOf(['issuer', 'issuer_or_token_endpoint']),
      'The aud a client assertion (private_key_jwt, client_secret_jwt) may have. "issuer": the issuer, as a string (RFC 7523bis, FAPI 2.0). "issuer_or_token_endpoint": also the token endpoint URL (and at the PAR endpoint its own URL), as a string or in an array (RFC 7523 3, for older client libraries). Default "issuer", "issuer_or_token_endpoint" with the standard profile.',
    ),
    lifetimes: optional(lifetimes),
    scope_claims: optional(
      z.record(scopeToken, list(claimName), { error: 'must be an object mapping scopes to lists of claim names' }),
      'Custom claims each scope releases, beside the standard OIDC mapping, e.g. { "roles": ["roles"] }.',
    ),
    users: optional(list(user)),
    clients: optional(list(client)),
    registration: optional(
      registration,
      'Dynamic client registration (RFC 7591, with RFC 7592 read/update/delete) at {base}/oauth/register, advertised in discovery. Default: none.',
    ),
  });

  const store = strict({
    type: oneOf(['memory', 'redis']),
    url: optional(text, 'With "type": "redis": a redis:// or rediss:// URL.'),
    prefix: optional(text, 'With "type": "redis": key prefix, at most 64 characters without spaces.'),
    key_encryption_secret: optional(
      text,
      'With "type": "redis": at least 32 random characters (openssl rand -base64 32; guessable ones are refused); seals the signing keys and authenticates the records kept in Redis. Required unless every tenant is a development tenant. Prefer the OIDC_RP_KEY_ENCRYPTION_SECRET environment variable.',
    ),
  });

  // The whole config file's schema (shape rules only; schema.ts adds the cross-field rules).
  return strict({
    $schema: optional(z.string({ error: 'must be a string' }), 'Ignored: lets editors find this schema.'),
    tenants: list(tenant),
    store: optional(store),
    public_origin: optional(
      text,
      'The origin users and clients reach this server at, e.g. "https://login.example.com" (behind a proxy): issuer, URLs and Secure cookies follow it.',
    ),
    trusted_hosts: optional(list(text), 'Hosts (name or name:port) answered besides loopback when there is no public_origin.'),
    trust_proxy: optional(flag, 'Read X-Forwarded-Proto, -Host and -For from the proxy in front. Default false.'),
  });
}

let built: ReturnType<typeof buildConfigFileSchema> | undefined;

/**
 * The whole config file's schema (shape rules only; schema.ts adds the cross-field rules).
 *
 * @example
 * const result = configFileSchema().safeParse(JSON.parse(text));
 */
export function configFileSchema(): ReturnType<typeof buildConfigFileSchema> {
  built ??= buildConfigFileSchema();
  return built;
}

/**
 * The JSON Schema (draft 2020-12) of the config file, as published in `config.schema.json`.
 *
 * @example
 * writeFileSync('config.schema.json', `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
 */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configFileSchema(), { io: 'input', unrepresentable: 'any' }),
    title: '@oidc-rp/reference-server config file',
  };
}

/** A validation problem of a config: where, and what is wrong. */
export interface ShapeProblem {
  field: string;
  problem: string;
}

function fieldOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? String(part) : `.${String(part)}`;
  return out === '' ? 'config' : out;
}

/**
 * The first problem of `input` against the config file's shape, or undefined when it fits.
 *
 * @example
 * const problem = shapeProblem(json); // { field: 'tenants[0].clients[1].skip_consnet', problem: 'unknown key; ...' }
 */
export function shapeProblem(input: unknown): ShapeProblem | undefined {
  const result = configFileSchema().safeParse(input);
  if (result.success) return undefined;
  // Unknown keys first, as a typo is the likeliest cause of every other problem of its object.
  const issues = [...result.error.issues].sort((a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'));
  const issue = issues[0];
  if (!issue) return undefined;
  if (issue.code === 'unrecognized_keys') {
    const base = fieldOf(issue.path);
    return { field: `${base}.${issue.keys[0] ?? ''}`, problem: issue.message };
  }
  // A union (e.g. `fault`: a name or a list) fails as a whole; the branch that got furthest names the field.
  if (issue.code === 'invalid_union') {
    const deepest = issue.errors.flat().sort((a, b) => b.path.length - a.path.length)[0];
    if (deepest && deepest.path.length > 0 && deepest.code !== 'invalid_type') {
      return { field: fieldOf([...issue.path, ...deepest.path]), problem: deepest.message };
    }
  }
  // A record key's own problem (e.g. a scope that is not a scope token) says more than the record's.
  const problem = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return { field: fieldOf(issue.path), problem };
}
