/**
 * One msw server per test file, with unhandled requests made errors (no test can quietly
 * reach the network) and a log of every request msw saw, handled or not.
 */

import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

export function useMswServer() {
  const server = setupServer();
  const requests: Request[] = [];
  server.events.on('request:start', ({ request }) => {
    requests.push(request.clone());
  });
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    server.resetHandlers();
    requests.length = 0;
  });
  afterAll(() => server.close());
  return { server, requests };
}
