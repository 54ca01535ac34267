// Settings → MCP servers in the browser against a real dossier-server: a person adds the real
// everything server (from npm, installed by scripts/install-mcp-test-servers.sh) with an
// environment value (a `{env:NAME}` reference: the test machine has no keychain, and a typed
// value's way into the keychain is the core's tests' subject), sees it connect with its counts,
// disconnects and connects it again. Screenshot: tests/artifacts/browser-mcp.png.
import { test } from "node:test"
import assert from "node:assert/strict"
import fs from "node:fs"
import path from "node:path"
import { artifacts, root, serverAndBrowser } from "./support.mjs"

const run = serverAndBrowser()
const everything = path.join(root, "tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")

const statusOf = (page, name) => page.locator(`[data-testid="mcp-server"][data-name="${name}"]`)

test("a server added in Settings connects, disconnects and connects again", { skip: !fs.existsSync(everything) && "run scripts/install-mcp-test-servers.sh" }, async () => {
  const page = await run.browser.newPage({ viewport: { width: 1200, height: 900 } })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await page.getByTestId("open-settings").click()
  await page.getByTestId("mcp-settings").waitFor()

  await page.getByTestId("mcp-add").click()
  const form = page.getByTestId("mcp-form")
  await form.locator('input[name="name"]').fill("everything")
  await form.locator('input[name="command"]').fill(`node "${everything}" stdio`)
  await page.getByTestId("mcp-value-add").click()
  await form.locator('input[name="value-name"]').fill("DOSSIER_TOKEN")
  await form.locator('input[name="value-value"]').fill("{env:HOME}")
  await form.locator('input[name="timeout"]').fill("30000")
  await page.getByTestId("mcp-save").click()

  const row = statusOf(page, "everything")
  await page.waitForSelector('[data-testid="mcp-server"][data-name="everything"][data-status="connected"]', { timeout: 60_000 })
  assert.match(await row.getByTestId("mcp-status").textContent(), /^Connected: \d+ tools, \d+ resources, \d+ prompts$/)

  await row.getByTestId("mcp-disconnect").click()
  await page.waitForSelector('[data-testid="mcp-server"][data-name="everything"][data-status="disabled"]')
  assert.equal(await row.getByTestId("mcp-status").textContent(), "Disconnected")
  await row.getByTestId("mcp-connect").click()
  await page.waitForSelector('[data-testid="mcp-server"][data-name="everything"][data-status="connected"]', { timeout: 60_000 })

  const statuses = await run.api("GET", "/mcp")
  assert.equal(statuses.everything.status, "connected")
  const settings = await run.api("GET", "/dossier/mcp/settings")
  assert.deepEqual(settings.servers[0].values, [{ name: "DOSSIER_TOKEN", source: { type: "environment", variable: "HOME" } }])
  assert.deepEqual(settings.servers[0].command, ["node", everything, "stdio"])

  await page.screenshot({ path: path.join(artifacts, "browser-mcp.png"), fullPage: true })
  assert.deepEqual(problems, [])
  await page.close()
})
