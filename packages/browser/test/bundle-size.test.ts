// @vitest-environment node
/**
 * The size budget of an SPA's bundle, enforced: the bench's usage entry (login redirect,
 * callback, getAccessToken with refresh, logout; full ID-token signature validation) built
 * from the sources with the bench's esbuild settings, as the packages' production build
 * (the `production` export condition, which the bench's settings set) ships them. Sizes are
 * deterministic, so this is an exact check, not a timing. `pnpm bench` shows the same numbers
 * next to other libraries.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type Metafile, build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { productionMessagesPlugin, stripDevMessages } from '../../../scripts/lib/dev-messages-plugin.mjs';
import { mangleProps } from '../../../scripts/lib/internal-props.mjs';

const bench = (path: string) => fileURLToPath(new URL(`../../../bench/${path}`, import.meta.url));
const source = (pkg: string, entry = 'index.ts') => fileURLToPath(new URL(`../../${pkg}/src/${entry}`, import.meta.url));
// Core's entries: the public one, the API side and the one only the sibling packages import.
const coreSources = { '@oidc-rp/core': source('core'), '@oidc-rp/core/api': source('core', 'api/index.ts'), '@oidc-rp/core/internal': source('core', 'internal.ts') };
const settings = JSON.parse(readFileSync(bench('lib/esbuild-options.json'), 'utf8'));
const budget = JSON.parse(readFileSync(bench('lib/bundle-budget.json'), 'utf8')) as {
  browserGzip: number;
  reactExtraGzip: number;
};

interface Bundle {
  gzip: number;
  code: string;
  inputs: string[];
}

// Several tests look at the same bundle: each is built once per run (a build is deterministic).
const built = new Map<string, Promise<Bundle>>();

/** `shipped`: the packages' built dist, as an app installs them; otherwise their sources. */
function bundle(entry: string, { shipped = false } = {}): Promise<Bundle> {
  const key = `${shipped ? 'dist' : 'src'}:${entry}`;
  const result = built.get(key) ?? buildBundle(entry, shipped);
  built.set(key, result);
  return result;
}

