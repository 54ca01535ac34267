// What every browser test needs: a real dossier-server on 127.0.0.1 with a fresh ledger and
// the zero-configuration offline model, serving ui/dist, and Debian's chromium driven by
// playwright-core (no downloaded browser). The server is started by the SDK test's starter.
import assert from "node:assert/strict"
import { mkdtempSync, mkdirSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { after, before } from "node:test"
import { chromium } from "playwright-core"
import { startServer as startDossierServer } from "../sdk-compat/server.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
export const root = path.resolve(here, "../..")
export const artifacts = path.join(root, "tests/artifacts")
mkdirSync(artifacts, { recursive: true })

/** Starts the server on a free port; `folder` holds its data and config. */
export async function startServer() {
  const folder = mkdtempSync(path.join(os.tmpdir(), "dossier-browser-"))
  const server = await startDossierServer(folder, { config: {}, ui: path.join(root, "ui/dist") })
  return { ...server, folder }
}

/** `extraArguments` are more chromium flags (a host resolver rule, say). */
export function launchBrowser(extraArguments = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic", ...extraArguments],
  })
}

/** Calls the server's HTTP API directly (JSON in and out), asserting that it succeeded. */
export async function callApi(baseUrl, method, route, body) {
  const response = await fetch(baseUrl + route, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  assert.ok(response.ok, `${method} ${route} -> ${response.status}: ${await response.clone().text()}`)
  return response.json()
}

/**
 * A server and a browser for every test of the calling file: started before the first, stopped
 * after the last. Read `run.server` and `run.browser` inside the tests; `run.api` calls the
 * server's HTTP API directly (to make sessions before a page loads them), asserting success.
 */
export function serverAndBrowser() {
  const run = {
    server: undefined,
    browser: undefined,
    api: (method, route, body) => callApi(run.server.baseUrl, method, route, body),
  }
  before(async () => {
    run.server = await startServer()
    run.browser = await launchBrowser()
  })
  after(async () => {
    await run.browser?.close()
    await run.server?.stop()
  })
  return run
}
