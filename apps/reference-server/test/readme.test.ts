// What the README promises a new user in prose. Its code blocks are type-checked and run by the
// repository's README check (tests/readme), against the packed package.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(resolve(here, '../README.md'), 'utf8');

/** The fenced block under `<!-- snippet: id NAME -->` (other markers may stack around it). */
function block(id: string): string {
  const match = new RegExp(`<!-- snippet: id ${id} -->\\n(?:<!-- snippet: [^\\n]*-->\\n)*\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n`).exec(readme);
  if (!match?.[1]) throw new Error(`README.md has no block with "<!-- snippet: id ${id} -->"`);
  return match[1];
}

describe('README', () => {
  it('the first test example is run by the README check with vitest', () => {
    expect(readme).toMatch(/<!-- snippet: vitest -->\n<!-- snippet: id first-test -->\n```ts\n/);
  });

  it('the first test itself is at most 5 lines', () => {
    const body = /it\('[^']*', async \(\) => \{\n([\s\S]*?)\n\}\);/.exec(block('first-test'))?.[1];
    expect(body).toBeDefined();
    expect(body?.split('\n').length).toBeLessThanOrEqual(5);
  });

  it('quick starts use the published package, no monorepo commands', () => {
    const quickStart = readme.slice(0, readme.indexOf('## Programmatic use'));
    expect(quickStart).toContain('npx @oidc-rp/reference-server');
    expect(quickStart).not.toMatch(/pnpm --filter|apps\/reference-server/);
  });
});
