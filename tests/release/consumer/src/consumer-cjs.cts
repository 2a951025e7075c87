// The same entry points from a CommonJS file under node16 resolution (the `require` conditions).
import { OidcError } from '@oidc-rp/core';
import { createNodeClient } from '@oidc-rp/node';
import { RedisTokenCache } from '@oidc-rp/node/redis';
import { requireAccessToken } from '@oidc-rp/node/api';
import { createReferenceServer } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { useAuth } from '@oidc-rp/react';

export const parts = [OidcError, createNodeClient, RedisTokenCache, requireAccessToken, createReferenceServer, completeLogin, useAuth];
// @ts-expect-error not an error code
export const wrong: OidcError['code'] = 'no_such_code';
