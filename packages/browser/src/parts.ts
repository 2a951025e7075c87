/**
 * The opaque type of the client's opt-in parts (`popupLogin`, `implicitFlow`, `revocation`,
 * `crossTab()`): what a part does inside the client is no public API, so its type only names
 * the part. Internal module.
 */

declare const part: unique symbol;

/**
 * An opt-in part of `createBrowserClient`, made by this package. Opaque: pass it to the client.
 *
 * @example
 * ```ts
 * const parts: Part<'popupLogin'>[] = [popupLogin];
 * ```
 */
export interface Part<Name extends string> {
  readonly [part]: Name;
}
