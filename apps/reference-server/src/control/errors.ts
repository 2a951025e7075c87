/**
 * The one error every control call throws for bad input: a stable `code`, the `field` at fault
 * and the HTTP status the control API answers with. Messages name what was wrong and never
 * carry a password or secret.
 */

/** Machine-readable reason of a {@link ControlError}. */
export type ControlErrorCode =
  | 'invalid_input'
  | 'unknown_tenant'
  | 'unknown_user'
  | 'unknown_client'
  | 'unknown_fault'
  | 'unknown_endpoint'
  | 'already_exists';

const STATUS: Readonly<Record<ControlErrorCode, 400 | 404 | 409>> = {
  invalid_input: 400,
  unknown_tenant: 404,
  unknown_user: 404,
  unknown_client: 404,
  unknown_fault: 400,
  unknown_endpoint: 400,
  already_exists: 409,
};

/**
 * A control call that cannot be carried out; nothing was changed.
 *
 * @example
 * try { await server.control.users.remove('nobody') } catch (e) { if (e instanceof ControlError) e.field; // 'username' }
 */
export class ControlError extends Error {
  /** 400, 404 (unknown tenant, user or client) or 409 (already exists). */
  readonly status: 400 | 404 | 409;

  constructor(
    readonly code: ControlErrorCode,
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'ControlError';
    this.status = STATUS[code];
  }
}

