/** The esbuild `mangleProps` option: internal properties are named with a trailing `_` (see internal-props.mjs). */
export declare const mangleProps: RegExp;
