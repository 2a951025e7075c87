// Until the first release nothing is on the npm registry, so the first install command of an
// @oidc-rp package in a README (where a reader meets it) is followed by the same note saying how
// to install the packed tarballs instead. The root README's section it links to shows the steps.

export const INSTALL_NOTE =
  '> Until the first release the packages are not on the npm registry: install the tarballs that `pnpm pack` makes in a clone, with those of the @oidc-rp packages they depend on (`npm install ./oidc-rp-core-0.0.0.tgz ./oidc-rp-browser-0.0.0.tgz`; the server: `npx --package ./oidc-rp-reference-server-0.0.0.tgz oidc-rp-reference-server`), as [Before the first release](https://github.com/oidc-rp/oidc-rp#before-the-first-release-install-from-tarballs) shows.';

/** A command that fetches an @oidc-rp package from the registry. */
const REGISTRY_INSTALL = /\b(?:npm\s+(?:install|i|add)\b[^\n#]*|npx\s+(?:-y\s+|--yes\s+)?)@oidc-rp\//;

/** Problems of one Markdown file: its first install block without the note right after it. */
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
      if ((lines[next] ?? '').trim() !== INSTALL_NOTE) {
        problems.push(`${file}:${i + 1}: an install command of an @oidc-rp package without the note on packed tarballs right after the block:\n${INSTALL_NOTE}`);
      }
      break;
    }
    i = end;
  }
  return problems;
}
