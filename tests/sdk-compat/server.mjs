// Starts the built dossier-server binary on 127.0.0.1:0 over a ledger in `folder`, and stops it.
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
export const binary = process.env.DOSSIER_SERVER_BIN ?? path.resolve(here, "../../target/debug/dossier-server")

export const FAKE_CONFIG = {
  model: "fake/fake-model",
  provider: { fake: { npm: "@ai-sdk/openai-compatible", models: { "fake-model": { name: "Fake" } } } },
}

/**
 * `config` is written as the server's config file (the SDK tests' fake provider by default; `{}`
 * gives the zero-configuration offline model); `ui` is a folder of the built web UI to serve.
 */
export async function startServer(folder, { config: settings = FAKE_CONFIG, ui } = {}) {
  const config = path.join(folder, "dossier.json")
  writeFileSync(config, JSON.stringify(settings))
  const uiArguments = ui === undefined ? [] : ["--ui", ui]
  const child = spawn(binary, ["--hostname", "127.0.0.1", "--port", "0", ...uiArguments], {
    env: { ...process.env, DOSSIER_DATA_DIR: path.join(folder, "data"), DOSSIER_CONFIG: config, DOSSIER_SERVER_PASSWORD: "" },
    stdio: ["ignore", "pipe", "inherit"],
  })
  const baseUrl = await new Promise((resolve, reject) => {
    let output = ""
    const timer = setTimeout(() => reject(new Error("no listening line within 30 s: " + output)), 30_000)
    child.on("exit", (code) => reject(new Error(`dossier-server exited with ${code}: ${output}`)))
    child.stdout.on("data", (chunk) => {
      output += chunk
      const match = output.match(/^dossier server listening on (http:\/\/127\.0\.0\.1:\d+)\n/)
      if (match) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
  })
  return {
    baseUrl,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    },
  }
}
