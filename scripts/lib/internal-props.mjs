/**
 * Property names internal to @oidc-rp/core and @oidc-rp/browser, which their builds shorten
 * (esbuild `mangleProps`): an SPA ships `o.a` instead of `options.redirectUrl`. The packages'
 * builds (tsup.shared.ts) and every bundle-size measurement from the sources (bench, the
 * browser's budget test) use this list, so what is measured is what ships.
 *
 * A name may be here only when it is a property of the packages' own internal objects
 * (resolved options, contexts, stores, caches) and nothing else, because esbuild renames every
 * property of that name in the build:
 * - never a member of any package's public API (api/*.api.md), which callers read and write;
 * - never a member of a platform object (TypeScript's DOM and ES libraries);
 * - never shared between core and browser objects (the two packages are built separately).
 * `tests/release/test/internal-props.test.ts` checks the first two against the API reports and
 * TypeScript's libraries. Persisted fields (stored sessions and transactions) are never here.
 */
export const INTERNAL_PROPS = [
  // core
  'fetchedAt',
  'refetchedAt',
  'refetchCooldown',
  'problem',
  // browser
  'redirectUrl',
  'fragment',
  'core',
  'runtime',
  'transactions',
  'completeLogin',
  'failed',
  'replayed',
  'announce',
  'handleCurrent',
  'isCallback',
  'inFlight',
  'keep',
  'redeem',
  'clean',
  'internals',
];

/** The esbuild `mangleProps` option for the names above. */
export const mangleProps = new RegExp(`^(?:${INTERNAL_PROPS.join('|')})$`);
