/**
 * esbuild plugin for the development-only error messages of @oidc-rp/core and
 * @oidc-rp/browser, which write each message `DEV && '...'` (`DEV` from their `src/dev.ts`).
 * It puts `process.env.NODE_ENV !== "production"` in place of every `DEV`, so that a bundler
 * defining `NODE_ENV` folds the condition where it stands and drops the text together with
 * the helpers only messages use. A shared `DEV` variable would not do: esbuild inlines a
 * constant from another module only after tree shaking (the helpers would stay), and never
 * the `var` a bundled file holds. Used by the packages' build (tsup.shared.ts) and by the
 * bundle-size measurements that build from sources (bench, packages/browser's budget test).
 *
 * A message that is a call's last argument goes altogether in production: `f(code, DEV && m)`
 * becomes `f(code, ...(DEV ? [m] : []))`, which a minifier folds to `f(code)` rather than
 * `f(code, !1)`. Where the argument's end cannot be told for sure, the text is left as it is.
 */

import { readFile } from 'node:fs/promises';

const IMPORT = /^import \{ DEV \} from '\.\/dev';$/m;
const CONDITION = '(process.env.NODE_ENV !== "production")';

/** @type {import('esbuild').Plugin} */
export const devMessagesPlugin = {
  name: 'oidc-rp-dev-messages',
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/](core|browser)[\\/]src[\\/][^\\/]+\.ts$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!IMPORT.test(source)) return undefined;
      // The replacement names the global `process`: a local binding of that name would capture it.
      if (/\b(?:function\*?|const|let|var|class)\s+process\b/.test(source)) {
        return { errors: [{ text: `${path} binds the name "process", which DEV's replacement reads: rename it.` }] };
      }
      const contents = dropLastMessageArguments(source.replace(IMPORT, '')).replace(/\bDEV\b/g, CONDITION);
      return { contents, loader: 'ts' };
    });
  },
};

/** Rewrites every `DEV && x` that is a call's last argument to a spread of `[x]` or of nothing. */
export function dropLastMessageArguments(source) {
  let out = '';
  let done = 0;
  for (const match of source.matchAll(/(?<=[\w$]\(|,)(\s*)DEV && /g)) {
    const start = match.index + match[1].length + 'DEV && '.length;
    if (start < done) continue;
    const end = lastArgumentEnd(source, start);
    if (end === undefined) continue;
    out += `${source.slice(done, match.index)}${match[1]}...(DEV ? [${source.slice(start, end)}] : [])`;
    done = end;
  }
  return out + source.slice(done);
}

// Where the expression at `from` ends when it is the last argument (the `)` closing the call),
// or undefined: another argument follows, or an operator binding looser than && (||, ??, ?:),
// a comment or a regular expression makes the extent uncertain.
function lastArgumentEnd(source, from) {
  const closers = [];
  for (let i = from; i < source.length; i += 1) {
    const char = source[i];
    if (char === "'" || char === '"') i = stringEnd(source, i, char);
    else if (char === '`') i = templateEnd(source, i);
    else if (char === '(' || char === '[' || char === '{') closers.push({ '(': ')', '[': ']', '{': '}' }[char]);
    else if (char === ')' || char === ']' || char === '}') {
      if (closers.length === 0) return char === ')' ? i : undefined;
      if (closers.pop() !== char) return undefined;
    } else if (closers.length === 0 && (char === ',' || char === '|' || (char === '?' && source[i + 1] !== '.'))) return undefined;
    else if (char === '/') return undefined;
    if (i < 0) return undefined;
  }
  return undefined;
}

function stringEnd(source, from, quote) {
  for (let i = from + 1; i < source.length; i += 1) {
    if (source[i] === '\\') i += 1;
    else if (source[i] === quote) return i;
    else if (source[i] === '\n') return -1;
  }
  return -1;
}

// The closing backtick of the template at `from`, skipping `${...}` with strings and templates inside.
function templateEnd(source, from) {
  for (let i = from + 1; i < source.length; i += 1) {
    if (source[i] === '\\') i += 1;
    else if (source[i] === '`') return i;
    else if (source[i] === '$' && source[i + 1] === '{') {
      let depth = 1;
      for (i += 2; i < source.length && depth > 0; i += 1) {
        const char = source[i];
        if (char === "'" || char === '"') i = stringEnd(source, i, char);
        else if (char === '`') i = templateEnd(source, i);
        else if (char === '{') depth += 1;
        else if (char === '}') depth -= 1;
        if (i < 0) return -1;
      }
      i -= 1;
    }
  }
  return -1;
}
