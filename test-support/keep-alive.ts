/**
 * Test servers keep an idle keep-alive connection longer than their clients do (undici's fetch
 * and Node's agent: 4–5 s), so the client is always the side that closes it. With Node's default
 * (5 s) both sides time out together, and on a loaded machine the client's timer fires late: it
 * sends its next request on a socket the server is closing at that moment, and a test that did
 * nothing wrong fails with ECONNRESET, UND_ERR_SOCKET ("other side closed") or EPIPE. The
 * reference server itself does the same (65 s). `server.close()` still ends idle connections at
 * once (Node ≥ 19), so no test waits for the longer timeout.
 */
export const KEEP_ALIVE_MS = 65_000;

/** Sets `server`'s keep-alive (and headers) timeout past its clients'; returns it. */
export function outlastClientKeepAlive<T extends { keepAliveTimeout: number; headersTimeout: number }>(server: T): T {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return server;
}
