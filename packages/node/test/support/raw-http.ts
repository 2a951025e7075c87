// Raw HTTP for attacks fetch will not send: a chosen Host header, a path that looks like a host,
// and a huge chunked body streamed only as fast as the server reads it.
import { type IncomingMessage, type Server, request } from 'node:http';
import { once } from 'node:events';

export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** One request on its own connection, the path and headers sent exactly as given. */
export async function rawRequest(origin: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  const req = request({ host: hostname, port, path, method: options.method ?? 'GET', headers: options.headers, agent: false, setHost: !options.headers?.host });
  req.end(options.body);
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of res) body += String(chunk);
  return { status: res.statusCode ?? 0, headers: res.headers, body };
}

/**
 * POSTs a chunked body of up to `totalBytes` (no Content-Length), writing on while the server
 * reads and stopping at its answer or when it closes the connection. Returns the status (0 when
 * the connection was closed without one) and how much was written.
 */
export async function streamBody(origin: string, path: string, headers: Record<string, string>, totalBytes: number): Promise<{ status: number; written: number }> {
  const { hostname, port } = new URL(origin);
  const req = request({ host: hostname, port, path, method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' }, agent: false });
  let status = 0;
  let finished = false;
  const done = new Promise<void>((resolve) => {
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      finished = true;
      res.resume();
      res.on('end', resolve);
      res.on('error', () => resolve());
    });
    req.on('error', () => {
      finished = true;
      resolve();
    });
    req.on('close', () => {
      finished = true;
      resolve();
    });
  });
  const chunk = Buffer.alloc(64 * 1024, 'a');
  // The form starts like the app's own (a csrf_token field), then never ends.
  let written = 0;
  req.write('csrf_token=x&filler=');
  for (let i = 0; i < Math.ceil(totalBytes / chunk.length) && !finished; i++) {
    written += chunk.length;
    if (!req.write(chunk)) {
      await Promise.race([once(req, 'drain'), done]);
    }
  }
  if (!finished) req.end();
  await done;
  return { status, written };
}

/** The bytes the server read from the socket of each request, known once that socket closes. */
export function recordBytesRead(server: Server): number[] {
  const read: number[] = [];
  server.on('connection', (socket) => socket.on('close', () => read.push(socket.bytesRead)));
  return read;
}
