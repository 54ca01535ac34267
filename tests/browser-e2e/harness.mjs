// What every browser test starts with: a dossier-server with the offline model serving the
// built UI over a fresh ledger, and Debian's chromium (never a downloaded browser) with the
// flags this machine's closed network needs.
import { mkdirSync, mkdtempSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"
import { startServer } from "../sdk-compat/server.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
export const root = path.resolve(here, "../..")
export const artifacts = path.join(root, "tests/artifacts")
mkdirSync(artifacts, { recursive: true })

/** `{folder, server, browser, stop()}`; `folder` is the test's own temporary directory. */
export async function startHarness(name) {
  const folder = mkdtempSync(path.join(os.tmpdir(), `dossier-${name}-`))
  // Zero configuration: the built-in offline model answers.
  const server = await startServer(folder, { config: {}, ui: path.join(root, "ui/dist") })
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  })
  return {
    folder,
    server,
    browser,
    async stop() {
      await browser.close()
      await server.stop()
    },
  }
}
