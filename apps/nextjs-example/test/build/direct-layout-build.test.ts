// `next build` of a root layout that imports <AuthProvider> from '@oidc-rp/react' directly
// (no 'use client' file of the app's own in between): the published files must be client modules.
import { describe, expect, it } from 'vitest';
import { nextBuild, warningsIn } from '../e2e/next-build';

describe('AuthProvider imported directly in app/layout.tsx', () => {
  it('builds without errors or warnings', { timeout: 8 * 60_000 }, async () => {
    const output = await nextBuild('test/fixtures/direct-layout');
    expect(output).toContain('Compiled successfully');
    expect(warningsIn(output)).toEqual([]);
  });
});
