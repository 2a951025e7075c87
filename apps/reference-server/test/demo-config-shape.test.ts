import { describe, expect, it } from 'vitest';
import { demoConfig } from '../src/config/demo';
import { ConfigError, knownShape, validateConfig } from '../src/config/schema';
import { shapeProblem } from '../src/config/shape';

// The command line validates its built-in demo config without the file schema (building the
// schema is a visible share of its start-up): these keep that config inside the schema.
describe('the built-in demo config', () => {
  it('fits the config file schema', () => {
    expect(shapeProblem(demoConfig())).toBeUndefined();
  });

  it('validates the same with and without the schema check', () => {
    const checked = validateConfig(demoConfig());
    const trusted = validateConfig(knownShape(demoConfig()));
    expect(trusted.map((t) => t.id)).toEqual(checked.map((t) => t.id));
    expect([...(trusted[0]?.clients.keys() ?? [])]).toEqual([...(checked[0]?.clients.keys() ?? [])]);
  });

  it('only the marked object skips the schema: an unmarked config with an unknown key is refused', () => {
    knownShape(demoConfig());
    const config = demoConfig() as unknown as { tenants: Record<string, unknown>[] };
    (config.tenants[0] as Record<string, unknown>).skip_consnet = true;
    expect(() => validateConfig(config)).toThrow(ConfigError);
    expect(() => validateConfig(config)).toThrow(/tenants\[0\]\.skip_consnet/);
  });

  it('a marked config still goes through the cross-field rules', () => {
    const config = demoConfig();
    const tenant = config.tenants[0];
    if (!tenant) throw new Error('the demo config has a tenant');
    config.tenants.push({ ...tenant });
    expect(() => validateConfig(knownShape(config))).toThrow(/tenant id/);
  });
});
