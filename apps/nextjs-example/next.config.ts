import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

// The monorepo root: workspace packages are linked from there, so tracing and Turbopack start at it.
const root = fileURLToPath(new URL('../..', import.meta.url));

const config: NextConfig = {
  outputFileTracingRoot: root,
  turbopack: { root },
};

export default config;
