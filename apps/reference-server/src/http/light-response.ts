/**
 * A global `Response` for a process that runs only this server (the CLI): it keeps the body and
 * init it was made with, and makes the web `Response` (Node's bundled undici, some 70 ms of CPU
 * to load) only when something reads what only that has (headers as `Headers`, the body stream).
 * The listener writes a kept string or byte body straight to the socket. Never installed by the
 * programmatic server: it would change `Response` for every other library of the process.
 */

type Init = { status?: number; statusText?: string; headers?: unknown };

/** A body and init as given to `new Response`, when the listener can write them as they are. */
export interface KeptResponse {
  status: number;
  headers: unknown;
  body: string | Uint8Array | null;
}

let installed: { kept(response: unknown): KeptResponse | undefined } | undefined;

/**
 * The body and init of `response`, if it is a light one whose web `Response` was never made and
 * whose body is a string, bytes or nothing.
 *
 * @example
 * const kept = keptResponse(response); // undefined: read it as a Response
 */
export function keptResponse(response: unknown): KeptResponse | undefined {
  return installed?.kept(response);
}

/**
 * Replaces the global `Response` with the light one (see the module comment). Idempotent.
 *
 * @example
 * installLightResponse(); // the CLI, before the first request
 */
export function installLightResponse(): void {
  if (installed) return;
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'Response');
  if (!descriptor) return;
  // Node defines the web classes as getters that load undici on first read: read it only when needed.
  let loaded: typeof Response | undefined;
  const Real = (): typeof Response => {
    loaded ??= (descriptor.get ? descriptor.get.call(globalThis) : descriptor.value) as typeof Response;
    return loaded;
  };

  class LightResponse {
    #body: unknown;
    #init: Init | undefined;
    #real: Response | undefined;

    constructor(body?: unknown, init?: Init) {
      this.#body = body ?? null;
      this.#init = init;
    }

    static [Symbol.hasInstance](value: unknown): boolean {
      if (typeof value !== 'object' || value === null) return false;
      if (#body in value) return true;
      // Only something that says it is a Response makes undici load, to check.
      return (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'Response' && value instanceof Real();
    }

    static json(data: unknown, init?: ResponseInit): Response {
      return Real().json(data, init);
    }
    static redirect(url: string | URL, status?: number): Response {
      return Real().redirect(url, status);
    }
    static error(): Response {
      return Real().error();
    }

    static kept(response: unknown): KeptResponse | undefined {
      if (typeof response !== 'object' || response === null || !(#body in response) || response.#real) return undefined;
      const body = response.#body;
      if (body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) return undefined;
      return { status: response.#init?.status ?? 200, headers: response.#init?.headers, body };
    }

    get real(): Response {
      this.#real ??= new (Real())(this.#body as BodyInit | null, this.#init as ResponseInit | undefined);
      return this.#real;
    }
    get status(): number {
      return this.#real ? this.#real.status : (this.#init?.status ?? 200);
    }
    get ok(): boolean {
      return this.status >= 200 && this.status < 300;
    }
    get [Symbol.toStringTag](): string {
      return 'Response';
    }
  }

  for (const name of ['headers', 'body', 'bodyUsed', 'redirected', 'statusText', 'type', 'url']) {
    Object.defineProperty(LightResponse.prototype, name, {
      get(this: LightResponse) {
        return (this.real as unknown as Record<string, unknown>)[name];
      },
    });
  }
  for (const name of ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json', 'text']) {
    Object.defineProperty(LightResponse.prototype, name, {
      value(this: LightResponse, ...args: unknown[]) {
        const real = this.real as unknown as Record<string, (...a: unknown[]) => unknown>;
        return (real[name] as (...a: unknown[]) => unknown).apply(real, args);
      },
    });
  }

  installed = { kept: (response) => LightResponse.kept(response) };
  Object.defineProperty(globalThis, 'Response', { value: LightResponse, writable: true, configurable: true, enumerable: false });
}
