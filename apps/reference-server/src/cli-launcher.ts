#!/usr/bin/env node
/**
 * `dist/cli.js`: starts the command line (src/cli.ts, built as the CommonJS `dist/cli-bundle.cjs`)
 * through a V8 code cache, so a start does not compile the bundle again (see launch/code-cache.ts).
 */
import { fileURLToPath } from 'node:url';
import { runWithCodeCache } from './launch/code-cache';

runWithCodeCache(fileURLToPath(new URL('./cli-bundle.cjs', import.meta.url)));
