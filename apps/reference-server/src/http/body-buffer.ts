/**
 * A request body read from the socket as it arrives, not when a handler gets to it. Node
 * destroys a pending request whose client goes away ('aborted'), buffered bytes and all, even
 * when the whole body had arrived: a refresh grant sent by a process that was then killed would
 * never be redeemed. Reading as it arrives keeps a complete body however the connection ends.
 *
 * At most `limit` bytes are kept (plus one, so a reader with that limit sees the body is too
 * large): past it the rest is read and dropped, as Node does with a body nobody reads (so the
 * answer still reaches a client that is still sending; the server's request timeout bounds how
 * long), and readers get what they report today (413 from a limited read, 400 from a whole one).
 */
import type { IncomingMessage } from 'node:http';

type State = 'reading' | 'complete' | 'failed' | 'overflow';

export class BodyBuffer {
  readonly #chunks: Uint8Array[] = [];
  #total = 0;
  #state: State = 'reading';
  readonly #waiters = new Set<() => void>();

  constructor(incoming: IncomingMessage, limit: number) {
    const settle = (state: State) => {
      if (this.#state !== 'reading') return;
      this.#state = state;
      incoming.off('data', onData);
      for (const wake of [...this.#waiters]) wake();
    };
    const onData = (chunk: Buffer) => {
      if (this.#state !== 'reading') return;
      const room = limit + 1 - this.#total;
      const kept = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
      this.#chunks.push(kept);
      this.#total += kept.byteLength;
      if (this.#total > limit) {
        settle('overflow');
        incoming.resume(); // flowing with no 'data' listener: the rest is dropped
        return;
      }
      for (const wake of [...this.#waiters]) wake();
    };
    incoming.on('data', onData);
    incoming.once('end', () => settle('complete'));
    // A request destroyed after its last byte arrived (`complete`) still has its whole body here:
    // 'data' is emitted as the parser pushes, so every chunk was already kept.
    const ended = () => settle(incoming.complete ? 'complete' : 'failed');
    incoming.once('error', ended);
    incoming.once('close', ended);
  }

  /** Resolves when something changed (a chunk, the end, a failure). */
  #changed(): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.#waiters.delete(wake);
        resolve();
      };
      this.#waiters.add(wake);
    });
  }

  /** The whole body; rejects if the client went away before sending all of it, or it passed the limit. */
  async whole(): Promise<Uint8Array> {
    while (this.#state === 'reading') await this.#changed();
    if (this.#state !== 'complete') throw new TypeError(this.#state === 'overflow' ? 'the body is larger than the server reads' : 'the client closed the connection before sending the whole body');
    return this.#chunks.length === 1 ? (this.#chunks[0] as Uint8Array) : Buffer.concat(this.#chunks, this.#total);
  }

  /** The body as a web stream: what was kept, then what arrives; it errors where a whole-body read rejects. */
  stream(): ReadableStream<Uint8Array> {
    let next = 0;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        for (;;) {
          if (next < this.#chunks.length) {
            controller.enqueue(this.#chunks[next++] as Uint8Array);
            return;
          }
          if (this.#state === 'complete') return controller.close();
          if (this.#state !== 'reading') return controller.error(new TypeError('the request body could not be read whole'));
          await this.#changed();
        }
      },
    });
  }
}
