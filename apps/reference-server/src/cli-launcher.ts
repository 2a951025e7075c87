#!/usr/bin/env node
/**
 * `dist/cli.js`: starts the command line (src/cli.ts, built as the CommonJS `dist/cli-bundle.cjs`:
 * Node loads one CommonJS file faster than the same code as an ES module).
 */
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./cli-bundle.cjs');
