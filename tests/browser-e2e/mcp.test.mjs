// Settings → MCP servers in the browser against a real dossier-server: a person adds the real
// everything server (from npm, installed by scripts/install-mcp-test-servers.sh) with an
// environment value (a `{env:NAME}` reference: the test machine has no keychain, and a typed
// value's way into the keychain is the core's tests' subject), sees it connect with its counts,
// disconnects and connects it again. Then the composer: one of the server's resources attached
// through the Resources picker (search, arrows, Enter) and sent (the server reads it: OpenCode's
// "Reading MCP resource: …" and the document's text land in the message), and a `/` prompt with
// a required argument expanded into the message. Screenshots: tests/artifacts/browser-mcp*.png.
import { test } from "node:test"
import assert from "node:assert/strict"
import fs from "node:fs"
import path from "node:path"
import { artifacts, openNewSession, root, serverAndBrowser } from "./support.mjs"

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

/** The everything server configured and connected, whichever test of the file runs first. */
async function everythingConnected() {
  const settings = await run.api("GET", "/dossier/mcp/settings")
  if (!settings.servers.some((server) => server.name === "everything")) {
    await run.api("POST", "/dossier/mcp/settings", { name: "everything", kind: "local", command: ["node", everything, "stdio"], timeout: 30000 })
  }
  for (let tries = 0; tries < 600; tries += 1) {
    const statuses = await run.api("GET", "/mcp")
    if (statuses.everything?.status === "connected") return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.fail("the everything server never connected")
}

test("a resource attached through the picker is read by its server; a / prompt fills the message", { skip: !fs.existsSync(everything) && "run scripts/install-mcp-test-servers.sh" }, async () => {
  await everythingConnected()
  const page = await run.browser.newPage({ viewport: { width: 1200, height: 900 } })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await openNewSession(page)

  await page.getByTestId("attach-resource").click()
  const search = page.getByTestId("resource-search")
  await search.waitFor()
  await page.getByTestId("resource-option").first().waitFor({ timeout: 20_000 })
  await search.fill("static document")
  const options = page.getByTestId("resource-option")
  const uris = await options.evaluateAll((items) => items.map((item) => item.getAttribute("data-uri")))
  assert.ok(uris.length >= 2 && uris.every((uri) => uri.startsWith("demo://resource/static/document/")), JSON.stringify(uris))
  await search.fill("architecture")
  assert.deepEqual(await options.evaluateAll((items) => items.map((item) => item.getAttribute("data-uri"))), ["demo://resource/static/document/architecture.md"])
  await search.press("ArrowDown")
  await search.press("Enter")
  const chip = page.getByTestId("attachment-chip").first()
  await chip.waitFor()
  assert.match(await chip.innerText(), /architecture\.md[\s\S]*Resource of everything/)
  const composer = page.locator("textarea").first()
  // Choosing closed the picker and gave the focus back to the message.
  assert.equal(await page.getByTestId("resource-picker").count(), 0)
  assert.equal(await page.evaluate(() => document.activeElement?.id), "composer-input")
  await composer.fill("Summarise the attached architecture")
  await page.screenshot({ path: path.join(artifacts, "browser-mcp-resource.png") })
  await page.getByTestId("send").click()
  await page.locator('[data-testid="message"][data-role="user"]').first().waitFor()

  const sessions = await run.api("GET", "/session")
  const messages = await run.api("GET", `/session/${sessions[0].id}/message`)
  const user = messages.find((message) => message.info.role === "user")
  const texts = user.parts.filter((part) => part.type === "text").map((part) => part.text)
  assert.ok(texts.includes("Reading MCP resource: architecture.md (demo://resource/static/document/architecture.md)"), JSON.stringify(texts))
  assert.ok(texts.some((text) => text.startsWith("# Everything Server – Architecture")), JSON.stringify(texts))
  const file = user.parts.find((part) => part.type === "file")
  assert.deepEqual(file.source, { type: "resource", text: { value: "", start: 0, end: 0 }, clientName: "everything", uri: "demo://resource/static/document/architecture.md" })

  // The / menu: filter, choose a prompt with a required argument, fill it in.
  await page.getByTestId("reply-text").first().waitFor({ timeout: 20_000 })
  await composer.fill("/args")
  const menu = page.getByTestId("prompt-menu")
  await menu.waitFor()
  assert.deepEqual(await page.getByTestId("prompt-option").evaluateAll((items) => items.map((item) => item.getAttribute("data-name"))), ["everything:args-prompt"])
  await composer.press("Enter")
  const form = page.getByTestId("prompt-arguments")
  await form.waitFor()
  await page.getByTestId("prompt-insert").click()
  await form.getByText("Fill in: city").waitFor()
  await page.getByTestId("prompt-argument").first().fill("Lisbon")
  await page.getByTestId("prompt-insert").click()
  await page.waitForFunction(() => document.querySelector("textarea")?.value === "What's weather in Lisbon?", null, { timeout: 20_000 })
  assert.equal(await page.evaluate(() => document.activeElement?.id), "composer-input")
  await page.screenshot({ path: path.join(artifacts, "browser-mcp-prompt.png") })
  await composer.press("Enter")
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="message"][data-role="user"]')].some((item) => item.textContent?.includes("What's weather in Lisbon?")), null, { timeout: 20_000 })
  assert.deepEqual(problems, [])
  await page.close()
})

