// `pnpm typecheck` in a package: TypeScript 7 (the native compiler, `typescript-native` in the
// root package.json) over the package's tsconfig.json. It checks the same sources with the same
// options as TypeScript 5.9 in a fifth of the CPU; 5.9 (`typescript`) stays the API the build
// (tsup's declarations), TypeDoc and the release check's consumer programs use.
//
//   node ../../scripts/typecheck.mjs [more tsc flags]
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

// The package exports no bin path; its package.json is exported, and bin/tsc sits beside it.
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript-native/package.json')), 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
