// The built example: where `next` is, and what its build printed (build.mjs keeps it).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const appRoot = fileURLToPath(new URL('../..', import.meta.url));
export const nextBin = `${appRoot}node_modules/.bin/next`;

/** What the last `pnpm build` (build.mjs) printed. */
export const buildOutput = (): string => readFileSync(`${appRoot}.next/build-output.txt`, 'utf8');

/**
 * The warning lines of a build's output that concern the app. Next.js tells a CI run (`CI` set)
 * that it found no build cache to reuse: advice for the pipeline, not about the code built.
 */
export function warningsIn(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /warn|⚠/i.test(line))
    .filter((line) => !/No build cache found/.test(line));
}
