// The run's Chromium, launched once by chromium-setup.ts: each file connects and opens contexts of its own.
import { type Browser, chromium } from 'playwright-core';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumEndpoint: string;
  }
}

/** A connection to the run's Chromium; closing it closes the contexts this file opened, not the browser. */
export const connectChromium = (): Promise<Browser> => chromium.connect(inject('chromiumEndpoint'));
