/**
 * Development builds carry the full text of every error message; production builds only the
 * code and a short hint, so an SPA does not ship kilobytes of prose. Every bundler an app
 * uses replaces `process.env.NODE_ENV` (Vite, webpack, Rollup's replace plugin, Parcel;
 * esbuild with `define`), as for React; Node has it. Internal module.
 */

declare const process: { env: Record<string, string | undefined> };

/**
 * True unless the app is built for production. Each message is written `DEV && '...'`, so a
 * production bundle drops the text while the check around it stays.
 */
export const DEV = process.env.NODE_ENV !== 'production';
