/**
 * Full error messages in development builds only, as in core: a production bundle
 * (`process.env.NODE_ENV === 'production'`, set by every SPA bundler) keeps the codes and
 * drops the prose. Internal module.
 */

declare const process: { env: Record<string, string | undefined> };

/** True unless the app is built for production; messages are written `DEV && '...'`. */
export const DEV = process.env.NODE_ENV !== 'production';
