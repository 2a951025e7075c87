/**
 * How a bench hands its results over: printed for humans, and written as JSON to the file
 * named by BENCH_JSON when run-all.mjs started it.
 */

import { writeFileSync } from 'node:fs';

/**
 * @param {string} title  heading printed above the text
 * @param {string} text   markdown (tables and notes)
 * @param {object} data   machine-readable results
 */
export function emit(title, text, data) {
  process.stdout.write(`\n## ${title}\n\n${text}\n`);
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ title, markdown: text, data }, null, 2));
}
