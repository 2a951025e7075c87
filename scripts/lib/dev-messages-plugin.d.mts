/** esbuild plugin: every `DEV` of core's and browser's sources becomes `process.env.NODE_ENV !== "production"`. */
/** Rewrites every `DEV && x` that is a call’s last argument to a spread of `[x]` or of nothing. */
export declare function dropLastMessageArguments(source: string): string;
export declare const devMessagesPlugin: {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: esbuild's PluginBuild, kept structural so no package needs esbuild's types
  setup(build: any): void;
};
