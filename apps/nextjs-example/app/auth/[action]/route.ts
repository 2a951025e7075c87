// /auth/login, /auth/callback and /auth/logout, all answered by the session layer.
import { getAuth } from '../../../lib/auth';

async function handle(request: Request): Promise<Response> {
  return (await getAuth().handle(request)) ?? new Response('Not found', { status: 404 });
}

export const GET = handle;
export const POST = handle;
