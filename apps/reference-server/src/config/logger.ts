/**
 * Where the server writes what happens: a `logger` option of the server. Never passed a
 * token, code, secret or password.
 *
 * @example
 * const logger: Logger = { info: (m) => console.log(m), warn: (m) => console.warn(m), error: (m) => console.error(m) };
 */
export interface Logger {
  info(message: string): void;
  /** Security events an operator should see: failed sign-ins, lockouts, refused hosts or keys. Falls back to `info`. */
  warn?(message: string): void;
  error(message: string): void;
}

/**
 * Logs a security event at `warn`, or at `info` for a logger without `warn`.
 *
 * @example
 * warn(ctx.server.logger, `tenant ${tenant.id}: sign-in locked for user alice`);
 */
export function warn(logger: Logger, message: string): void {
  if (logger.warn) logger.warn(message);
  else logger.info(message);
}
