import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// One file that packs the packages, installs them with npm, type-checks every README block in
// one program and runs the runnable ones: its setup is slow on a loaded machine.
export default defineConfig(
  mergeConfig(sharedTestConfig, {
    test: { testTimeout: 90_000, hookTimeout: 480_000 },
  }),
);
