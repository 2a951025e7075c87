/**
 * @oidc-rp/reference-server: a reference OAuth 2.0 / OpenID Connect authorization server.
 *
 * @example
 * import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
 * const server = await createReferenceServer(demoConfig());
 * const { origin, close } = await server.listen({ port: 0 });
 * // issuer: `${origin}/demo`
 */
export { createReferenceServer } from './server';
export type { ReferenceServer, ReferenceServerOptions, Listening } from './server';
export { demoConfig } from './demo';
export { FAULTS } from './faults';
export type { Fault } from './faults';
export { ConfigError, DEFAULT_LIFETIMES, loadConfigFile, validateConfig } from './config';
export type { ServerConfig, StoreConfig, Tenant, TenantConfig, Client, ClientConfig, User, UserConfig, Lifetimes, GrantType, ResponseType, SigningAlg } from './config';
export type { Logger } from './context';
export type { RequestInfo } from './app';
export { MemoryStore, StoreUnavailableError } from './store';
export type {
  Store,
  AccessTokenRecord,
  Authentication,
  AuthorizationRequest,
  CodeRecord,
  Interaction,
  RefreshTokenRecord,
  ResponseMode,
  Session,
  Taken,
} from './store';
