// Request bodies over real HTTP, framed both ways (Content-Length and chunked), for a listener
// started by the caller: the programmatic server (global Request/Response left alone) and the
// CLI (whose light global Response, http/light-response.ts, writes bodies without a web Response) answer on different paths.
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';

const SPA_ORIGIN = 'http://127.0.0.1:5173';
const GOOD_FORM = 'grant_type=client_credentials&client_id=service&client_secret=service-secret&scope=api.read';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: Record<string, unknown>;
}

/**
 * POSTs `chunks` to the demo tenant's client-credentials endpoint, with a Content-Length
 * header when `framing` is `length` and chunked transfer encoding otherwise. Resolves with
 * the answer, or rejects if the connection fails or nothing arrives within 10 s.
 */
export function postToken(origin: string, chunks: (string | Uint8Array)[], framing: 'length' | 'chunked', headers: Record<string, string> = {}): Promise<Answer> {
  const total = chunks.reduce((sum, c) => sum + (typeof c === 'string' ? Buffer.byteLength(c) : c.byteLength), 0);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      `${origin}/demo/oauth/token`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(framing === 'length' ? { 'content-length': String(total) } : { 'transfer-encoding': 'chunked' }),
          ...headers,
        },
        timeout: 10_000,
      },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    // Once the answer is in, a connection cut while the rest of an oversized body is sent is fine.
    req.on('error', (error) => (answered ? undefined : reject(error)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** The body-reading cases, against `origin()` (set up by the caller's beforeAll). */
export function describeHttpBodies(name: string, origin: () => string): void {
  describe(`request bodies over HTTP (${name})`, () => {
    it.each(['length', 'chunked'] as const)('a %s-framed client-credentials request gets a token; another client\'s origin cannot read it (only Vary)', async (framing) => {
      const res = await postToken(origin(), [GOOD_FORM.slice(0, 20), GOOD_FORM.slice(20)], framing, { origin: SPA_ORIGIN });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
      expect(res.json.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers.vary).toBe('Origin');
      // SPA_ORIGIN is allowed for the tenant, but the service client registered no origin.
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('an origin that is not allowed gets no CORS headers, only Vary', async () => {
      const res = await postToken(origin(), [GOOD_FORM], 'length', { origin: 'https://evil.example' });
      expect(res.status).toBe(200);
      expect(res.headers.vary).toBe('Origin');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it.each(['length', 'chunked'] as const)('a %s-framed body over 64 KiB is refused with 400 invalid_request, and the answer arrives', async (framing) => {
      const big = `grant_type=client_credentials&pad=${'a'.repeat(16 * 1024)}`;
      const res = await postToken(origin(), [big, big, big, big, big], framing);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'invalid_request', error_description: 'the body is larger than 65536 bytes' });
    });

    it.each(['length', 'chunked'] as const)('a %s-framed body that is not UTF-8 is refused with 400 invalid_request', async (framing) => {
      const res = await postToken(origin(), [new Uint8Array([0x67, 0x3d, 0xff, 0xfe])], framing);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'invalid_request', error_description: 'the body is not valid UTF-8' });
    });

    it('a wrong client secret is 401 invalid_client, with CORS headers so browser code can read it', async () => {
      const res = await postToken(origin(), [GOOD_FORM.replace('service-secret', 'wrong')], 'length', { origin: SPA_ORIGIN });
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('invalid_client');
      expect(res.headers['access-control-allow-origin']).toBe(SPA_ORIGIN);
    });
  });
}
