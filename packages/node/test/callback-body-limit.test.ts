// A huge unauthenticated POST to the callback route, over real HTTP: handleCallback must stop
// reading at the 64 KiB cap and refuse, instead of buffering the body (memory exhaustion).
// The route is a plain node:http server that hands the handler a streaming web Request, as
// frameworks do; it counts the bytes it read from the socket on the handler's behalf.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeClient, isOidcError, serviceProvider } from '../src/index';

const MiB = 1024 * 1024;
const CAP = 64 * 1024;
const client = createNodeClient({
  provider: serviceProvider('http://127.0.0.1:9/demo'), // never contacted: the body is refused first
  clientId: 'web',
  clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
  redirectUri: 'http://127.0.0.1:3000/callback',
  responseMode: 'form_post',
  cookieSecret: 'test-cookie-AtAE9OxzcznqoR6nacFM-e9MnATZvZ-9',
});

let server: Server;
let origin: string;
let lastRequest: { readFromSocket: number; error: string } | undefined;
const forgetLastRequest = () => {
  lastRequest = undefined;
};

/** The request body as a web stream that reads the socket only when the handler pulls. */
function bodyOf(req: IncomingMessage, onRead: (bytes: number) => void): ReadableStream<Uint8Array> {
  req.pause();
  return new ReadableStream<Uint8Array>(
    {
      pull: (controller) =>
        new Promise<void>((resolve) => {
          const onData = (chunk: Buffer) => {
            cleanup();
            onRead(chunk.byteLength);
            controller.enqueue(new Uint8Array(chunk));
            resolve();
          };
          const onEnd = () => {
            cleanup();
            controller.close();
            resolve();
          };
          const cleanup = () => {
            req.pause();
            req.off('data', onData);
            req.off('end', onEnd);
          };
          req.on('data', onData);
          req.once('end', onEnd);
          req.resume();
        }),
      cancel: () => {
        req.pause();
      },
    },
    { highWaterMark: 0 },
  );
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let readFromSocket = 0;
    const request = new Request(new URL(req.url ?? '/', 'http://127.0.0.1:3000'), {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: bodyOf(req, (bytes) => {
        readFromSocket += bytes;
      }),
      duplex: 'half',
    } as RequestInit);
    try {
      await client.handleCallback(request);
      res.writeHead(200).end();
    } catch (error) {
      const code = isOidcError(error) ? error.code : 'unexpected';
      lastRequest = { readFromSocket, error: isOidcError(error) ? error.message : String(error) };
      // Refuse and drop the connection: the rest of the upload is never read.
      res.writeHead(400, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ code }), () => req.socket.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);

/** A 200 MiB form body produced on demand, counting what the client actually had to produce. */
function hugeBody(total: number) {
  const chunk = new TextEncoder().encode('state=x&'.padEnd(64 * 1024, 'a'));
  const counter = { produced: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.produced >= total) {
        controller.close();
        return;
      }
      counter.produced += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, counter };
}

describe('handleCallback: an oversized form_post body', () => {
  it('a streamed 200 MiB POST (no Content-Length) is refused after at most the cap, never buffered', async () => {
    const { stream, counter } = hugeBody(200 * MiB);
    const response = await fetch(`${origin}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: stream,
      duplex: 'half',
    } as RequestInit).catch((error: unknown) => error);

    // The server answered 400 with the stable code (or cut the upload first, which the client sees as an error).
    if (response instanceof Response) {
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ code: 'authorization_response_invalid' });
    }
    expect(lastRequest?.error).toMatch(/too large to be an authorization response/);
    // The handler read the cap and one socket chunk at most, not 200 MiB.
    expect(lastRequest?.readFromSocket).toBeGreaterThan(CAP);
    expect(lastRequest?.readFromSocket).toBeLessThan(CAP + 256 * 1024);
    // And the upload stopped: the client produced a small part of the body (socket buffers only).
    expect(counter.produced).toBeLessThan(32 * MiB);
  });

  it('a declared Content-Length over the cap is refused without reading the body', async () => {
    forgetLastRequest();
    const body = 'state=x&'.padEnd(CAP + 1, 'a');
    const response = await fetch(`${origin}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'authorization_response_invalid' });
    expect(lastRequest?.readFromSocket).toBe(0);
  });

  it('a body just under the cap is read and checked as a callback (no state → state_missing)', async () => {
    const body = 'x='.padEnd(CAP - 1, 'a');
    const response = await fetch(`${origin}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'state_missing' });
    expect(lastRequest?.readFromSocket).toBe(CAP - 1);
  });
});
