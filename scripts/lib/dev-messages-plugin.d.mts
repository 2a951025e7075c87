/** esbuild plugin: the production build of core's and browser's sources (see dev-messages-plugin.mjs). */
export declare const productionMessagesPlugin: {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: esbuild's PluginBuild, kept structural so no package needs esbuild's types
  setup(build: any): void;
};
/** The production form of one module's source: `DEV && x` last arguments removed, every other `DEV` made `false`. */
export declare function stripDevMessages(source: string, fileName?: string): string;
