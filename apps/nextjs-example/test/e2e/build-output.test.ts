// What a user sees from `pnpm build` of the example: no error and no warning, with the root
// layout importing <AuthProviderWithOptions> from '@oidc-rp/react' directly (a server component
// may import it only because the package's published files are client modules).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appRoot, buildOutput, warningsIn } from './next-build';

describe('the example build', () => {
  it('compiles without a warning, the provider imported straight from @oidc-rp/react in the root layout', () => {
    expect(readFileSync(`${appRoot}app/layout.tsx`, 'utf8')).toMatch(/import \{ AuthProviderWithOptions \} from '@oidc-rp\/react';/);
    const output = buildOutput();
    expect(output).toContain('Compiled successfully');
    expect(warningsIn(output)).toEqual([]);
  });
});