/** Adds a local server through the Settings form. */
async function addThroughSettings(page, name, commandLine) {
  await page.getByTestId("mcp-add").click()
  const form = page.getByTestId("mcp-form")
  await form.locator('input[name="name"]').fill(name)
  await form.locator('input[name="command"]').fill(commandLine)
  await page.getByTestId("mcp-save").click()
  await form.waitFor({ state: "detached" })
}

// A missing script: the card's headline says Node's own reason without opening the trace, and
// the card holds its text (nothing runs past its edge or under its buttons). A name with a space
// is accepted. Screenshots: tests/artifacts/browser-mcp-failed-light.png and -dark.png.
test("a server whose script is missing says why in its headline; a name with a space is accepted", async () => {
  const page = await run.browser.newPage({ viewport: { width: 900, height: 900 } })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await page.getByTestId("open-settings").click()
  await page.getByTestId("mcp-settings").waitFor()

  await addThroughSettings(page, "broken", "node /nonexistent/server.js")
  const broken = statusOf(page, "broken")
  await page.waitForSelector('[data-testid="mcp-server"][data-name="broken"][data-status="failed"]', { timeout: 30_000 })
  const headline = broken.getByTestId("mcp-status")
  assert.equal(await headline.textContent(), "Failed: The MCP server could not start: Error: Cannot find module '/nonexistent/server.js'")
  assert.ok(await headline.isVisible())
  const trace = broken.getByTestId("mcp-stderr")
  assert.equal(await trace.evaluate((details) => details.open), false, "the cause is read without opening the trace")

  // Opened, the trace stays inside the card and clear of the buttons.
  await trace.locator("summary").click()
  const geometry = await broken.evaluate((card) => {
    const box = (element) => element.getBoundingClientRect()
    const pre = card.querySelector(".mcp-stderr pre")
    return {
      card: box(card),
      facts: box(card.querySelector(".provider-facts")),
      actions: box(card.querySelector(".provider-actions")),
      pre: box(pre),
      preOverflows: pre.scrollWidth > pre.clientWidth + 1,
    }
  })
  assert.ok(geometry.pre.right <= geometry.card.right && geometry.facts.right <= geometry.card.right, JSON.stringify(geometry))
  const apart = (one, other) => one.right <= other.left || other.right <= one.left || one.bottom <= other.top || other.bottom <= one.top
  assert.ok(apart(geometry.pre, geometry.actions) && apart(geometry.facts, geometry.actions), `the trace or the facts run under the buttons: ${JSON.stringify(geometry)}`)
  assert.equal(geometry.preOverflows, false, "the trace's long lines wrap")
  await broken.screenshot({ path: path.join(artifacts, "browser-mcp-failed-light.png") })
  await page.evaluate(() => {
    document.documentElement.dataset.theme = "dark"
  })
  await broken.screenshot({ path: path.join(artifacts, "browser-mcp-failed-dark.png") })
  await page.evaluate(() => {
    document.documentElement.dataset.theme = "light"
  })

  await addThroughSettings(page, "My files", "node /nonexistent/files.js")
  await page.waitForSelector('[data-testid="mcp-server"][data-name="My files"]')
  assert.equal(await page.getByTestId("mcp-error").count(), 0)
  const settings = await run.api("GET", "/dossier/mcp/settings")
  assert.ok(settings.servers.some((server) => server.name === "My files"), JSON.stringify(settings.servers.map((server) => server.name)))

  // The form itself: the checkbox on its label's line, the environment framed like the fields.
  await page.getByTestId("mcp-add").click()
  const form = page.getByTestId("mcp-form")
  const layout = await form.evaluate((element) => {
    const checkbox = element.querySelector('input[name="enabled"]').getBoundingClientRect()
    const label = element.querySelector(".checkbox-label").getBoundingClientRect()
    const fieldset = getComputedStyle(element.querySelector(".mcp-values"))
    const input = getComputedStyle(element.querySelector('input[name="name"]'))
    return { checkboxTop: checkbox.top, checkboxBottom: checkbox.bottom, labelHeight: label.height, fieldsetBorder: fieldset.borderTopStyle + " " + fieldset.borderTopColor, inputBorder: input.borderTopStyle + " " + input.borderTopColor }
  })
  assert.ok(layout.labelHeight < 2 * (layout.checkboxBottom - layout.checkboxTop) + 8, `the checkbox sits on its label's line: ${JSON.stringify(layout)}`)
  assert.equal(layout.fieldsetBorder, layout.inputBorder)
  await form.screenshot({ path: path.join(artifacts, "browser-mcp-form.png") })
  await page.getByTestId("mcp-form").getByRole("button", { name: "Cancel" }).click()

  for (const name of ["broken", "My files"]) await run.api("DELETE", `/dossier/mcp/settings/${encodeURIComponent(name)}`)
  assert.deepEqual(problems, [])
  await page.close()
})
