// Serves a Web fetch handler (Hono's app.fetch, a Next.js-style route handler) on 127.0.0.1:0 over
// node:http, building the Request URL from the Host header and the raw target as
// @hono/node-server and Next.js do, so a test can send a hostile Host or target.
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outlastClientKeepAlive } from '../../../../test-support/keep-alive';

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return headers;
}

export async function serveFetch(handler: (request: Request) => Response | Promise<Response>): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: headersOf(req) });
    Promise.resolve(handler(request))
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch(() => {
        res.writeHead(500);
        res.end('handler threw');
      });
  });
  outlastClientKeepAlive(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
