// Runs before every test file of the shared module graph: each starts with an empty JWKS cache.
import { clearJwksCache } from '@oidc-rp/core';

clearJwksCache();
