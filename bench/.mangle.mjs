import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import SETTINGS from '/work/main/bench/lib/esbuild-options.json' with { type: 'json' };
import { devMessagesPlugin } from '/work/main/scripts/lib/dev-messages-plugin.mjs';
const names = process.argv[2];
const r = await build({ ...SETTINGS, entryPoints: ['/work/main/bench/bundle-entries/oidc-rp-browser.js'],
 alias: { '@oidc-rp/core': '/tmp/exp/packages/core/src/index.ts', '@oidc-rp/browser': '/tmp/exp/packages/browser/src/index.ts' },
 mangleProps: new RegExp(`^(${names})$`), plugins: [devMessagesPlugin], write: false, outdir: '/tmp/o', logLevel: 'error' });
const b = r.outputFiles[0].contents;
console.log('min', b.length, 'gz', gzipSync(b, { level: 9 }).length);
