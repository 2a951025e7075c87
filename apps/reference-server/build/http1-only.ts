/**
 * esbuild plugin for the CLI bundle: `node:http2` as a stand-in with nothing in it. The CLI
 * serves HTTP/1.1 only (node:http), and @hono/node-server imports node:http2 just to tell an
 * HTTP/2 request apart (`instanceof Http2ServerRequest`, never true here) and for a constant of
 * its HTTP/2 branch; loading Node's HTTP/2 stack for that is a few ms of every start.
 */
import type { Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

const STAND_IN = `
export class Http2ServerRequest {}
export const constants = { NGHTTP2_NO_ERROR: 0 };
`;

export const http1Only: Plugin = {
  name: 'http1-only',
  setup(build) {
    build.onResolve({ filter: /^(node:)?http2$/ }, () => ({ path: 'http2-stand-in', namespace: 'http1-only' }));
    build.onLoad({ filter: /.*/, namespace: 'http1-only' }, () => ({ contents: STAND_IN, loader: 'js' }));
  },
};
