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
export { demoConfig } from './config/demo';
export { CLIENT_ASSERTION_FAULTS, DPOP_FAULTS, FAULTS, PAR_FAULTS } from './config/fault-names';
export { JARM_FAULTS } from './config/fault-names';
export type { Fault } from './config/fault-names';
export { ConfigError, DEFAULT_LIFETIMES, validateConfig } from './config/schema';
export { loadConfigFile } from './config/load';
export type { Lifetimes, GrantType, ResponseType, SigningAlg, Tenant, TenantProfile, Client, User } from './config/model';
export type { ClientAssertionAudience, ClientAuthMethod, ClientJwk, RegistrationPolicy } from './config/model';
export type { ServerConfig, StoreConfig, TenantConfig, ClientConfig, UserConfig, RegistrationConfig } from './config/schema';
export type { Logger } from './config/logger';
export type { RequestInfo } from './app';
export { ControlError } from './control/errors';
export type { ControlErrorCode } from './control/errors';
export type { ServerControl, TenantOption, FaultOptions, ClockState } from './control/control';
export type { JournalEntry, RequestMatch } from './control/journal';
export type { InjectedKind } from './control/transport-faults';
export type { TransportFault, ActiveTransportFault } from './control/transport-faults';
export type { ActiveFault } from './control/client-faults';
export type { UserSummary, ClientSummary } from './control/registry';
export type { EndedSessions, BackchannelDelivery, UnnotifiedClient } from './backchannel/backchannel';
export { MemoryStore, StoreUnavailableError } from './store/store';
export type {
  Store,
  AccessTokenRecord,
  Authentication,
  AuthorizationRequest,
  CodeRecord,
  Interaction,
  PushedRequest,
  RefreshTokenRecord,
  ResponseMode,
  Session,
  Taken,
} from './store/store';
