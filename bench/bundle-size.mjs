/**
 * Bundle size of the same SPA usage (login, callback handling, getAccessToken, logout) with
 * each library: one small entry per library in bundle-entries/, bundled in this run with the
 * same esbuild settings (lib/esbuild-options.json: bundle, minify, tree-shake, platform
 * browser, ESM, NODE_ENV production, legal comments dropped; react, react-dom and
 * react/jsx-runtime external for every variant so only the auth library is counted). Reports
 * min bytes and min+gzip (zlib level 9), the share of each package (esbuild metafile), what
 * each opt-in part of @oidc-rp/browser adds, and every source module of our bundle.
 * Bundles are written to bench/.out/bundles/ for inspection. The budget (lib/bundle-budget.json)
 * is enforced by packages/browser/test/bundle-size.test.ts, on the same entry and settings.
 */

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import BUDGET from './lib/bundle-budget.json' with { type: 'json' };
import SETTINGS from './lib/esbuild-options.json' with { type: 'json' };
import { productionMessagesPlugin } from '../scripts/lib/dev-messages-plugin.mjs';
import { mangleProps } from '../scripts/lib/internal-props.mjs';
import { emit } from './lib/emit.mjs';
import { bytes, num, table } from './lib/table.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const outdir = join(here, '.out', 'bundles');

/** name, entry file, group ('vanilla' | 'react' | 'react-baseline' | 'part' | 'opt-in'). */
const VARIANTS = [
  { name: '@oidc-rp/browser', entry: 'oidc-rp-browser.js', group: 'vanilla', ours: true },
  { name: '@oidc-rp/browser with discovery (discovery(issuer))', entry: 'oidc-rp-browser-discover.js', group: 'vanilla', ours: true },
  { name: 'oidc-client-ts', entry: 'oidc-client-ts.js', group: 'vanilla' },
  { name: '@auth0/auth0-spa-js', entry: 'auth0-spa-js.js', group: 'vanilla' },
  { name: '@azure/msal-browser', entry: 'msal-browser.js', group: 'vanilla' },
  { name: '@oidc-rp/react (+ browser)', entry: 'oidc-rp-react.jsx', group: 'react', ours: true },
  { name: 'react-oidc-context (+ oidc-client-ts)', entry: 'react-oidc-context.jsx', group: 'react' },
  { name: '@auth0/auth0-react (+ auth0-spa-js)', entry: 'auth0-react.jsx', group: 'react' },
  { name: 'app code only (React baseline, no auth library)', entry: 'react-app-only.jsx', group: 'react-baseline' },
  { name: '@oidc-rp/core (SPA functions of the code flow)', entry: 'oidc-rp-core.js', group: 'part', ours: true },
  // The default usage plus one opt-in part each: what an app pays for opting in.
  { name: '`discovery(issuer)` (issuer discovery)', entry: 'oidc-rp-browser-discover.js', group: 'opt-in', ours: true },
  { name: '`popupLogin` (login in a popup)', entry: 'oidc-rp-browser-popup.js', group: 'opt-in', ours: true },
  { name: '`implicitFlow` (deprecated implicit flow)', entry: 'oidc-rp-browser-implicit.js', group: 'opt-in', ours: true },
  { name: '`idTokenFlow` (implicit `id_token`: sign-in from the ID token in the fragment)', entry: 'oidc-rp-browser-id-token.js', group: 'opt-in', ours: true },
  { name: "`hybridFlow('code token id_token')` (hybrid: code and ID token in the fragment)", entry: 'oidc-rp-browser-hybrid.js', group: 'opt-in', ours: true },
  { name: '`revocation` (logout revokes the refresh token)', entry: 'oidc-rp-browser-revocation.js', group: 'opt-in', ours: true },
  { name: '`logoutState()` (RP-initiated logout sends a state, checked on the way back)', entry: 'oidc-rp-browser-logout-state.js', group: 'opt-in', ours: true },
  { name: '`getUserInfo(client)` (userinfo endpoint)', entry: 'oidc-rp-browser-userinfo.js', group: 'opt-in', ours: true },
  { name: "`crossTab({ storage: 'indexedDB' })` (tabs act as one; shared tokens)", entry: 'oidc-rp-browser-crosstab.js', group: 'opt-in', ours: true },
  { name: '`authorizedFetch(client)` (fetch with a 401 retry)', entry: 'oidc-rp-browser-fetch.js', group: 'opt-in', ours: true },
  { name: '`dpop()` (DPoP, RFC 9449: tokens bound to a non-extractable key in IndexedDB)', entry: 'oidc-rp-browser-dpop.js', group: 'opt-in', ours: true },
  { name: "`resourceIndicators({ resources })` (RFC 8707: logins ask for your APIs; a token per API from the refresh token)", entry: 'oidc-rp-browser-resources.js', group: 'opt-in', ours: true },
  { name: '`par()` (pushed authorization requests, RFC 9126: the authorize URL carries client_id and request_uri only)', entry: 'oidc-rp-browser-par.js', group: 'opt-in', ours: true },
];

