/**
 * The child side of `startServerProcess`: receives the config, starts the server on a free
 * loopback port, then answers calls (login, clock, request log, runtime control) until the parent disconnects.
 */
import type { ServerConfig } from '../config/schema';
import { callControl } from '../control/control';
import { ControlError } from '../control/errors';
import { createReferenceServer } from '../server';
import { completeLogin } from './complete-login';

type Call = { id: number; type: string } & Record<string, unknown>;

const requests: string[] = [];

const config = (JSON.parse(process.argv[2] ?? 'null') as ServerConfig | null) ?? undefined;
const server = await createReferenceServer(config, {
  logger: false,
  onRequest: ({ method, path }) => requests.push(`${method} ${path}`),
});
const { origin } = await server.listen({ port: 0, host: '127.0.0.1' });

const handlers: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {
  async login({ url, options }) {
    const result = await completeLogin(url as string, (options ?? {}) as Parameters<typeof completeLogin>[1]);
    // URLSearchParams does not cross IPC: send the form body as text.
    return result.type === 'form_post' ? { ...result, body: result.body.toString() } : result;
  },
  async advanceClock({ ms }) {
    await server.control.clock.advance((ms as number) / 1000);
  },
  async resetClock() {
    await server.control.clock.reset();
  },
  control: ({ method, args }) => callControl(server.control, method, args),
  async requests() {
    return requests;
  },
};

process.on('message', async ({ id, type, ...args }: Call) => {
  const send = (reply: object) => process.send?.({ id, ...reply });
  try {
    const handler = handlers[type];
    if (!handler) throw new Error(`unknown call ${type}`);
    send({ ok: true, value: await handler(args) });
  } catch (error) {
    if (error instanceof ControlError) {
      const problem = error.message.slice(error.field.length + 2);
      return send({ ok: false, message: error.message, control: { code: error.code, field: error.field, problem } });
    }
    send({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
process.send?.({ ready: true, origin });
