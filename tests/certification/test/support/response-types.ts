import type { ResponseType as SdkResponseType } from '@oidc-rp/core';
import type { ResponseType } from '../../src/modules';

/** A plan's response type as the SDK and the reference server name it (core orders the three-part hybrid type `code token id_token`). */
export const sdkResponseType = (t: ResponseType): SdkResponseType => (t === 'code id_token token' ? 'code token id_token' : t) as SdkResponseType;

/** Whether the response type gives the app an access token (and so a userinfo request). */
export const hasAccessToken = (t: ResponseType): boolean => t !== 'id_token';
