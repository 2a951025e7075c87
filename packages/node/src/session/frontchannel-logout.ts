/**
 * OpenID Connect Front-Channel Logout 1.0 for the session layer: the page the provider loads in
 * an iframe at logout. It ends the sessions of the `sid` it names, found through the
 * back-channel logout's sid index (store mode) or revoked by sid (cookie-only sessions): the
 * lookup needs no cookie, so it works where the browser sends none to a third-party frame.
 * `iss` must be the provider's issuer and `sid` is required (core's
 * `readFrontChannelLogoutRequest`): a page any site can load ends nothing else. Internal;
 * configured through `SessionAuthOptions.frontchannelLogout`.
 */

import { isOidcError, readFrontChannelLogoutRequest } from '@oidc-rp/core';
import { invalidOptions } from '@oidc-rp/core/internal';
import type { NodeClient } from '../client-types';
import type { Backchannel } from './backchannel-logout';

/**
 * Front-channel logout (OpenID Connect Front-Channel Logout 1.0): the provider loads
 * `{baseUrl}{path}?iss=…&sid=…` in an iframe when the user logs out there, and the sessions of
 * that provider session end here. Register `{baseUrl}{path}` as the client's
 * `frontchannel_logout_uri` with `frontchannel_logout_session_required: true`. Needs
 * `backchannelLogout` (its sid index and store), which the provider need not use.
 *
 * @example
 * ```ts
 * const options: FrontchannelLogoutOptions = { path: '/auth/frontchannel-logout' }; // the default
 * ```
 */
export interface FrontchannelLogoutOptions {
  /** Path of the route. Default `/auth/frontchannel-logout`. */
  path?: string;
}

/** The front-channel part of a session layer. Internal. */
export interface Frontchannel {
  path: string;
  handle(request: Request): Promise<Response>;
}

/** Checks the option; undefined when front-channel logout is off. */
export function createFrontchannel(given: FrontchannelLogoutOptions | undefined, settings: { client: NodeClient; backchannel: Backchannel | undefined }): Frontchannel | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null) throw invalidOptions('`frontchannelLogout` must be an object: { path? }.');
  const { path = '/auth/frontchannel-logout' } = given;
  if (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path)) {
    throw invalidOptions('`frontchannelLogout.path` must be a path starting with "/", without query or fragment.');
  }
  const { backchannel } = settings;
  if (!backchannel) {
    throw invalidOptions(
      '`frontchannelLogout` ends sessions through the sid index of back-channel logout: set `backchannelLogout` too ({ clientId, store? }); the provider need not send logout tokens.',
    );
  }
  if (backchannel.path === path) throw invalidOptions('`frontchannelLogout.path` must differ from `backchannelLogout.path`.');

  async function handle(request: Request): Promise<Response> {
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { allow: 'GET, HEAD', 'cache-control': 'no-store' } });
    const { issuer } = await settings.client.getProvider();
    let sid: string;
    try {
      ({ sid } = readFrontChannelLogoutRequest(new URL(request.url), issuer));
    } catch (error) {
      if (!isOidcError(error) || !error.code.startsWith('frontchannel_logout_')) throw error;
      return page(400, issuer);
    }
    try {
      await backchannel?.endSid(sid);
    } catch (error) {
      if (isOidcError(error) && error.code === 'session_store_unavailable') return page(503, issuer);
      throw error;
    }
    return page(200, issuer);
  }

  return { path, handle };
}

/** §3: an empty page, never cached; only the provider's pages may frame it. */
function page(status: number, issuer: string): Response {
  return new Response(status === 200 ? '<!doctype html><title>Signed out</title>' : '<!doctype html><title>Not signed out</title>', {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; frame-ancestors ${new URL(issuer).origin}`,
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
  });
}
