// The node:http listener (src/http/node-listener.ts) over real loopback HTTP, with the web
// Response and with the light global Response the CLI installs (src/http/light-response.ts).
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installLightResponse } from '../src/http/light-response';
import { nodeListener, type NodeBindings } from '../src/http/node-listener';
import { readLimited } from '../src/http/params';
import { demoConfig } from '../src/index';
import { createProcessServer } from '../src/server';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(origin: string, path: string, options: { method?: string; body?: string; headers?: Record<string, string>; agent?: import('node:http').Agent } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Writes `raw` on a fresh socket and resolves with everything the server sends back until it closes or answers. */
function sendRaw(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

let cancelled: () => void = () => undefined;
const cancelledOnce = () => new Promise<void>((resolve) => (cancelled = resolve));

/** What `/late` read once its client had gone: the body, or that it could not be read. */
type LateRead = { text: string } | { failed: string };
let lateRead: (read: LateRead) => void = () => undefined;
const lateReadOnce = () => new Promise<LateRead>((resolve) => (lateRead = resolve));

/** Writes `raw` and closes the connection without waiting for an answer (the server sees the end of it at once). */
function sendAndLeave(port: number, raw: string): void {
  const socket = connect(port, '127.0.0.1', () => socket.end(raw, () => socket.destroy()));
  socket.on('error', () => undefined);
}

function testApp(): Hono<{ Bindings: NodeBindings }> {
  const app = new Hono<{ Bindings: NodeBindings }>();
  app.get('/text', (c) => c.text('hello, world'));
  app.get('/cookies', (c) => {
    c.header('Set-Cookie', 'a=1; Path=/', { append: true });
    c.header('Set-Cookie', 'b=2; Path=/', { append: true });
    return c.json({ ok: true });
  });
  app.get('/cookies-init', () => {
    const headers = new Headers();
    headers.append('Set-Cookie', 'c=3');
    headers.append('Set-Cookie', 'd=4');
    return new Response('x', { headers });
  });
  app.get('/stream', () => {
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        n += 1;
        if (n > 3) controller.close();
        else controller.enqueue(new TextEncoder().encode(`chunk${n};`));
      },
    });
    return new Response(body, { headers: { 'Content-Type': 'text/plain' } });
  });
  app.get('/endless', () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(1024));
        return new Promise((resolve) => setImmediate(resolve));
      },
      cancel() {
        cancelled();
      },
    });
    return new Response(body);
  });
  app.post('/echo', async (c) => {
    try {
      const bytes = await readLimited(c.req.raw, 1024);
      return c.json({ length: bytes.byteLength, text: new TextDecoder().decode(bytes) });
    } catch {
      return c.json({ error: 'invalid_request' }, 413);
    }
  });
  // Reads the body only after the client's connection is gone, as a slow handler (a refresh
  // grant waiting on a store) would; Node has destroyed the request by then.
  app.post('/late', async (c) => {
    const socket = c.env.incoming.socket;
    if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
    try {
      lateRead({ text: new TextDecoder().decode(await readLimited(c.req.raw, 1024)) });
    } catch (error) {
      lateRead({ failed: error instanceof Error ? error.message : String(error) });
    }
    return c.text('read');
  });
  app.post('/form', async (c) => c.json(Object.fromEntries((await c.req.raw.formData()).entries())));
  app.get('/peer', (c) => c.json({ remote: c.env.incoming.socket.remoteAddress, url: c.req.url }));
  app.get('/throws', () => {
    throw new Error('boom');
  });
  app.onError((error) => {
    if (error.message === 'boom') throw error;
    return new Response('handled', { status: 500 });
  });
  return app;
}

const modes = ['web Response', 'light Response'] as const;

