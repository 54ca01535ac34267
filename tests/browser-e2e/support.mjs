// What every browser test needs: a real dossier-server on 127.0.0.1 with a fresh ledger and
// the zero-configuration offline model, serving ui/dist, and Debian's chromium driven by
// playwright-core (no downloaded browser). The server is started by the SDK test's starter.
import assert from "node:assert/strict"
import { mkdtempSync, mkdirSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { after, before } from "node:test"
import axe from "axe-core"
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

/** What has focus, in words a failing assertion can show. */
export function focused(page) {
  return page.evaluate(() => {
    const element = document.activeElement
    if (!element || element === document.body) return "body"
    const id = element.id ? `#${element.id}` : ""
    const testid = element.getAttribute("data-testid")
    const row = element.closest("[data-session-id]")?.getAttribute("data-session-id")
    return `${element.tagName.toLowerCase()}${id}${testid ? `[${testid}]` : ""}${element.className ? `.${String(element.className).split(" ").join(".")}` : ""}${row ? ` in ${row}` : ""}`
  })
}

/**
 * Runs axe-core on the page as it is; fails on any serious or critical violation. `reachedOtherwise`
 * names elements that one rule wrongly calls unreachable, with the reason: `{ rule, selector }`
 * (a reply's wide table box is not a Tab stop of its own, since the messages are one stop walked
 * with the arrows, and axe cannot see the arrows).
 */
export async function noSeriousViolations(page, screen, reachedOtherwise = []) {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axe.source })
  const result = await page.evaluate(async (exceptions) => {
    const found = await window.axe.run(document)
    for (const violation of found.violations) {
      const exception = exceptions.find((candidate) => candidate.rule === violation.id)
      if (exception === undefined) continue
      violation.nodes = violation.nodes.filter((node) => !document.querySelector(node.target.join(" "))?.matches(exception.selector))
    }
    found.violations = found.violations.filter((violation) => violation.nodes.length > 0)
    return found
  }, reachedOtherwise)
  const serious = result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`)
  console.log(`axe on ${screen}: ${result.passes?.length ?? 0} rules passed, violations: ${result.violations.map((violation) => `${violation.id} (${violation.impact})`).join(", ") || "none"}; not decidable by axe: ${result.incomplete.map((rule) => rule.id).join(", ") || "none"}`)
  assert.deepEqual(serious, [], `axe on ${screen}`)
  return result.violations.length
}

/**
 * Clicks "New session" and waits until the new session is the open one. Rows from earlier tests
 * are already listed, so waiting for "a row" would not wait at all: a click on another row, or a
 * message typed, could land before the new session opens, and the new one would then take the
 * view from it.
 */
export async function openNewSession(page) {
  await page.getByTestId("new-session").waitFor()
  const before = await page.evaluate(() => [...document.querySelectorAll('[data-testid="session-row"]')].map((row) => row.dataset.sessionId))
  await page.getByTestId("new-session").click()
  await page.waitForFunction(
    (before) => {
      const open = document.querySelector(".session-row--selected")?.dataset.sessionId
      return open !== undefined && !before.includes(open)
    },
    before,
    { timeout: 10_000 },
  )
}