/** Budgets (issue 14), in bytes of min+gzip. */
const BROWSER_BUDGET = BUDGET.browserGzip;
const REACT_EXTRA_BUDGET = BUDGET.reactExtraGzip;

const ESBUILD_OPTIONS = { ...SETTINGS, metafile: true, logLevel: 'error' };

// Our packages resolved to their TypeScript sources instead of dist: the same code, but the
// metafile then names each source module, which shows where the bytes go.
const SOURCE_ALIASES = {
  '@oidc-rp/core': join(here, '../packages/core/src/index.ts'),
  '@oidc-rp/core/api': join(here, '../packages/core/src/api/index.ts'),
  '@oidc-rp/core/internal': join(here, '../packages/core/src/internal.ts'),
  '@oidc-rp/browser': join(here, '../packages/browser/src/index.ts'),
  '@oidc-rp/react': join(here, '../packages/react/src/index.ts'),
};

async function sourceBreakdown(entry) {
  const result = await build({
    ...ESBUILD_OPTIONS,
    entryPoints: [join(here, 'bundle-entries', entry)],
    alias: SOURCE_ALIASES,
    plugins: [productionMessagesPlugin], // as the packages' production build does
    mangleProps, // likewise
    write: false,
    outdir,
  });
  const [output] = Object.values(result.metafile.outputs);
  const min = result.outputFiles[0].contents.length;
  const inputs = Object.entries(output.inputs)
    .map(([path, { bytesInOutput }]) => ({ path: shortPath(path), pkg: packageOf(path), bytes: bytesInOutput }))
    .filter((input) => input.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  return { min, inputs };
}

async function bundle(variant) {
  const outfile = join(outdir, variant.entry.replace(/\.jsx?$/, '.min.js'));
  const result = await build({
    ...ESBUILD_OPTIONS,
    entryPoints: [join(here, 'bundle-entries', variant.entry)],
    outfile,
  });
  const code = readFileSync(outfile);
  const [output] = Object.values(result.metafile.outputs);
  const inputs = Object.entries(output.inputs)
    .map(([path, { bytesInOutput }]) => ({ path: shortPath(path), pkg: packageOf(path), bytes: bytesInOutput }))
    .filter((input) => input.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  const byPackage = {};
  for (const input of inputs) byPackage[input.pkg] = (byPackage[input.pkg] ?? 0) + input.bytes;
  return {
    ...variant,
    min: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    byPackage,
    inputs,
  };
}

// The npm package an input file belongs to (workspace packages by their directory).
function packageOf(path) {
  const workspace = /(?:^|\/)packages\/([^/]+)\//.exec(path);
  if (workspace && !path.includes('node_modules/')) return `@oidc-rp/${workspace[1]}`;
  const matches = [...path.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)];
  if (matches.length) return matches.at(-1)[1];
  return path.includes('bundle-entries/') ? '(entry: app code)' : '(other)';
}

function shortPath(path) {
  return path.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace(/^(\.\.\/)+/, '');
}

function shares(result, limit = 6) {
  const total = Object.values(result.byPackage).reduce((a, b) => a + b, 0);
  return Object.entries(result.byPackage)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([pkg, n]) => `${pkg} ${((n / total) * 100).toFixed(0)}%`)
    .join(', ');
}

