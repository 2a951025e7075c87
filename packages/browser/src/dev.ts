/**
 * Full error messages in the default build, only codes in the production one, as in core (see
 * core's `src/dev.ts`). Internal module.
 */

/** True in the default build, false in the production one. Each message is written `DEV && '...'`. */
export const DEV = true;
