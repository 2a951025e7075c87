import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// One file that packs, installs and runs the packages: its steps are slow on a loaded machine
// (npm install, four TypeScript programs, a tsup build), so the bounds are wider than the unit suites'.
export default defineConfig(
  mergeConfig(sharedTestConfig, {
    test: { testTimeout: 150_000, hookTimeout: 150_000 },
  }),
);
