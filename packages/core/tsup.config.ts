import { defineConfig } from 'tsup';
import { messageBuilds } from '../../tsup.shared';

// index.* (every message) and index.production.* (codes only), both shortening internal properties.
export default defineConfig(messageBuilds());
