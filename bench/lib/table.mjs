/** Markdown tables and number formatting shared by every bench and by BENCHMARKS.md. */

/**
 * A GitHub-flavoured markdown table. Columns whose header starts with a space-free
 * number-looking cell are right-aligned when `align` says so.
 * @param {string[]} headers
 * @param {Array<Array<string | number>>} rows
 * @param {Array<'l' | 'r'>} [align]
 */
export function table(headers, rows, align = headers.map((_, i) => (i === 0 ? 'l' : 'r'))) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(align.map((a) => (a === 'r' ? '---:' : ':---'))), ...rows.map((row) => line(row.map(String)))].join('\n');
}

/** 12345.6 → "12,346"; small numbers keep `digits` significant decimals. */
export function num(value, digits = 0) {
  if (value === undefined || value === null || Number.isNaN(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A ratio as "0.95×" (verdicts pass 3 digits, so 0.998 is not printed as a met "1.00×"). */
export function ratio(value, digits = 2) {
  return value === undefined || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(digits)}×`;
}

/** Bytes as "12,345 B (12.1 KB)". */
export function bytes(value) {
  return `${num(value)} B (${(value / 1024).toFixed(1)} KB)`;
}
