// What every browser test needs: a real dossier-server on 127.0.0.1 with a fresh ledger,
// serving ui/dist, and Debian's chromium driven by playwright-core (no downloaded browser).
import { spawn } from "node:child_process"
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"

const here = path.dirname(fileURLToPath(import.meta.url))
export const root = path.resolve(here, "../..")
const binary = process.env.DOSSIER_SERVER_BIN ?? path.join(root, "target/debug/dossier-server")
export const artifacts = path.join(root, "tests/artifacts")
mkdirSync(artifacts, { recursive: true })

/** Starts the server on a free port; `folder` holds its data and config. */
export async function startServer() {
  const folder = mkdtempSync(path.join(os.tmpdir(), "dossier-browser-"))
  const config = path.join(folder, "dossier.json")
  writeFileSync(config, "{}") // zero configuration: the built-in offline model answers
  const child = spawn(binary, ["--hostname", "127.0.0.1", "--port", "0", "--ui", path.join(root, "ui/dist")], {
    env: { ...process.env, DOSSIER_DATA_DIR: path.join(folder, "data"), DOSSIER_CONFIG: config, DOSSIER_SERVER_PASSWORD: "" },
    stdio: ["ignore", "pipe", "inherit"],
  })
  const baseUrl = await new Promise((resolve, reject) => {
    let output = ""
    const timer = setTimeout(() => reject(new Error("no listening line within 30 s: " + output)), 30_000)
    child.on("exit", (code) => reject(new Error(`dossier-server exited with ${code}: ${output}`)))
    child.stdout.on("data", (chunk) => {
      output += chunk
      const match = output.match(/dossier server listening on (http:\/\/127\.0\.0\.1:\d+)/)
      if (match) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
  })
  return {
    baseUrl,
    folder,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    },
  }
}

export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  })
}
