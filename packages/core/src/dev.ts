/**
 * Error messages in full, or only their code: the package has two builds. This default one
 * carries every message (`DEV` is `true`) and reads no `process`, so it runs anywhere: Node, a
 * browser without a bundler, Workers, Deno. `index.production.*`, picked by the `production`
 * export condition (Vite and webpack set it for a production build; esbuild with
 * `conditions: ['production']`, Rollup with `exportConditions`), is built by
 * `scripts/lib/dev-messages-plugin.mjs`, which removes each message written `DEV && '...'`
 * (and makes every other `DEV` false), so an SPA does not ship kilobytes of prose. Internal module.
 */

/**
 * True in the default build, false in the production one. Each message is written `DEV && '...'`.
 * In the production build a `DEV && …` argument that is not a call's last one arrives as
 * `false` (e.g. the endpoint label given to `sendRequest`): such parameters are typed `string`
 * and read only inside `DEV && …` expressions themselves.
 */
export const DEV = true;
