/**
 * Checks of control-call arguments that come from outside (IPC, HTTP): each returns the value
 * or throws a {@link ControlError} naming the field.
 */
import { ControlError } from './errors';

/**
 * `value` as a plain object (not an array, not null).
 *
 * @example
 * const user = record(body, 'user');
 */
export function record(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ControlError('invalid_input', field, 'must be an object');
  return value as Record<string, unknown>;
}

/**
 * `value` as a non-empty string.
 *
 * @example
 * const clientId = name(args.client_id, 'client_id');
 */
export function name(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new ControlError('invalid_input', field, 'must be a non-empty string');
  return value;
}

/**
 * `value` as a whole number in `[min, max]`, or undefined when absent.
 *
 * @example
 * const times = wholeNumber(options.times, 'times', 1, 1_000_000);
 */
export function wholeNumber(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ControlError('invalid_input', field, `must be a whole number from ${min} to ${max}`);
  }
  return value;
}

/**
 * `value` as a finite number.
 *
 * @example
 * clock.advance(finite(args.seconds, 'seconds'));
 */
export function finite(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ControlError('invalid_input', field, 'must be a finite number');
  return value;
}

/**
 * Refuses keys outside `allowed`, so a misspelt option fails instead of being ignored.
 *
 * @example
 * onlyKeys(options, 'options', ['times', 'tenant']);
 */
export function onlyKeys(value: Record<string, unknown>, field: string, allowed: readonly string[]): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) {
    throw new ControlError('invalid_input', field === '' ? extra : `${field}.${extra}`, `unknown key; allowed keys are ${allowed.join(', ')}`);
  }
}
