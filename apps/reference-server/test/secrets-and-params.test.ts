// The building blocks every endpoint relies on: random tokens, constant-time comparison, and
// the strict form parser (its shortcuts must give the same answers as the long way).
import { describe, expect, it } from 'vitest';
import { decodeComponent, MAX_PARAM_BYTES, parseParams } from '../src/http/params';
import { randomToken, safeEqual, storageKey } from '../src/crypto/secrets';

describe('randomToken', () => {
  it('gives distinct base64url values of the asked size, across many refills of its random pool', () => {
    const tokens = Array.from({ length: 2000 }, () => randomToken());
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const short = Array.from({ length: 500 }, () => randomToken(16));
    expect(new Set(short).size).toBe(short.length);
    for (const token of short) expect(Buffer.from(token, 'base64url')).toHaveLength(16);
  });

  it('serves sizes larger than its pool, and never hands out the same bytes twice', () => {
    expect(Buffer.from(randomToken(10_000), 'base64url')).toHaveLength(10_000);
    // Overlapping slices of the pool would repeat a half of one token in the next.
    const halves = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const bytes = Buffer.from(randomToken(16), 'base64url');
      halves.add(bytes.subarray(0, 8).toString('hex')).add(bytes.subarray(8).toString('hex'));
    }
    expect(halves.size).toBe(2000);
  });
});

describe('safeEqual and storageKey', () => {
  it('tells equal strings from different ones, whatever their lengths', () => {
    expect(safeEqual('service-secret', 'service-secret')).toBe(true);
    expect(safeEqual('service-secret', 'service-secreT')).toBe(false);
    expect(safeEqual('service-secret', 'service-secret ')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('é', 'e\u0301')).toBe(false);
    expect(safeEqual('pässwörd', 'pässwörd')).toBe(true);
  });

  it('storageKey is the base64url SHA-256 of the UTF-8 value', () => {
    expect(storageKey('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(storageKey('é')).toBe('SplVfkAzw1Od4utlRyAXytX5VX96BiWgnxw_biumnEw');
  });
});

describe('form parsing', () => {
  it('decodes components: plain values as they are, + as space, percent-escapes as UTF-8', () => {
    expect(decodeComponent('client_credentials')).toBe('client_credentials');
    expect(decodeComponent('a+b%20c')).toBe('a b c');
    expect(decodeComponent('%E2%82%AC')).toBe('€');
    expect(decodeComponent('€')).toBe('€');
    expect(decodeComponent('%E2%82')).toBeUndefined();
    expect(decodeComponent('%zz')).toBeUndefined();
  });

  it('measures the value limit in UTF-8 bytes, exactly at the boundary', () => {
    const euros = (n: number) => `v=${'%E2%82%AC'.repeat(n)}`; // 3 bytes each
    const fits = Math.floor(MAX_PARAM_BYTES / 3);
    expect(parseParams(euros(fits)).values.get('v')).toHaveLength(fits);
    expect(parseParams(euros(fits + 1)).invalid.get('v')).toBe(`is longer than ${MAX_PARAM_BYTES} bytes`);
    expect(parseParams(`v=${'a'.repeat(MAX_PARAM_BYTES)}`).values.get('v')).toHaveLength(MAX_PARAM_BYTES);
    expect(parseParams(`v=${'a'.repeat(MAX_PARAM_BYTES + 1)}`).invalid.has('v')).toBe(true);
  });
});
