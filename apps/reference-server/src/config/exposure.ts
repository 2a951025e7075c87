/**
 * Settings that say a server is reachable from outside this machine, and what they rule out:
 * the public development signing keys, password-less `demo_login` and a control API that
 * trusts the loopback address instead of a secret. A reverse proxy on the same host makes
 * every request come from 127.0.0.1, so the address proves nothing once any of these is set.
 */
import type { Tenant } from './model';
import { ConfigError, type OriginConfig } from './schema';

/** How each setting is spelt in the config file, on the command line and in the environment. */
const SPELLINGS: Readonly<Record<'public_origin' | 'trust_proxy' | 'trusted_hosts', string>> = {
  public_origin: '"public_origin" (--public-origin, OIDC_RP_PUBLIC_ORIGIN)',
  trust_proxy: '"trust_proxy" (--trust-proxy, OIDC_RP_TRUST_PROXY)',
  trusted_hosts: '"trusted_hosts"',
};

/** The first setting that says the server is reachable from outside, or undefined for a loopback-only server. */
export interface Exposure {
  field: keyof typeof SPELLINGS;
  /** The setting as a person finds it: file key, flag and variable. */
  spelt: string;
}

/**
 * Which setting makes this a production-looking deployment: an https public origin, a trusted
 * proxy, or trusted hosts besides loopback. An http public origin is loopback only (schema.ts).
 *
 * @example
 * const exposed = exposure(origin); // { field: 'trust_proxy', spelt: '"trust_proxy" (--trust-proxy, …)' }
 */
export function exposure(origin: OriginConfig): Exposure | undefined {
  const field = origin.publicOrigin?.startsWith('https:')
    ? 'public_origin'
    : origin.trustProxy
      ? 'trust_proxy'
      : origin.trustedHosts.size > 0
        ? 'trusted_hosts'
        : undefined;
  return field === undefined ? undefined : { field, spelt: SPELLINGS[field] };
}

/**
 * Refuses what a server reachable from outside must not run: the development keys, a tenant
 * with `demo_login`, a control API without a secret. Throws {@link ConfigError} naming the
 * setting at fault and the way out.
 *
 * @example
 * checkExposure(exposure(origin), { developmentKeys, tenants, secretlessControl: true });
 */
export function checkExposure(exposed: Exposure | undefined, what: { developmentKeys: boolean; tenants: readonly Tenant[]; secretlessControl: boolean }): void {
  if (!exposed) return;
  const why = `${exposed.spelt} is set, so this server is reachable from outside this machine (through a proxy every request comes from 127.0.0.1)`;
  if (what.developmentKeys) {
    throw new ConfigError(exposed.field, `${why}, and the development signing keys are public (anybody can sign tokens with them): leave out --dev-keys / developmentKeys`);
  }
  const index = what.tenants.findIndex((t) => t.demo_login);
  if (index !== -1) {
    throw new ConfigError(
      `tenants[${index}].demo_login`,
      `signs users in without a password, and ${why}: remove "demo_login" from tenant "${what.tenants[index]?.id}", or remove ${exposed.spelt}`,
    );
  }
  if (what.secretlessControl) {
    throw new ConfigError(
      exposed.field,
      `${why}, and the control API has no secret, so anyone could use it: set a secret of 32+ random characters in OIDC_RP_CONTROL_SECRET (or controlApi: { secret }), e.g. \`OIDC_RP_CONTROL_SECRET=$(openssl rand -base64 32)\``,
    );
  }
}

/**
 * Why a listener on `host` cannot serve tenants with `demo_login`, or undefined when it can.
 *
 * @example
 * demoLoginHostProblem(tenants, '0.0.0.0'); // 'tenant "demo" has "demo_login" ...'
 */
export function demoLoginHostProblem(tenants: readonly Tenant[], host: string): string | undefined {
  if (host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]') return undefined;
  const tenant = tenants.find((t) => t.demo_login);
  if (!tenant) return undefined;
  return `tenant "${tenant.id}" has "demo_login", which signs users in without a password: listen on 127.0.0.1 (not ${host}), or remove "demo_login"`;
}
