// Types are the feature here: typed custom claims through useAuth<Claims>(), the booleans,
// the raw ID token, and a HOC that keeps the wrapped component's props.
import type { IdTokenClaims } from '@oidc-rp/browser';
import { type ComponentProps, createElement } from 'react';
import { describe, expectTypeOf, it } from 'vitest';
import { type AuthState, useAuth, withAuthenticationRequired } from '../src/index';

interface MyClaims {
  tenant: string;
  roles: string[];
}

describe('useAuth types', () => {
  it('types custom claims through the generic, keeping the standard ones', () => {
    expectTypeOf(useAuth<MyClaims>).returns.toEqualTypeOf<AuthState<MyClaims>>();
    type User = NonNullable<AuthState<MyClaims>['user']>;
    expectTypeOf<User['tenant']>().toEqualTypeOf<string>();
    expectTypeOf<User['roles']>().toEqualTypeOf<string[]>();
    expectTypeOf<User['sub']>().toEqualTypeOf<string>();
    expectTypeOf<User>().toMatchTypeOf<IdTokenClaims>();
  });

  it('without a generic, unknown claims are unknown, never any', () => {
    type User = NonNullable<ReturnType<typeof useAuth>['user']>;
    expectTypeOf<User['tenant']>().toEqualTypeOf<unknown>();
  });

  it('has the booleans, status and the raw ID token', () => {
    expectTypeOf<AuthState['isLoading']>().toEqualTypeOf<boolean>();
    expectTypeOf<AuthState['isAuthenticated']>().toEqualTypeOf<boolean>();
    expectTypeOf<AuthState['idToken']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AuthState['status']>().toEqualTypeOf<'loading' | 'authenticated' | 'unauthenticated' | 'error'>();
  });

  it('withAuthenticationRequired keeps the props of the wrapped component', () => {
    const Wrapped = withAuthenticationRequired((_props: { page: number }) => null);
    expectTypeOf<ComponentProps<typeof Wrapped>>().toEqualTypeOf<{ page: number }>();
    // @ts-expect-error: a missing required prop is still an error
    createElement(Wrapped, {});
  });
});