export async function run() {
  mkdirSync(outdir, { recursive: true });
  const results = [];
  for (const variant of VARIANTS) results.push(await bundle(variant));
  const find = (entry) => results.find((r) => r.entry === entry);
  const browser = find('oidc-rp-browser.js');
  const react = find('oidc-rp-react.jsx');
  const baseline = find('react-app-only.jsx');
  const core = find('oidc-rp-core.js');

  const row = (r) => [
    r.ours ? `**${r.name}**` : r.name,
    num(r.min),
    num(r.gzip),
    r.group === 'vanilla' ? `${(r.gzip / browser.gzip).toFixed(2)}×` : r.group === 'react' ? `${(r.gzip / react.gzip).toFixed(2)}×` : '',
    shares(r, 4),
  ];
  const headers = ['bundle', 'min (B)', 'min+gzip (B)', 'gzip vs ours', 'where the min bytes go (metafile)'];
  const mainTable = table(
    headers,
    ['vanilla', 'react', 'react-baseline', 'part'].flatMap((group) => results.filter((r) => r.group === group).map(row)),
    ['l', 'r', 'r', 'r', 'l'],
  );
  const optIns = results.filter((r) => r.group === 'opt-in');
  const optInTable = table(
    ['opt-in part of @oidc-rp/browser', 'min+gzip with it (B)', 'added min+gzip (B)', 'added min (B)'],
    optIns.map((r) => [r.name, num(r.gzip), `+${num(r.gzip - browser.gzip)}`, `+${num(r.min - browser.min)}`]),
    ['l', 'r', 'r', 'r'],
  );

  const joseMin = browser.byPackage.jose ?? 0;
  const browserMinTotal = Object.values(browser.byPackage).reduce((a, b) => a + b, 0);
  const reactExtra = react.gzip - browser.gzip;
  const reactExtraNet = react.gzip - browser.gzip - baseline.gzip;
  const checks = [
    `@oidc-rp/browser (browser + core + jose parts): ${bytes(browser.gzip)} min+gzip, budget ${num(BROWSER_BUDGET)} B: ${browser.gzip <= BROWSER_BUDGET ? 'met' : 'NOT met'}.`,
    `@oidc-rp/react on top of it: +${num(reactExtra)} B min+gzip for the React entry (which also carries ${num(baseline.gzip)} B of app code, see baseline), ` +
      `≈ +${num(reactExtraNet)} B net of the app code; budget +${num(REACT_EXTRA_BUDGET)} B: ${reactExtraNet <= REACT_EXTRA_BUDGET ? 'met' : 'NOT met'} ` +
      `(the @oidc-rp/react package itself is ${num(react.byPackage['@oidc-rp/react'] ?? 0)} B min).`,
    `jose in the @oidc-rp/browser bundle: ${num(joseMin)} B min (signatures are verified on WebCrypto, which imports a JWK directly); ` +
      `core alone: ${num(core.min)} B min, ${num(core.gzip)} B min+gzip.`,
  ];

  const topInputs = (r, n) =>
    table(
      ['input file', 'package', 'min bytes in output'],
      r.inputs.slice(0, n).map((input) => [`\`${input.path}\``, input.pkg, num(input.bytes)]),
      ['l', 'l', 'r'],
    );
  // By source module (our packages built from src): not fatal if a package is mid-edit.
  let breakdown;
  try {
    const source = await sourceBreakdown(browser.entry);
    breakdown = [
      `By source module: the @oidc-rp/browser entry built from the packages' TypeScript sources ` +
        `(${num(source.min)} B min, vs ${num(browser.min)} B from dist), all ${source.inputs.length} inputs:`,
      '',
      table(
        ['input file', 'package', 'min bytes in output', 'share'],
        source.inputs.map((i) => [`\`${i.path}\``, i.pkg, num(i.bytes), `${((i.bytes / source.min) * 100).toFixed(1)}%`]),
        ['l', 'l', 'r', 'r'],
      ),
    ].join('\n');
  } catch (error) {
    breakdown = `By source module: the build from sources failed (${error.message.split('\n')[0]}); dist-level shares above still hold.`;
  }

  const markdown = [
    mainTable,
    '',
    ...checks.map((c) => `- ${c}`),
    '',
    'What each opt-in part adds to the default usage (same usage, the part given to `createBrowserClient` and used once):',
    '',
    optInTable,
    '',
    breakdown,
    '',
    `Input files of the **@oidc-rp/browser** bundle as shipped (dist), top ${Math.min(12, browser.inputs.length)} of ${browser.inputs.length}:`,
    '',
    topInputs(browser, 12),
  ].join('\n');

  return {
    markdown,
    data: {
      settings: 'esbuild bundle+minify+tree-shake, platform browser, format esm, target es2022, react/react-dom external, legal comments dropped, gzip level 9',
      results: results.map(({ inputs, ...r }) => ({ ...r, topInputs: inputs.slice(0, 20) })),
      browserGzip: browser.gzip,
      optIns: Object.fromEntries(optIns.map((r) => [r.entry, r.gzip - browser.gzip])),
      reactExtraGzip: reactExtra,
      reactExtraNetGzip: reactExtraNet,
      joseShareOfBrowserMin: joseMin / browserMinTotal,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown, data } = await run();
  emit('Bundle size (SPA usage, esbuild)', markdown, data);
}
