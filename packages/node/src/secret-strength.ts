/**
 * The one check of every secret this package takes (`cookieSecret`, the session layer's
 * `secret`, `sealTransaction`'s `secret`, `RedisTokenCache`'s `encryptionKey`): at least 32
 * characters that look random. A secret is the whole security of what is sealed with it, and a
 * phrase someone made up is guessable offline from one sealed cookie. The check refuses the
 * obvious cases only (repeats, one character class, few distinct characters, keyboard or
 * alphabet runs, common words); it cannot prove randomness. The rules are the reference
 * server's, so an operator meets the same ones on both sides; random output of the usual
 * generators (base64, base64url, hex of 32 bytes) always passes.
 */

import { invalidOptions } from '@oidc-rp/core/internal';

export const MIN_SECRET_LENGTH = 32;

/** How to make a good secret, for messages. */
export const GENERATE_SECRET =
  'generate one with `openssl rand -base64 32` or ' +
  "`node -e \"console.log(require('node:crypto').randomBytes(32).toString('base64url'))\"`";

const MIN_DISTINCT = 8;
/**
 * Length of a run that counts. Runs are matched as typed (all lower or all upper case), so
 * base64 output practically never holds one (64^-6 a position). Hex output has only 16
 * symbols, where a 6-run (16^-6 a position) would refuse about one `openssl rand -hex 32` in
 * 20 000; hex-only secrets count runs from 8 (about one in ten million).
 */
const RUN = 6;
const HEX_RUN = 8;
const ROWS = ['abcdefghijklmnopqrstuvwxyz', '0123456789', '1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
/** Words of six letters or more, so random base64 does not hit one by chance. */
const WORDS = ['password', 'passwd', 'secret', 'changeme', 'letmein', 'qwerty', 'default', 'example', 'testing'];

/** Whether `text` contains `run` characters in a row of an alphabet or keyboard row, either way. */
function hasRun(text: string, run: number): boolean {
  for (const row of ROWS) {
    const reversed = [...row].reverse().join('');
    for (const line of [row, reversed, row.toUpperCase(), reversed.toUpperCase()]) {
      for (let i = 0; i + run <= line.length; i++) if (text.includes(line.slice(i, i + run))) return true;
    }
  }
  return false;
}

/** Whether `text` is one shorter piece said again and again (`abcabcabc`, `xxxx`). */
function isRepeat(text: string): boolean {
  for (let size = 1; size <= text.length / 2; size++) {
    if (text.length % size === 0 && text.slice(0, size).repeat(text.length / size) === text) return true;
  }
  return false;
}

/**
 * Why `secret` is obviously not random, or undefined when it passes. The reason never quotes
 * any part of the secret.
 *
 * @example
 * weakSecretProblem('a'.repeat(32)); // 'it repeats one short piece'
 * weakSecretProblem(randomBytes(32).toString('base64url')); // undefined
 */
export function weakSecretProblem(secret: string): string | undefined {
  if (isRepeat(secret)) return 'it repeats one short piece';
  const distinct = new Set(secret).size;
  if (distinct < MIN_DISTINCT) return `it has only ${distinct} different characters`;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((c) => c.test(secret)).length;
  if (classes < 2) return 'it uses a single kind of character';
  if (hasRun(secret, /^[0-9a-f]+$/i.test(secret) ? HEX_RUN : RUN)) return 'it contains a keyboard or alphabet sequence';
  const lower = secret.toLowerCase();
  if (WORDS.some((word) => lower.includes(word))) return 'it contains a common word';
  // Lower-case words, each perhaps capitalised: any mix of cases would match random base64url.
  if (/^([A-Za-z][a-z]{2,}[-_. ]){2,}[A-Za-z][a-z]{2,}$/.test(secret)) return 'it is words joined by separators';
  return undefined;
}

/**
 * The secrets of an option that takes one secret or a list (rotation: the first seals, every
 * one opens), each checked; `option` (and `what`, when the name alone is unclear) names it in
 * the error. Throws
 * OidcError `invalid_options` saying what is wrong and how to generate a secret, never
 * quoting it. Every listed secret is checked: an old one still opens what it sealed.
 *
 * @example
 * const secrets = checkSecrets(options.secret, 'secret', 'the session secret');
 */
export function checkSecrets(value: unknown, option: string, what?: string): string[] {
  const secrets: unknown[] = Array.isArray(value) ? value : [value];
  const named = (index: string) => `\`${option}${index}\`${what === undefined ? '' : ` (${what})`}`;
  if (secrets.length === 0) throw invalidOptions(`${named('')} must be a secret or a non-empty array of secrets; ${GENERATE_SECRET}.`);
  secrets.forEach((secret, index) => {
    const name = named(secrets.length > 1 ? `[${index}]` : '');
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
      throw invalidOptions(
        `${name} must be at least ${MIN_SECRET_LENGTH} characters of random data, the same on every instance; ${GENERATE_SECRET}.`,
      );
    }
    const problem = weakSecretProblem(secret);
    if (problem !== undefined) {
      throw invalidOptions(
        `${name} does not look random (${problem}) and could be guessed from one sealed value; ` +
          `use at least ${MIN_SECRET_LENGTH} characters of random data, the same on every instance: ${GENERATE_SECRET}.`,
      );
    }
  });
  return secrets as string[];
}
