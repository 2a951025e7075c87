/**
 * The provider the msw-backed tests of client requests talk to: the `acme` tenant of a made-up
 * login server (its endpoints at the paths `serviceProvider` derives), and the fixed "now" of
 * the requests they sign (client assertions, DPoP proofs).
 */
import { serviceProvider } from '../../src/index';

export const ISSUER = 'https://login.example.com/acme';
export const provider = serviceProvider(ISSUER);
/** 2027-01-15T08:00:00Z in epoch seconds: the `iat` of every assertion and proof signed in these tests. */
export const NOW = 1_800_000_000;
export const now = () => NOW;