describe.each(modes)('the node:http listener (%s)', (mode) => {
  let server: Server;
  let origin: string;
  let port: number;
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'Response') as PropertyDescriptor;

  beforeAll(async () => {
    if (mode === 'light Response') installLightResponse();
    server = createServer(nodeListener(testApp().fetch));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    Object.defineProperty(globalThis, 'Response', saved);
  });

  it('answers a body (a kept one with its length, a web one streamed)', async () => {
    const answer = await send(origin, '/text');
    expect(answer).toMatchObject({ status: 200, body: 'hello, world' });
    if (mode === 'light Response') expect(answer.headers['content-length']).toBe('12');
    else expect(answer.headers['transfer-encoding']).toBe('chunked');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const answer = await send(origin, '/text', { method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('');
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('keeps every Set-Cookie, set through Hono or in a Headers init', async () => {
    expect((await send(origin, '/cookies')).headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect((await send(origin, '/cookies-init')).headers['set-cookie']).toEqual(['c=3', 'd=4']);
  });

  it('streams a web body to the end', async () => {
    expect((await send(origin, '/stream')).body).toBe('chunk1;chunk2;chunk3;');
  });

  it('cancels a streamed body when the client goes away', async () => {
    const wasCancelled = cancelledOnce();
    const req = httpRequest(`${origin}/endless`, (res) => res.once('data', () => req.destroy()));
    req.on('error', () => undefined);
    req.end();
    await wasCancelled;
  });

  it('reads a body, and refuses one over the limit', async () => {
    expect(JSON.parse((await send(origin, '/echo', { method: 'POST', body: 'a=b' })).body)).toEqual({ length: 3, text: 'a=b' });
    expect((await send(origin, '/echo', { method: 'POST', body: 'x'.repeat(4096) })).status).toBe(413);
    const chunked = await send(origin, '/echo', { method: 'POST', body: 'y'.repeat(4096), headers: { 'Transfer-Encoding': 'chunked' } });
    expect(chunked.status).toBe(413);
  });

  it('keeps a complete body whose client went away before the handler read it (length-framed and chunked)', async () => {
    let read = lateReadOnce();
    sendAndLeave(port, 'POST /late HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 24\r\n\r\ngrant_type=refresh_token');
    expect(await read).toEqual({ text: 'grant_type=refresh_token' });
    read = lateReadOnce();
    sendAndLeave(port, 'POST /late HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\ngrant_\r\n12\r\ntype=refresh_token\r\n0\r\n\r\n');
    expect(await read).toEqual({ text: 'grant_type=refresh_token' });
  });

  it('never takes part of a body for the whole when the client leaves half-way', async () => {
    let read = lateReadOnce();
    sendAndLeave(port, 'POST /late HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 40\r\n\r\ngrant_type=refresh_token');
    expect(await read).toEqual({ failed: 'the body could not be read' });
    read = lateReadOnce();
    sendAndLeave(port, 'POST /late HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\ngrant_\r\n');
    expect(await read).toEqual({ failed: 'the body could not be read' });
  });

  it('makes the web Request when a handler asks for a form', async () => {
    const answer = await send(origin, '/form', { method: 'POST', body: 'a=1&b=two', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(JSON.parse(answer.body)).toEqual({ a: '1', b: 'two' });
  });

  it('gives the app the Node request as env.incoming, and the URL from Host', async () => {
    expect(JSON.parse((await send(origin, '/peer')).body)).toEqual({ remote: '127.0.0.1', url: `${origin}/peer` });
  });

  it('keeps a path that starts with // a path', async () => {
    const answer = await sendRaw(port, 'GET //evil.example/peer HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('answers a malformed Host or request target with 400, not 5xx', async () => {
    expect(await sendRaw(port, 'GET /peer HTTP/1.1\r\nHost: evil.example/x?\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await sendRaw(port, 'GET /peer HTTP/1.1\r\nHost: a@b\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await sendRaw(port, 'GET http://other.example/peer HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await sendRaw(port, 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('answers 500 without the error when the handler fails', async () => {
    const answer = await send(origin, '/throws');
    expect(answer.status).toBe(500);
    expect(answer.body).not.toContain('boom');
  });
});

describe('the process server over its listener', () => {
  it('keeps connections alive past the clients’ idle timeouts, and serves two requests on one', async () => {
    const server = await createProcessServer(demoConfig(), { logger: false, developmentKeys: true });
    const listening = await server.listen({ port: 0 });
    try {
      const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
      const first = await send(listening.origin, '/demo/oidc/jwks', { agent });
      const second = await send(listening.origin, '/demo/.well-known/openid-configuration', { agent });
      agent.destroy();
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body).keys.length).toBeGreaterThan(0);
      expect(second.status).toBe(200);
      expect(first.headers['keep-alive']).toBe('timeout=65');
      expect(first.headers.connection).toBe('keep-alive');
    } finally {
      await server.close();
    }
  });
});
