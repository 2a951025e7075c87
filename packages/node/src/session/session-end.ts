/**
 * Ending a stored session for good. A refresh that was waiting on the provider when its session
 * was deleted (logout, back-channel logout, `revokeSession`) writes the session back when it
 * finishes; left alone, that write would bring the ended session back until it expires. So an
 * ending leaves a marker first and deletes second, and a write-back checks the marker after
 * writing: whichever order the two run in, the session ends up deleted. Works on any store (a
 * `get`, `set` and `delete` each), the memory one and Redis alike. Internal.
 */

import type { SessionStore } from './session-store';

/** How long the marker stays: far longer than any refresh waits on the provider. */
export const ENDED_MARKER_SECONDS = 3600;

// Not a session id (those are base64url): no session can collide with its marker.
function markerOf(id: string): string {
  return `ended.${id}`;
}

/** Marks the session ended, then deletes it. */
export async function endStoredSession(store: SessionStore, id: string): Promise<void> {
  await store.set(markerOf(id), '1', ENDED_MARKER_SECONDS);
  await store.delete(id);
}

/** Whether the session was ended (after this process read it): its write-back must be undone. */
export async function wasEnded(store: SessionStore, id: string): Promise<boolean> {
  return (await store.get(markerOf(id))) !== undefined;
}
