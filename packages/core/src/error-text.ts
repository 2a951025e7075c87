/** How a value from the wire appears in an error message. Internal module. */

/** Error values are short ASCII identifiers; anything else from the wire is not echoed. */
export function safeErrorValue(value: string): string {
  return /^[\w.-]{1,64}$/.test(value) ? value : '(not shown)';
}
