// Until the first release nothing is on the npm registry, so the first install command of an
// @oidc-rp package in a README (where a reader meets it) is followed by a note saying how to
// install the packed tarballs instead: the tarballs of exactly the packages that command
// installs, with those they depend on, so a reader who copies it gets a working install. The
// root README's section it links to shows the steps.

/** The @oidc-rp packages each package needs beside itself (its `dependencies`). */
const NEEDS: Record<string, readonly string[]> = {
  core: [],
  browser: ['core'],
  react: ['browser', 'core'],
  node: ['core'],
};
/** The order the tarballs are listed in: dependencies first. */
const ORDER = ['core', 'browser', 'react', 'node'];

const tarball = (name: string) => `./oidc-rp-${name}-0.0.0.tgz`;

/**
 * The note for an install command of `packages` (short names: `core`, `browser`, `react`,
 * `node`; the reference server is always named, as the examples run against it).
 *
 * @example
 * installNote(['react']); // "… (`npm install ./oidc-rp-core-0.0.0.tgz ./oidc-rp-browser-0.0.0.tgz ./oidc-rp-react-0.0.0.tgz`; the server: …"
 */
export function installNote(packages: readonly string[]): string {
  const needed = new Set(packages.flatMap((name) => [name, ...(NEEDS[name] ?? [])]));
  const libraries = ORDER.filter((name) => needed.has(name));
  const install = libraries.length ? `\`npm install ${libraries.map(tarball).join(' ')}\`; the server: ` : 'the server: ';
  return (
    '> Until the first release the packages are not on the npm registry: install the tarballs that `pnpm pack` makes in a clone' +
    (libraries.length ? ', with those of the @oidc-rp packages they depend on' : '') +
    ` (${install}\`npx --package ./oidc-rp-reference-server-0.0.0.tgz oidc-rp-reference-server\`), as [Before the first release](https://github.com/oidc-rp/oidc-rp#before-the-first-release-install-from-tarballs) shows.`
  );
}

/** The note of the root README, whose first install command is the reference server's: its SPA example needs core and browser. */
export const INSTALL_NOTE = installNote(['browser']);

/** A command that fetches an @oidc-rp package from the registry. */
const REGISTRY_INSTALL = /\b(?:npm\s+(?:install|i|add)\b[^\n#]*|npx\s+(?:-y\s+|--yes\s+)?)@oidc-rp\//;
const NPM_INSTALL = /\bnpm\s+(?:install|i|add)\b([^\n#]*)/g;

/** The short names of the @oidc-rp libraries the `npm install` lines of a block install. */
function installed(body: string): string[] {
  const names: string[] = [];
  for (const [, args] of body.matchAll(NPM_INSTALL)) {
    for (const [, name] of (args ?? '').matchAll(/@oidc-rp\/([\w-]+)/g)) if (name && name in NEEDS) names.push(name);
  }
  return names;
}

/**
 * Problems of one Markdown file: its first install block without the note right after it. The
 * root README (`file` `README.md`) takes {@link INSTALL_NOTE}; every other README the note for the
 * packages its block installs (a server-only block: the server alone).
 */
export function checkInstallNotes(file: string, markdown: string): string[] {
  const lines = markdown.split('\n');
  const problems: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(sh|bash|shell|console)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? '')) end++;
    const body = lines.slice(i + 1, end).join('\n');
    if (REGISTRY_INSTALL.test(body)) {
      let next = end + 1;
      while (next < lines.length && (lines[next] ?? '').trim() === '') next++;
      const note = file === 'README.md' ? INSTALL_NOTE : installNote(installed(body));
      if ((lines[next] ?? '').trim() !== note) {
        problems.push(`${file}:${i + 1}: an install command of an @oidc-rp package without the note on packed tarballs (of the packages it installs) right after the block:\n${note}`);
      }
      break;
    }
    i = end;
  }
  return problems;
}
