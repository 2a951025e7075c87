import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { clientSecretBasic, discover, exchangeCode, serviceProvider } from '../src/index';
import { useMswServer } from './support/msw-server';

const { server } = useMswServer();

const ISSUER = 'https://login.example.com/acme';
const provider = serviceProvider(ISSUER);
const TOKEN = `${ISSUER}/oidc/token`;
const exchange = { provider, client: { clientId: 'web' }, clientAuth: clientSecretBasic('web-secret-of-the-demo-Zq7Xk2Lm9Vb4'), code: 'c', redirectUri: 'https://app.example.com/cb' };

async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as { code: string; message: string; cause?: unknown },
  );
}

describe('transport errors', () => {
  it('times out a request whose answer never comes with request_timeout', async () => {
    server.use(http.post(TOKEN, () => new Promise<never>(() => {})));
    const error = await failure(exchangeCode({ ...exchange, http: { timeout: 50 } }));
    expect(error.code).toBe('request_timeout');
    expect(error.message).toContain('50 ms');
    expect(error.message).toContain('token endpoint');
  });

  it('times out a response whose body stalls after the headers', async () => {
    server.use(
      http.post(TOKEN, () => {
        const body = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"access_token":'));
          },
        });
        return new HttpResponse(body, { headers: { 'Content-Type': 'application/json' } });
      }),
    );
    expect((await failure(exchangeCode({ ...exchange, http: { timeout: 50 } }))).code).toBe('request_timeout');
  });

  it('times out a custom fetch that ignores the abort signal', async () => {
    const fetch = () => new Promise<Response>(() => {});
    expect((await failure(discover(ISSUER, { fetch, timeout: 30 }))).code).toBe('request_timeout');
  });

  it('reports a failed connection as network_error with the cause', async () => {
    server.use(http.post(TOKEN, () => HttpResponse.error()));
    const error = await failure(exchangeCode(exchange));
    expect(error.code).toBe('network_error');
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('reports a custom fetch rejection as network_error', async () => {
    const cause = new TypeError('socket hang up');
    const error = await failure(exchangeCode({ ...exchange, http: { fetch: () => Promise.reject(cause) } }));
    expect(error).toMatchObject({ code: 'network_error', cause });
  });

  it('stops when the caller aborts, with the abort reason as cause', async () => {
    server.use(http.post(TOKEN, () => new Promise<never>(() => {})));
    const controller = new AbortController();
    const pending = failure(exchangeCode({ ...exchange, http: { signal: controller.signal } }));
    const reason = new Error('user navigated away');
    controller.abort(reason);
    const error = await pending;
    expect(error.code).toBe('network_error');
    expect(error.message).toContain('aborted');
    expect(error.cause).toBe(reason);
  });

  it('sends nothing when the signal is already aborted', async () => {
    let called = false;
    const fetch = async () => {
      called = true;
      return Response.json({});
    };
    const error = await failure(exchangeCode({ ...exchange, http: { fetch, signal: AbortSignal.abort() } }));
    expect(error.code).toBe('network_error');
    expect(called).toBe(false);
  });

  it('refuses a non-positive timeout', async () => {
    expect((await failure(exchangeCode({ ...exchange, http: { timeout: 0 } }))).code).toBe('invalid_options');
  });

  it('does not read an oversized body', async () => {
    server.use(http.post(TOKEN, () => HttpResponse.text('x'.repeat(2 * 1024 * 1024), { headers: { 'Content-Type': 'application/json' } })));
    const error = await failure(exchangeCode(exchange));
    expect(error.code).toBe('token_response_invalid');
    expect(error.message).toContain('too large');
  });

  it('does not read an oversized streamed body (no Content-Length)', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    server.use(
      http.post(TOKEN, () => {
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += chunk.length;
            controller.enqueue(chunk);
          },
        });
        return new HttpResponse(body, { headers: { 'Content-Type': 'application/json' } });
      }),
    );
    const error = await failure(exchangeCode(exchange));
    expect(error.code).toBe('token_response_invalid');
    expect(error.message).toContain('too large');
    expect(sent).toBeLessThan(4 * 1024 * 1024);
  });
});
