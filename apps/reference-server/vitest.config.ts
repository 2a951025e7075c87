import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedModuleGraph, sharedTestConfig } from '../../vitest.shared.ts';

// Every file builds its own server (fresh stores, clock and keys): one module graph serves them all.
export default defineConfig(mergeConfig(sharedTestConfig, sharedModuleGraph(fileURLToPath(new URL('.', import.meta.url)))));
