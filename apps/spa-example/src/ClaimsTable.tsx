import type { AuthState } from '@oidc-rp/react';

// Protocol values that mean nothing to a person reading their profile.
const HIDDEN = new Set(['nonce', 'at_hash', 'c_hash']);
const TIMES = new Set(['exp', 'iat', 'nbf', 'auth_time', 'updated_at']);

/** The validated ID token claims, one row each; times also shown as dates. */
export function ClaimsTable({ claims }: { claims: NonNullable<AuthState['user']> }) {
  const rows = Object.entries(claims).filter(([name]) => !HIDDEN.has(name));
  return (
    <table className="claims" data-testid="claims">
      <thead>
        <tr>
          <th>Claim</th>
          <th>Value</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, value]) => (
          <tr key={name} data-claim={name}>
            <th scope="row">
              <code>{name}</code>
            </th>
            <td data-testid={`claim-${name}`}>{format(name, value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function format(name: string, value: unknown): string {
  if (TIMES.has(name) && typeof value === 'number') return `${value} (${new Date(value * 1000).toISOString()})`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
