/**
 * esbuild plugin that makes the production build of @oidc-rp/core and @oidc-rp/browser: the
 * packages write each development-only error message `DEV && '...'` (`DEV` from their
 * `src/dev.ts`), and this plugin, on a real TypeScript parse of each module:
 * - removes a `DEV && …` that is a call's (or `new`'s) last argument, argument and comma, so
 *   `new OidcError(code, DEV && text)` becomes `new OidcError(code)`;
 * - replaces every other `DEV` with `false`, which the app's minifier folds (the text and the
 *   helpers only messages use are then dropped);
 * - drops the `import { DEV } from './dev'` (`'../dev'` in a module of a sub-folder).
 * It fails the build on a module that imports `DEV` in another form, or declares its own `DEV`.
 * The default build does not use it: there `DEV` is the guarded check of `src/dev.ts`, which
 * runs where no `process` exists. Used by the packages' build (tsup.shared.ts, the
 * `index.production.*` files picked by the `production` export condition) and by the
 * bundle-size measurements that build from sources (bench, packages/browser's budget test).
 */

import { readFile } from 'node:fs/promises';
import ts from 'typescript';

// The package's `src/dev.ts`, from a module of `src/` (`./dev`) or of a sub-folder (`../dev`).
const DEV_MODULE = /^\.\/dev$|^(\.\.\/)+dev$/;

/** @type {import('esbuild').Plugin} */
export const productionMessagesPlugin = {
  name: 'oidc-rp-production-messages',
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/](core|browser)[\\/]src[\\/].+\.ts$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      try {
        const contents = stripDevMessages(source, path);
        return contents === source ? undefined : { contents, loader: 'ts' };
      } catch (error) {
        return { errors: [{ text: error.message }] };
      }
    });
  },
};

/** The production form of one module's source (see the module comment). */
export function stripDevMessages(source, fileName = 'module.ts') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  /** @type {{ start: number; end: number; text: string }[]} */
  const edits = [];
  let imported = false;

  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const names = node.importClause?.namedBindings;
      if (ts.isStringLiteral(node.moduleSpecifier) && DEV_MODULE.test(node.moduleSpecifier.text)) {
        const only = names && ts.isNamedImports(names) && names.elements.length === 1 && names.elements[0].name.text === 'DEV';
        if (!only || node.importClause.name || names.elements[0].propertyName) {
          throw new Error(`${fileName}: import DEV alone, as \`import { DEV } from './dev'\`.`);
        }
        imported = true;
        edits.push({ start: node.getStart(file), end: node.end, text: '' });
      }
      return;
    }
    if ((ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isFunctionDeclaration(node)) && node.name?.getText(file) === 'DEV') {
      throw new Error(`${fileName}: declares its own DEV, which this build would replace.`);
    }
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments?.length) {
      const args = node.arguments;
      const last = args[args.length - 1];
      if (isDevAnd(last)) {
        // From the end of the argument before (its comma goes), or for a lone argument from its
        // start, with the trailing comma of a multi-line call: `f(a, DEV && m)` → `f(a)`, `f(DEV && m,)` → `f()`.
        const lone = args.length === 1;
        const start = lone ? last.getStart(file) : args[args.length - 2].end;
        const end = lone && args.hasTrailingComma ? args.end : last.end;
        for (const arg of args.slice(0, -1)) visit(arg);
        visit(node.expression);
        edits.push({ start, end, text: '' });
        return;
      }
    }
    if (ts.isIdentifier(node) && node.text === 'DEV' && isValueReference(node)) {
      edits.push({ start: node.getStart(file), end: node.end, text: 'false' });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!imported) {
    if (edits.length > 0) throw new Error(`${fileName}: uses DEV without importing it from './dev'.`);
    return source;
  }
  let out = source;
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

// `DEV && …` (parentheses allowed around it).
function isDevAnd(node) {
  while (ts.isParenthesizedExpression(node)) node = node.expression;
  return (
    ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken &&
    ts.isIdentifier(node.left) &&
    node.left.text === 'DEV'
  );
}

// An identifier read as a value, not a property name (`x.DEV`, `{ DEV: 1 }`) or a type.
function isValueReference(node) {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent)) && parent.name === node) return false;
  if (ts.isTypeReferenceNode(parent) || ts.isQualifiedName(parent)) return false;
  return true;
}
