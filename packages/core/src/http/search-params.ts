/** Filling a query or a form body from named values. Internal module. */

/**
 * Sets each value of `values` that is not undefined on `params` (a new form body by default),
 * in the order given, and returns `params`: an optional parameter is one entry, not one `if`.
 */
export function setDefined(values: Record<string, string | undefined>, params = new URLSearchParams()): URLSearchParams {
  for (const [name, value] of Object.entries(values)) if (value !== undefined) params.set(name, value);
  return params;
}
