/// <reference types="vitest/config" />
// One config for the build (into ui/dist, which tauri.conf.json embeds) and for vitest.
import { defineConfig } from "vite";
import solid from "vite-plugin-solid";

// The dev and preview servers hand out the UI's source to whoever asks, so they stay on the
// loopback address, on a fixed port (no silent move to another one a bookmark does not expect),
// answer only loopback Host names (Vite's default allowedHosts, against DNS rebinding) and send
// no CORS headers (Vite would otherwise let any localhost page read the sources). They have no
// API proxy: the UI reaches a ledger only when dossier-server serves it (docs/local-server-security.md).
const loopbackOnly = { host: "127.0.0.1", strictPort: true, cors: false } as const;

export default defineConfig({
  plugins: [solid()],
  server: loopbackOnly,
  preview: loopbackOnly,
  build: {
    outDir: "dist",
    emptyOutDir: true,
  },
  test: {
    environment: "happy-dom",
    include: ["src/**/*.test.{ts,tsx}"],
  },
});
