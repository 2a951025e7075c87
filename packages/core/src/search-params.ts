/** Filling a query or a form body from named values. Internal module. */

/**
 * Sets each value of `values` that is not undefined on `params`, in the order given (an
 * optional parameter is then one entry, not one `if`), and returns `params`.
 */
export function setDefined(params: URLSearchParams, values: Record<string, string | undefined>): URLSearchParams {
  for (const [name, value] of Object.entries(values)) if (value !== undefined) params.set(name, value);
  return params;
}
