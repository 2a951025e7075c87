/**
 * One Chromium per vitest run instead of one per test file: the run's global setup launches it
 * as a Playwright browser server, and every file connects to it and works in browser contexts
 * of its own (own cookies, storage and pages; closing the connection closes them). A launch is
 * seconds of CPU on two busy cores, and files that each launched their own made the suite slower
 * and, under load, slower still. Node built-ins only: each workspace passes its own Playwright.
 *
 * In a workspace: a global setup `export default (project) => launchSharedChromium(chromium, project)`
 * and in its files `chromium.connect(inject(CHROMIUM_ENDPOINT))`.
 */
import { CHROMIUM_LAUNCH } from './page-server';

/** The key under which the global setup provides the browser server's WebSocket endpoint. */
export const CHROMIUM_ENDPOINT = 'chromiumEndpoint';

/** Debian's Chromium as the tests run it (headless, no sandbox in containers, no background traffic). */
export const SHARED_CHROMIUM_LAUNCH = {
  executablePath: CHROMIUM_LAUNCH.executablePath,
  args: [...CHROMIUM_LAUNCH.args, '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
};

export interface BrowserServerLike {
  wsEndpoint(): string;
  process(): { pid?: number };
  close(): Promise<void>;
}

/** What the global setup needs of Playwright's `chromium` and vitest's project. */
export interface SharedChromiumHost {
  launchServer(options: typeof SHARED_CHROMIUM_LAUNCH): Promise<BrowserServerLike>;
}
export interface ProvidingProject {
  provide(key: typeof CHROMIUM_ENDPOINT, value: string): void;
}

/** The run's browser server while a global setup holds it, and how many do. */
interface Held {
  server: Promise<BrowserServerLike>;
  holders: number;
}
const HELD = Symbol.for('oidc-rp.shared-chromium');
type HoldingGlobal = typeof globalThis & { [HELD]?: Held };

/**
 * The global setup's work: launches the run's Chromium, provides its endpoint to the files and
 * returns the teardown that closes it after the last file. Vitest runs a workspace's global setup
 * for its root and again for every project that extends it (a "shared" and an "isolated" one),
 * all in its main process: the later calls share the first one's browser, and the last teardown
 * closes it, so a run launches one Chromium, not one per project.
 */
export async function launchSharedChromium(
  chromium: SharedChromiumHost,
  project: ProvidingProject,
  /** Provides more of the browser to the files (its process id, for a test of its command line). */
  provideMore?: (server: BrowserServerLike) => void,
): Promise<() => Promise<void>> {
  const holding = globalThis as HoldingGlobal;
  const held = holding[HELD] ?? { server: chromium.launchServer(SHARED_CHROMIUM_LAUNCH), holders: 0 };
  holding[HELD] = held;
  held.holders += 1;
  const server = await held.server;
  project.provide(CHROMIUM_ENDPOINT, server.wsEndpoint());
  provideMore?.(server);
  return async () => {
    held.holders -= 1;
    if (held.holders > 0) return;
    delete holding[HELD];
    await server.close();
  };
}
