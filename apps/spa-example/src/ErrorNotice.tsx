/** Shows any failure with its OidcError `code` (when it has one) and its message. */
export function ErrorNotice({
  error,
  title = 'Something went wrong',
  testId = 'auth-error',
}: {
  error: unknown;
  title?: string;
  testId?: string;
}) {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="notice notice-error" role="alert" data-testid={testId} data-code={code}>
      <strong>{title}</strong>
      {code && (
        <p>
          Error code: <code data-testid="error-code">{code}</code>
        </p>
      )}
      <p data-testid="error-message">{message}</p>
    </div>
  );
}
