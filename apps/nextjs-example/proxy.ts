// Runs before every page: refreshes an expiring access token and rolls the session's expiry,
// sending the new cookie to the browser AND to the page being rendered (server components
// cannot set cookies themselves, and must not refresh a second time with a spent token).
import { type NextRequest, NextResponse } from 'next/server';
import { getAuth } from './lib/auth';

export async function proxy(request: NextRequest) {
  const { cookies, cookieHeader } = await getAuth().getSession(request);
  if (cookies.length === 0) return NextResponse.next();
  const headers = new Headers(request.headers);
  headers.set('cookie', cookieHeader);
  const response = NextResponse.next({ request: { headers } });
  for (const cookie of cookies) response.headers.append('set-cookie', cookie);
  return response;
}

export const config = {
  // Not the auth routes (they manage the session themselves), nor static files.
  matcher: ['/((?!auth/|_next/|favicon.ico).*)'],
};
