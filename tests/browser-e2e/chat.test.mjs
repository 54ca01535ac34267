// The web UI in Debian's chromium (playwright-core, no downloaded browser) against a real
// dossier-server on 127.0.0.1 serving ui/dist: start a session, attach a text file through the
// page's file input (in a browser files travel as data: URLs), send, watch the offline model's
// reply stream in, reload and find the session in the sidebar. Screenshots go to
// tests/artifacts/browser-*.png.
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { spawn } from "node:child_process"
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const binary = process.env.DOSSIER_SERVER_BIN ?? path.join(root, "target/debug/dossier-server")
const artifacts = path.join(root, "tests/artifacts")
mkdirSync(artifacts, { recursive: true })

let server
let browser
let folder

async function startServer() {
  folder = mkdtempSync(path.join(os.tmpdir(), "dossier-browser-"))
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
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    },
  }
}

before(async () => {
  server = await startServer()
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  })
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

test("a browser session: attach a text file, send, see the reply stream in, find it after a reload", async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(server.baseUrl + "/")
  await page.getByTestId("new-session").click()
  await page.getByTestId("session-row").first().waitFor()

  const notes = path.join(folder, "notes.txt")
  writeFileSync(notes, "first line of my notes\nsecond line\nthird line\n")
  await page.locator('input[type="file"]').setInputFiles(notes)
  await page.getByTestId("attachment-chip").first().waitFor()
  const composer = page.locator("textarea").first()
  await composer.fill("What is in my notes?")
  await page.screenshot({ path: path.join(artifacts, "browser-1-composed.png") })
  await page.getByTestId("send").click()

  const userMessage = page.locator('[data-testid="message"][data-role="user"]').first()
  await userMessage.waitFor()
  assert.match(await userMessage.innerText(), /What is in my notes\?/)
  const reply = page.getByTestId("reply-text").first()
  await reply.waitFor({ timeout: 20_000 })
  await page.waitForFunction(() => (document.querySelector('[data-testid="reply-text"]')?.textContent ?? "").length > 40, null, { timeout: 20_000 })
  const replyText = await reply.innerText()
  assert.match(replyText, /offline/i, "the offline model says what it is")
  assert.match(replyText, /notes\.txt/, "the reply describes the attached file")
  await page.screenshot({ path: path.join(artifacts, "browser-2-replied.png") })

  await page.reload()
  const row = page.getByTestId("session-row").first()
  await row.waitFor()
  await row.click()
  await page.locator('[data-testid="message"][data-role="user"]').first().waitFor()
  assert.match(await page.getByTestId("reply-text").first().innerText(), /offline/i)
  await page.screenshot({ path: path.join(artifacts, "browser-3-after-reload.png") })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
})
