/**
 * A check that a configured secret looks random. A secret is the whole security of what it
 * protects (the sealed signing keys, the grant records' MACs, the control API), and a
 * 32-character phrase someone made up is guessable offline. This refuses the obvious cases
 * only — repeats, one character class, few distinct characters, keyboard or alphabet runs,
 * words — it cannot prove randomness; the message says how to generate a real one.
 */

/** How to make a good secret, for messages. */
export const GENERATE_SECRET = "generate one with `openssl rand -base64 32` or `node -e \"console.log(require('node:crypto').randomBytes(32).toString('base64'))\"`";

const MIN_DISTINCT = 8;
/** Length of a run that counts; runs are matched as typed (lower case), so random output practically never has one. */
const RUN = 6;
/**
 * Hex output draws from 16 characters, so a 6-digit run turns up in about 1 in 20,000 random
 * `openssl rand -hex 32` secrets; 8 makes that one in millions, as @oidc-rp/node does.
 */
const HEX_RUN = 8;
const ROWS = ['abcdefghijklmnopqrstuvwxyz', '0123456789', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', '1234567890'];
/** Words of six letters or more, so random base64 (about 1 in 10^9 per position) does not hit them by chance. */
const WORDS = ['password', 'passwd', 'secret', 'changeme', 'letmein', 'qwerty', 'default', 'example', 'testing'];

/** Whether `text` contains `run` characters in a row of an alphabet or keyboard row, either way. */
function hasRun(text: string, run: number): boolean {
  for (const row of ROWS) {
    for (const line of [row, [...row].reverse().join('')]) {
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
 * Why `secret` is obviously not random, or undefined when it passes.
 *
 * @example
 * weakSecretProblem('a'.repeat(32)); // 'repeats one short piece'
 * weakSecretProblem(randomBytes(32).toString('base64')); // undefined
 */
export function weakSecretProblem(secret: string): string | undefined {
  if (isRepeat(secret)) return 'repeats one short piece';
  const distinct = new Set(secret).size;
  if (distinct < MIN_DISTINCT) return `has only ${distinct} different characters`;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((c) => c.test(secret)).length;
  if (classes < 2) return 'uses a single kind of character';
  if (hasRun(secret, /^[0-9a-f]+$/i.test(secret) ? HEX_RUN : RUN)) return 'contains a keyboard or alphabet sequence';
  const lower = secret.toLowerCase();
  const word = WORDS.find((w) => lower.includes(w));
  if (word !== undefined) return `contains the word "${word}"`;
  if (/^([a-z]{3,}[-_. ]){2,}[a-z]{3,}$/.test(secret)) return 'is words joined by separators';
  return undefined;
}

/**
 * Why `secret` cannot key an HMAC `alg`, or undefined when it can: RFC 7518 3.2 needs a key at
 * least as long as the hash (32 bytes for HS256, 48 for HS384, 64 for HS512), and a shorter
 * secret falls to an offline guess from one captured assertion.
 *
 * @example
 * hmacSecretProblem('web-secret', 'HS256'); // 'is 10 bytes; HS256 needs at least 32 (RFC 7518 3.2)'
 */
export function hmacSecretProblem(secret: string, alg: string): string | undefined {
  const needed = Number(alg.slice(2)) / 8;
  const bytes = Buffer.byteLength(secret, 'utf8');
  return bytes < needed ? `is ${bytes} bytes; ${alg} needs at least ${needed} (RFC 7518 3.2)` : undefined;
}
