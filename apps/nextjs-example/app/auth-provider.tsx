'use client';
// The client boundary for @oidc-rp/react until its published files carry 'use client'
// themselves; then app/layout.tsx can import AuthProviderWithOptions from '@oidc-rp/react' directly.
export { AuthProviderWithOptions } from '@oidc-rp/react';
