import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The demo tenant registers http://127.0.0.1:5173/callback: dev server and preview both use
// exactly that origin, and fail instead of moving to another port.
const origin = { host: '127.0.0.1', port: 5173, strictPort: true };

export default defineConfig({
  plugins: [react()],
  server: origin,
  preview: origin,
  resolve: { dedupe: ['react', 'react-dom'] },
  build: { sourcemap: true },
});
