// oidc-provider ships no types; this declares the little the interoperability suite uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface ProviderClient {
    grantTypeAllowed(grant: string): boolean;
  }

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  interface Configuration {
    clients?: Record<string, unknown>[];
    jwks?: { keys: Record<string, unknown>[] };
    cookies?: { keys: string[] };
    scopes?: string[];
    claims?: Record<string, string[]>;
    findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined>;
    features?: Record<string, { enabled: boolean; [setting: string]: unknown }>;
    issueRefreshToken?: (ctx: unknown, client: ProviderClient) => Promise<boolean>;
    ttl?: Record<string, number>;
    clientAuthMethods?: string[];
  }

  /** The koa context of a request, as far as a middleware here reads it. */
  interface Context {
    path: string;
    body: unknown;
  }

  /** The provider's OAuth errors, thrown from its hooks (e.g. getResourceServerInfo). */
  export const errors: { InvalidTarget: new (description?: string) => Error };

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    /** Client metadata validation; `invalidate(message, code)` refuses a registration. */
    Client: { Schema: { prototype: { invalidate(message: string, code?: string): void } } };
    on(event: 'authorization.success', listener: (ctx: Context, out: Record<string, unknown>) => void): this;
    use(middleware: (ctx: Context, next: () => Promise<void>) => Promise<void>): void;
  }
}
