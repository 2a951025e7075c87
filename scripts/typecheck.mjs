// `pnpm typecheck` in a package: TypeScript 7's native compiler over the package's
// tsconfig.json. It checks the same sources with the same options as TypeScript 5.9 in about a
// third of the CPU (scripts/lib/native-tsc.mjs says which TypeScript does what).
//
//   node ../../scripts/typecheck.mjs [more tsc flags]
import { runNativeTsc } from './lib/native-tsc.mjs';

process.exit(runNativeTsc(['-p', 'tsconfig.json', ...process.argv.slice(2)]));
