import { useAuth } from '@oidc-rp/react';
import { useEffect, useState } from 'react';

const time = (epochSeconds: number) => new Date(epochSeconds * 1000).toLocaleTimeString();

/** When the access token expires, and when it was last refreshed (in the background or on a 401). */
export function TokenStatus() {
  const { client } = useAuth();
  const [expiresAt, setExpiresAt] = useState(() => client.getSnapshot().expiresAt);
  const [refreshedAt, setRefreshedAt] = useState<number>();
  const [now, setNow] = useState(() => Date.now() / 1000);

  useEffect(() => {
    const stopRefreshed = client.on('tokenRefreshed', (detail) => {
      setRefreshedAt(Date.now() / 1000);
      setExpiresAt(detail.expiresAt);
    });
    const tick = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => {
      stopRefreshed();
      clearInterval(tick);
    };
  }, [client]);

  return (
    <p className="muted" data-testid="token-status">
      {expiresAt === undefined ? (
        <span data-testid="token-expiry" data-expires-at="">
          Access token lifetime: not stated by the server — it is refreshed when an API answers 401.
        </span>
      ) : (
        <span data-testid="token-expiry" data-expires-at={expiresAt}>
          Access token expires at {time(expiresAt)} ({Math.max(0, Math.round(expiresAt - now))} s left).
        </span>
      )}{' '}
      {refreshedAt !== undefined && (
        <span data-testid="token-refreshed" data-refreshed-at={refreshedAt}>
          Refreshed at {time(refreshedAt)}.
        </span>
      )}
    </p>
  );
}
