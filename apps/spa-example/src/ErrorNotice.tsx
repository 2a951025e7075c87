import { describeError } from './error-text';

/** A failure in words a person understands, with the code (for support) underneath. */
export function ErrorNotice({ error, testId = 'auth-error' }: { error: unknown; testId?: string }) {
  const { title, message, code } = describeError(error);
  return (
    <div className="notice notice-error" role="alert" data-testid={testId} data-code={code}>
      <strong data-testid="error-title">{title}</strong>
      <p data-testid="error-message">{message}</p>
      {code && (
        <p className="muted">
          Error code: <code data-testid="error-code">{code}</code>
        </p>
      )}
    </div>
  );
}
