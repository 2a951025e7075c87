import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// `next build` of the fixtures (test/build): it needs the built packages only, not the app's own
// build, so turbo runs it beside the app's `next build` instead of after it, in the e2e chain.
// Its report has a name of its own (the e2e run writes test-results.json in this directory), so
// the shared settings are spread, not merged (a merge would add the reporters to the shared ones).
export default defineConfig({
  test: {
    ...sharedTestConfig.test,
    include: ['test/build/**/*.test.ts'],
    environment: 'node',
    reporters: ['default', ['json', { outputFile: 'test-results.build.json' }]],
  },
});
