// A TypeDoc plugin for the API check (`node scripts/api-docs.mjs --check`): each package is
// read from the declarations its build emitted into `.types/` (scripts/lib/declarations.mjs)
// instead of from its sources. The declarations keep every exported name, type and TSDoc
// comment, so TypeDoc converts the same reflections and its validation (broken {@link}, a
// type of the public API not exported, ...) warns the same; but TypeScript has no function
// bodies to parse and check, which was most of the check's CPU. The HTML reference
// (`pnpm docs:api`) is still built from the sources, for source links to `src/`.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';

/** `<package>/src/x.ts` → `<package>/.types/x.d.ts`; the package's tsconfig.build.json emits there. */
function declarationOf(packageDir, entry) {
  const inSrc = relative(join(packageDir, 'src'), entry);
  if (inSrc.startsWith('..') || !/\.tsx?$/.test(inSrc)) {
    throw new Error(`TypeDoc entry point ${entry} is not a source file under ${packageDir}/src`);
  }
  const declaration = join(packageDir, '.types', inSrc.replace(/\.tsx?$/, '.d.ts'));
  if (!existsSync(declaration)) {
    throw new Error(`${declaration} does not exist: build the package first (\`pnpm build\`).`);
  }
  return declaration;
}

/**
 * Runs after TypeDoc's tsconfig reader (order 200) for each package: swaps the entry points
 * for their declarations and makes them the program's only root files (TypeScript follows
 * their imports), keeping the package's compiler options (libs, types, jsx).
 */
class DeclarationsReader {
  name = 'oidc-rp-declarations';
  order = 250;
  supportsPackages = true;

  read(container, _logger, cwd) {
    if (container.getValue('entryPointStrategy') === 'packages') return;
    const entries = container.getValue('entryPoints').map((entry) => declarationOf(cwd, entry));
    container.setValue('entryPoints', entries);
    container.setCompilerOptions(entries, container.getCompilerOptions(), container.getProjectReferences());
  }
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.options.addReader(new DeclarationsReader());
}
