import { useAuth } from '@oidc-rp/react';
import { useState } from 'react';
import { ErrorNotice } from './ErrorNotice';

type Outcome = { call: number } & ({ status: number; body: string } | { error: unknown });

/**
 * Calls a protected resource on another origin with `fetch` from useAuth: the access token is
 * attached, refreshed ahead of expiry when its lifetime is known, and on a 401 once otherwise.
 */
export function ApiPanel({ apiUrl, title = 'Protected API', testIds = '' }: { apiUrl: string; title?: string; testIds?: string }) {
  const { fetch } = useAuth();
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState(false);

  async function callApi() {
    const call = (outcome?.call ?? 0) + 1;
    setBusy(true);
    try {
      const response = await fetch(apiUrl);
      const text = await response.text();
      setOutcome({ call, status: response.status, body: pretty(text) });
    } catch (error) {
      setOutcome({ call, error });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="api">
      <h2>{title}</h2>
      <p>
        <code>GET {apiUrl}</code> with the access token.
      </p>
      <button type="button" data-testid={`${testIds}call-api-button`} disabled={busy} onClick={() => void callApi()}>
        {busy ? 'Calling…' : 'Call API'}
      </button>
      {outcome && 'status' in outcome && (
        <div
          className={`notice ${outcome.status < 300 ? 'notice-ok' : 'notice-error'}`}
          data-testid={`${testIds}api-result`}
          data-call={outcome.call}
          data-status={outcome.status}
        >
          <strong>
            Call #{outcome.call}: HTTP {outcome.status}
          </strong>
          <pre data-testid={`${testIds}api-body`}>{outcome.body}</pre>
        </div>
      )}
      {outcome && 'error' in outcome && (
        <div data-call={outcome.call}>
          <ErrorNotice error={outcome.error} testId={`${testIds}api-error`} />
        </div>
      )}
    </section>
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
