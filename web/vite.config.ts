/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The Python API; override with PERILSCOPE_API_URL (e.g. another port) when needed.
const API = process.env.PERILSCOPE_API_URL ?? 'http://127.0.0.1:8000';

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: {
      '/api': { target: API, changeOrigin: false },
      '/forgot-password': {
        target: API,
        // Only the form POST goes to the server; the page itself is the SPA route.
        bypass: (req) => (req.method === 'GET' ? '/index.html' : undefined),
      },
      '/schema': { target: API },
      '/health': { target: API },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    css: false,
    restoreMocks: true,
    include: ['src/**/*.test.{ts,tsx}'],
    // Room for the 5 s waits of src/test/setup.ts on a busy 2-core machine.
    testTimeout: 20_000,
  },
});
