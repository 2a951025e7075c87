// A route handler protected by the session: 401 JSON (or a redirect to login for a browser
// navigation) without one.
import { getAuth } from '../../../lib/auth';

export function GET(request: Request): Promise<Response> {
  return getAuth().requiresAuth((_request, session) =>
    Response.json({
      sub: session.user.sub,
      name: session.user.name ?? null,
      email: session.user.email ?? null,
      accessTokenExpiresAt: session.accessTokenExpiresAt ?? null,
      sessionExpiresAt: session.expiresAt,
    }),
  )(request);
}
