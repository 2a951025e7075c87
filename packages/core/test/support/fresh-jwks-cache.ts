// Runs before every test file of the shared module graph (vitest.config.ts): each file starts
// with an empty process-wide JWKS cache, as it did in a process of its own.
import { clearJwksCache } from '../../src/jose/jwks';

clearJwksCache();
