/** Property names internal to @oidc-rp/core and @oidc-rp/browser (see internal-props.mjs). */
export declare const INTERNAL_PROPS: readonly string[];
/** The esbuild `mangleProps` option for those names. */
export declare const mangleProps: RegExp;
