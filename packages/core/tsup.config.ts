import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

export default defineConfig(libraryBuild(['src/index.ts'], { shortenInternalProps: true }));
