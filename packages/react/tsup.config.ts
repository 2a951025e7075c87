import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

// Every export is a hook or a component using context: the whole entry is client code, so
// the built files start with 'use client' and a React Server Component tree (Next.js App
// Router) can render <AuthProvider> from a server layout. esbuild writes the banner; the
// extra Rollup tree-shaking pass is off because Rollup drops module-level directives (with a
// warning). esbuild still tree-shakes the bundle.
export default defineConfig({ ...libraryBuild(), treeshake: false, banner: { js: "'use client';" } });
