/**
 * The builds of @oidc-rp/core and @oidc-rp/browser shorten every property whose name ends in
 * `_` (esbuild `mangleProps`): an SPA ships `o.a` instead of `options.redirectUrl_`. The
 * convention is the whole rule: a name ends in `_` only when it is a property of one package's
 * own internal objects (resolved options, contexts, stores, caches). Public members, platform
 * members and persisted fields never end in `_`, and no such property is shared between core
 * and browser objects (the two packages are built separately).
 * `tests/release/test/internal-props.test.ts` checks the API reports hold no such name.
 */

/** The esbuild `mangleProps` option. */
export const mangleProps = /_$/;
