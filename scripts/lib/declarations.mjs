// The first step of a package's build: its declarations, one .d.ts per source file, emitted by
// TypeScript 7's native compiler into `.types/` (tsconfig.build.json). tsup then bundles each
// entry's declarations from there instead of compiling the sources again with TypeScript 5.9:
// the same .d.ts output for about half the CPU. A type error in the sources fails the build here.
//
//   node ../../scripts/lib/declarations.mjs   (in a package directory; its build script runs it)
import { rmSync } from 'node:fs';
import { runNativeTsc } from './native-tsc.mjs';

rmSync('.types', { recursive: true, force: true });
process.exit(runNativeTsc(['-p', 'tsconfig.build.json']));
