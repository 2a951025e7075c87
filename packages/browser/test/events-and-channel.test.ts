import { describe, expect, it, vi } from 'vitest';
import { broadcastChannel, type ChannelMessage } from '../src/index';
import { createEmitter } from '../src/events';

describe('events', () => {
  it('calls every handler; a throwing handler does not stop the others, and its error is rethrown later', () => {
    const events = createEmitter();
    const rethrown: unknown[] = [];
    vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => {
      try {
        task();
      } catch (error) {
        rethrown.push(error);
      }
    });
    const after = vi.fn();
    events.on('logout', () => {
      throw new Error('handler bug');
    });
    events.on('logout', after);
    events.emit('logout', {});
    expect(after).toHaveBeenCalledTimes(1);
    expect(rethrown).toEqual([new Error('handler bug')]);
  });

  it('on returns an unsubscribe', () => {
    const events = createEmitter();
    const handler = vi.fn();
    const off = events.on('tokenRefreshed', handler);
    events.emit('tokenRefreshed', { expiresAt: 1 });
    off();
    events.emit('tokenRefreshed', { expiresAt: 2 });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler).toHaveBeenCalledWith({ expiresAt: 1 });
  });
});

describe('broadcastChannel', () => {
  it('delivers to other channels of the same name, never back to the sender', async () => {
    const a = broadcastChannel('oidc-rp-test');
    const b = broadcastChannel('oidc-rp-test');
    const other = broadcastChannel('oidc-rp-other');
    const heardByA: ChannelMessage[] = [];
    const heardByOther = vi.fn();
    a.listen((m) => heardByA.push(m));
    other.listen(heardByOther);
    const atB = new Promise<ChannelMessage>((resolve) => b.listen(resolve));

    a.post({ type: 'session', sessionId: 'one' });
    expect(await atB).toEqual({ type: 'session', sessionId: 'one' });

    const backAtA = new Promise<void>((resolve) => a.listen(() => resolve()));
    b.post({ type: 'logout', sessionId: 'two' });
    await backAtA;
    expect(heardByA).toEqual([{ type: 'logout', sessionId: 'two' }]);
    expect(heardByOther).not.toHaveBeenCalled();
  });
});
