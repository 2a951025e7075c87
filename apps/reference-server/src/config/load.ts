/** Loading the config from disk: read, parse as JSON, validate. */
import { ConfigError, type ServerConfig, validateConfig } from './schema';

/**
 * Reads a JSON config file. Throws {@link ConfigError} when it is unreadable, not JSON or invalid.
 *
 * @example
 * const config = await loadConfigFile('./reference-server.json');
 * const server = await createReferenceServer(config);
 */
export async function loadConfigFile(path: string): Promise<ServerConfig> {
  let source: string;
  try {
    // Loaded here, not at start: a server without a config file never needs node:fs/promises.
    const { readFile } = await import('node:fs/promises');
    source = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError('file', `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new ConfigError('file', `${path} is not valid JSON: ${(error as Error).message}`);
  }
  validateConfig(parsed);
  return parsed as ServerConfig;
}
