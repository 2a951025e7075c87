import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(resolve(here, '../README.md'), 'utf8');

/** The fenced block right after `<!-- snippet: NAME -->` in the README. */
function snippet(name: string): string {
  const match = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n`).exec(readme);
  if (!match?.[1]) throw new Error(`README.md has no "${name}" snippet`);
  return match[1];
}

describe('README', () => {
  it('its vitest example is byte for byte test/readme-example.test.ts, which runs in this suite', () => {
    expect(snippet('vitest')).toBe(readFileSync(resolve(here, 'readme-example.test.ts'), 'utf8'));
  });

  it.each([
    ['login-as-roles', 'readme-login-as-roles.test.ts'],
    ['custom-claims', 'readme-custom-claims.test.ts'],
    ['playwright-global-setup', 'readme-playwright-global-setup.ts'],
  ])('its %s snippet is byte for byte test/%s (type-checked strict, and run)', (name, file) => {
    expect(snippet(name)).toBe(readFileSync(resolve(here, file), 'utf8'));
  });

  it('the Playwright global setup serves the issuer over HTTP and closes', async () => {
    const { default: globalSetup } = await import('./readme-playwright-global-setup');
    const close = await globalSetup();
    try {
      const discovery = await fetch(`${process.env.OIDC_ISSUER}/.well-known/openid-configuration`);
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(process.env.OIDC_ISSUER);
    } finally {
      await close();
      delete process.env.OIDC_ISSUER;
    }
  });

  it('the test itself is at most 5 lines', () => {
    const body = /it\('[^']*', async \(\) => \{\n([\s\S]*?)\n\}\);/.exec(snippet('vitest'))?.[1] ?? '';
    expect(body.split('\n').length).toBeGreaterThan(0);
    expect(body.split('\n').length).toBeLessThanOrEqual(5);
  });

  it('quick starts use the published package, no monorepo commands', () => {
    const quickStart = readme.slice(0, readme.indexOf('## Programmatic use'));
    expect(quickStart).toContain('npx @oidc-rp/reference-server');
    expect(quickStart).not.toMatch(/pnpm --filter|apps\/reference-server/);
  });
});
