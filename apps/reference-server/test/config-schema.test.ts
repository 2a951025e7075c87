import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../src/config/shape';
import { ConfigError, demoConfig, validateConfig } from '../src/index';

const FILE = resolve(dirname(fileURLToPath(import.meta.url)), '../config.schema.json');
const generated = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;

describe('config.schema.json', () => {
  // `pnpm run config-schema` sets the variable to rewrite the file from the zod schema.
  if (process.env.UPDATE_CONFIG_SCHEMA === '1') writeFileSync(FILE, generated);

  it('is the JSON Schema generated from the zod schema (run `pnpm run config-schema` when this fails)', () => {
    expect(readFileSync(FILE, 'utf8')).toBe(generated);
  });

  it('is shipped in the package', () => {
    const pkg = JSON.parse(readFileSync(resolve(FILE, '../package.json'), 'utf8')) as { files: string[]; exports: Record<string, unknown> };
    expect(pkg.files).toContain('config.schema.json');
    expect(pkg.exports['./config.schema.json']).toBe('./config.schema.json');
  });

  it('describes the file: closed objects, required keys, enums', () => {
    const schema = JSON.parse(generated) as { additionalProperties: boolean; required: string[]; properties: Record<string, unknown> };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['tenants']);
    expect(Object.keys(schema.properties)).toEqual(['$schema', 'tenants', 'store', 'public_origin', 'trusted_hosts', 'trust_proxy']);
    expect(generated).toContain('"RS256"');
    expect(generated).toContain('"scope_claims"');
  });

  it('a config naming the schema with "$schema" is accepted; a non-string "$schema" is refused', () => {
    const config = { $schema: './node_modules/@oidc-rp/reference-server/config.schema.json', ...demoConfig() };
    expect(validateConfig(config)[0]?.id).toBe('demo');
    expect(() => validateConfig({ ...demoConfig(), $schema: 5 })).toThrow(ConfigError);
    expect(() => validateConfig({ ...demoConfig(), $schema: 5 })).toThrow(/invalid config at \$schema: must be a string/);
  });
});
