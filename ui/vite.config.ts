/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// Tauri serves ui/dist (see ../tauri.conf.json). The dev server port is fixed so the
// Rust side can point devUrl at it.
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    outDir: "dist",
    target: "es2022",
    // Vite inlines small assets as data: URLs; keep everything a file so the CSP
    // needs nothing beyond 'self'.
    assetsInlineLimit: 0,
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./test/setup.ts", "./test/lazyViews.setup.ts"],
    include: ["test/**/*.test.{ts,tsx}"],
    restoreMocks: true,
    // Two-core CI machines run the files in parallel; leave room over the 5 s default.
    testTimeout: 20_000,
  },
});
