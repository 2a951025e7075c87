/**
 * Where the server writes what happens: a `logger` option of the server. Never passed a
 * token, code or secret.
 *
 * @example
 * const logger: Logger = { info: (m) => console.log(m), error: (m) => console.error(m) };
 */
export interface Logger {
  info(message: string): void;
  error(message: string): void;
}
