/**
 * Whether a reference server on `config` may sign with its fixed development keys: every tenant
 * is a development one, the store is memory and nothing exposes the server (it refuses them for
 * anything else). For test servers that are not about key generation: generating an RSA key
 * costs about 0.2 s of CPU per server. The config is typed by the fields read, so this file
 * needs no package of the workspace.
 *
 * @example
 * await createReferenceServer(config, { logger: false, developmentKeys: developmentKeysFor(config) });
 */
export function developmentKeysFor(config: DevelopmentKeysConfig): boolean {
  return config.tenants.every((tenant) => tenant.development === true) && (config.store?.type ?? 'memory') === 'memory' && !isExposed(config);
}

/** The parts of a reference server's config that decide whether it may use the development keys. */
export interface DevelopmentKeysConfig {
  tenants: ReadonlyArray<{ development?: boolean }>;
  store?: { type: string };
  public_origin?: string;
  trust_proxy?: boolean;
  trusted_hosts?: readonly string[];
}

/** Reachable from outside this machine (the server refuses the development keys then). */
function isExposed(config: DevelopmentKeysConfig): boolean {
  return config.public_origin !== undefined || config.trust_proxy === true || (config.trusted_hosts?.length ?? 0) > 0;
}