async function buildBundle(entry: string, shipped: boolean): Promise<Bundle> {
  const fromSources = {
    alias: { ...coreSources, '@oidc-rp/browser': source('browser'), '@oidc-rp/browser/session': source('browser', 'session.ts'), '@oidc-rp/react': source('react') },
    plugins: [productionMessagesPlugin], // as the packages' production build does
    mangleProps, // likewise
  };
  const result = await build({
    ...settings,
    entryPoints: [bench(`bundle-entries/${entry}`)],
    ...(shipped ? {} : fromSources),
    metafile: true,
    write: false,
    outdir: 'out',
    absWorkingDir: bench(''),
    logLevel: 'silent',
  });
  const output = result.outputFiles![0]!;
  const [meta] = Object.values((result.metafile as Metafile).outputs);
  return {
    gzip: gzipSync(output.contents, { level: 9 }).length,
    code: output.text,
    inputs: Object.entries(meta!.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  };
}

describe('bundle size of the SPA usage (min+gzip, bench settings)', () => {
  it(`@oidc-rp/browser stays within ${budget.browserGzip} B`, async () => {
    const { gzip } = await bundle('oidc-rp-browser.js');
    expect(gzip).toBeLessThanOrEqual(budget.browserGzip);
  });

  // One file per package drops less than a bundler does across source modules: a top-level
  // statement that may have effects (a `.split()` call, an array spread) stays in every app.
  it(`@oidc-rp/browser as shipped (the built packages) stays within ${budget.browserGzip} B`, async () => {
    const { gzip, inputs, code } = await bundle('oidc-rp-browser.js', { shipped: true });
    expect(inputs.join('\n')).toContain('core/dist/index.production.mjs');
    expect(gzip).toBeLessThanOrEqual(budget.browserGzip);
    // The single-file builds drop the par part (and core's push) unless the app imports it.
    expect(code).not.toContain('pushed_authorization_request_endpoint');
    expect((await bundle('oidc-rp-browser-par.js', { shipped: true })).code).toContain('pushed_authorization_request_endpoint');
  });

  it('ships none of the opt-in parts (popup, implicit, userinfo, revocation, logout state, discovery, cross-tab, authorized fetch, DPoP, PAR, resources) nor jose unless the app imports them', async () => {
    const { inputs, code } = await bundle('oidc-rp-browser.js');
    const shipped = inputs.join('\n');
    const optIn = ['popup', 'implicit', 'userinfo', 'revocation', 'logout-state', 'cross-tab', 'indexed-db-storage', 'lock', 'channel', 'authorized-fetch', 'dpop', 'par', 'resources'].map(
      (name) => `browser/src/${name}.ts`,
    );
    // The jose package (core's own src/jose/ folder, its JWS checks, is part of the code flow).
    for (const module of [...optIn, 'core/src/client/userinfo.ts', 'core/src/client/revocation.ts', 'core/src/client/dpop-proof-maker.ts', 'core/src/client/pushed-authorization.ts', 'core/src/client/resource-indicators.ts', 'node_modules/jose/']) {
      expect(shipped).not.toContain(module);
    }
    expect(code).not.toContain('.well-known/openid-configuration'); // discovery
    expect(code).not.toContain('code token id_token'); // the other response types' rules
    expect(code).not.toContain('client_secret_basic'); // confidential client authentication
    expect(code).not.toContain('start a new login'); // development-only message text
    // ...and an app that opts in gets the part.
    expect((await bundle('oidc-rp-browser-popup.js')).inputs.join('\n')).toContain('browser/src/popup.ts');
    expect((await bundle('oidc-rp-browser-crosstab.js')).inputs.join('\n')).toContain('browser/src/cross-tab.ts');
    expect((await bundle('oidc-rp-browser-fetch.js')).inputs.join('\n')).toContain('browser/src/authorized-fetch.ts');
    expect((await bundle('oidc-rp-browser-fetch.js')).inputs.join('\n')).not.toContain('core/src/client/dpop-proof-maker.ts'); // DPoP comes with its part only
    expect((await bundle('oidc-rp-browser-dpop.js')).inputs.join('\n')).toContain('core/src/client/dpop-proof-maker.ts');
    const withPar = (await bundle('oidc-rp-browser-par.js')).inputs.join('\n');
    expect(withPar).toContain('browser/src/par.ts');
    expect(withPar).toContain('core/src/client/pushed-authorization.ts');
    const withResources = (await bundle('oidc-rp-browser-resources.js')).inputs.join('\n');
    expect(withResources).toContain('browser/src/resources.ts');
    expect(withResources).toContain('core/src/client/resource-indicators.ts');
    expect((await bundle('oidc-rp-browser-userinfo.js')).inputs.join('\n')).toContain('core/src/client/userinfo.ts');
    expect((await bundle('oidc-rp-browser-revocation.js')).inputs.join('\n')).toContain('core/src/client/revocation.ts');
    expect((await bundle('oidc-rp-browser-logout-state.js')).inputs.join('\n')).toContain('browser/src/logout-state.ts');
    expect((await bundle('oidc-rp-browser-discover.js')).code).toContain('.well-known/openid-configuration');
  });

  it(`@oidc-rp/react adds at most ${budget.reactExtraGzip} B on top, net of the app code`, async () => {
    const [browser, react, appOnly] = await Promise.all(
      ['oidc-rp-browser.js', 'oidc-rp-react.jsx', 'react-app-only.jsx'].map((entry) => bundle(entry)),
    );
    expect(react!.gzip - browser!.gzip - appOnly!.gzip).toBeLessThanOrEqual(budget.reactExtraGzip);
    // <AuthProvider client={…}> carries no part the client was not given: no discovery, no revocation.
    expect(react!.code).not.toContain('.well-known/openid-configuration');
    expect(react!.inputs.join('\n')).not.toContain('browser/src/revocation.ts');
  });
});

describe('error messages of a production build', () => {
  // The usage's code built as an app's production build would, then run: an error keeps its code and class.
  async function productionCore(): Promise<typeof import('@oidc-rp/core')> {
    const result = await build({
      ...settings,
      stdin: { contents: "export * from '@oidc-rp/core';", resolveDir: bench(''), loader: 'js' },
      alias: coreSources,
      plugins: [productionMessagesPlugin],
      mangleProps, // as the packages' build does
      write: false,
      logLevel: 'silent',
    });
    return import(`data:text/javascript;base64,${Buffer.from(result.outputFiles![0]!.text).toString('base64')}`);
  }

  it('keep the code, say it is an oidc-rp code, and drop the prose', async () => {
    const core = await productionCore();
    const failure = (() => {
      try {
        core.serviceProvider('http://login.example.com');
      } catch (error) {
        return error;
      }
    })();
    expect(core.isOidcError(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'invalid_options' });
    expect((failure as Error).message).toBe('invalid_options (oidc-rp error code)');
    expect((failure as Error).message).not.toMatch(/https/);
    // The provider's error value still shows in a token endpoint error.
    const refused = new core.TokenEndpointError({ status: 400, error: 'invalid_grant', error_description: 'used' });
    expect(refused.message).toBe('token_endpoint_error invalid_grant');
    // ...but never a value that could forge a log line.
    const forged = new core.AuthorizationResponseError({ error: 'x\nERROR admin logged in' });
    expect(forged.message).toBe('authorization_error (not shown)');
  });

  it('leave no argument behind where the message was a call’s last one, and nothing else changes', () => {
    const strip = (body: string) => stripDevMessages(`import { DEV } from './dev';\n${body}`).replace(/^\n/, '');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the string is source code under test
    expect(strip("throw invalid(DEV && `${what} (${a ? 'x' : ')'})`);")).toBe('throw invalid();');
    expect(strip("fail('c', DEV && a(b), DEV && 'd, e');")).toBe("fail('c', false && a(b));");
    expect(strip("new E('c', DEV && m, { cause });")).toBe("new E('c', false && m, { cause });");
    expect(strip("f(\n  DEV &&\n    'long',\n);")).toBe('f(\n  \n);');
    // Anything else keeps its shape, with DEV false: the app's minifier drops the dead text.
    for (const [before, after] of [
      ['f(a, DEV && b || c);', 'f(a, false && b || c);'],
      ['if (DEV && x) y();', 'if (false && x) y();'],
      ['x = { problem_: DEV && y };', 'x = { problem_: false && y };'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the strings are source code under test
      ["const s = '/* DEV && */', t = `DEV && ${1}`;", "const s = '/* DEV && */', t = `DEV && ${1}`;"],
    ]) {
      expect(strip(before!)).toBe(after);
    }
    // A module that uses DEV without importing it, or declares its own, stops the build.
    expect(() => stripDevMessages('const DEV = true; f(DEV);')).toThrow(/declares its own DEV/);
    expect(() => stripDevMessages("import { DEV as D } from './dev';")).toThrow(/import DEV alone/);
  });

  it('are the full text in development (this test run)', async () => {
    const { serviceProvider } = await import('@oidc-rp/core');
    expect(() => serviceProvider('http://login.example.com')).toThrow(/must use https \(http only on loopback\)/);
  });
});

