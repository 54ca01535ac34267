// Search in the browser against a real dossier-server: a word said three sessions ago is found
// with Ctrl+K and the conversation lands on that message, though it was never in the first
// page the conversation loaded; Ctrl+F steps through matches in the open session; the sidebar
// pins and archives several sessions at once. Screenshots go to tests/artifacts/browser-*.png.
import { test } from "node:test"
import assert from "node:assert/strict"
import path from "node:path"
import { artifacts, serverAndBrowser } from "./support.mjs"

const run = serverAndBrowser()

const api = run.api

async function say(sessionID, text) {
  const message = await api("POST", `/session/${sessionID}/message`, { noReply: true, parts: [{ type: "text", text }] })
  return message.info.id
}

/** Resolves once the element's top edge is inside the conversation's visible area. */
function inView(page, messageID) {
  return page.waitForFunction(
    (id) => {
      const slot = document.querySelector(`.message-slot[data-message-id="${id}"]`)
      const scroller = document.querySelector('[data-testid="conversation"]')
      if (!slot || !scroller) return false
      const box = slot.getBoundingClientRect()
      const view = scroller.getBoundingClientRect()
      return box.top >= view.top - 1 && box.bottom <= view.bottom + 1
    },
    messageID,
    { timeout: 10_000 },
  )
}

const countIs = (page, text) => page.waitForFunction((expected) => document.querySelector('[data-testid="find-count"]')?.textContent === expected, text)
const markedSays = (page, pattern) =>
  page.waitForFunction((source) => new RegExp(source).test(document.querySelector(".message-slot--marked")?.textContent ?? ""), pattern.source)

test("Ctrl+K finds a word said three sessions ago and lands on the message; Ctrl+F steps through matches", async () => {
  const first = await api("POST", "/session", { title: "Garden plans" })
  const target = await say(first.id, "Remember the word periwinkle: it names the blue flowers by the gate")
  // Long enough that the message is not in the first page the conversation loads (50).
  for (let index = 0; index < 64; index++) await say(first.id, `Garden note ${index}: water the roses and check the soil`)
  const second = await api("POST", "/session", { title: "Tax return" })
  await say(second.id, "Receipts for the tax return are in the blue folder")
  const third = await api("POST", "/session", { title: "Holiday" })
  await say(third.id, "Train tickets booked for Friday")

  const page = await run.browser.newPage({ viewport: { width: 1200, height: 800 } })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await page.locator(`[data-testid=session-row][data-session-id="${third.id}"] .session-open`).click()
  await page.locator('[data-testid="message"][data-role="user"]').first().waitFor()

  await page.keyboard.press("Control+k")
  const field = page.getByTestId("palette-input")
  await field.waitFor()
  assert.equal(await field.evaluate((element) => element === document.activeElement), true, "the palette's field has focus")
  await field.pressSequentially("periwinkle", { delay: 20 })
  const result = page.locator(`[data-testid=palette-result][data-message-id="${target}"]`)
  await result.waitFor()
  assert.equal(await page.getByTestId("palette-result").count(), 1)
  assert.equal(await result.locator("mark").first().innerText(), "periwinkle")
  assert.equal(await result.getAttribute("aria-selected"), "true")
  await page.screenshot({ path: path.join(artifacts, "browser-4-search-palette.png") })
  await page.keyboard.press("Enter")

  const landed = page.locator(`.message-slot--marked[data-message-id="${target}"]`)
  await landed.waitFor({ timeout: 10_000 })
  assert.match(await landed.innerText(), /Remember the word periwinkle/)
  assert.equal(await page.getByTestId("session-heading").innerText(), "Garden plans")
  await inView(page, target)
  await page.screenshot({ path: path.join(artifacts, "browser-5-landed-on-message.png") })

  await page.keyboard.press("Control+f")
  const find = page.getByTestId("find-input")
  await find.waitFor()
  await find.fill("roses")
  await countIs(page, "1 of 64")
  await markedSays(page, /Garden note 63:/)
  await find.press("Enter")
  await countIs(page, "2 of 64")
  await markedSays(page, /Garden note 62:/)
  await find.press("Shift+Enter")
  await markedSays(page, /Garden note 63:/)
  await find.fill("periwinkle")
  await countIs(page, "1 of 1")
  await markedSays(page, /Remember the word periwinkle/)
  await inView(page, target)
  await page.screenshot({ path: path.join(artifacts, "browser-6-find-in-session.png") })
  await find.press("Escape")
  await page.getByTestId("find-bar").waitFor({ state: "detached" })
  assert.equal(await page.locator(".message-slot--marked").count(), 0)

  // The same palette in the dark scheme, for the screenshot.
  await page.emulateMedia({ colorScheme: "dark" })
  await page.keyboard.press("Control+k")
  await page.getByTestId("palette-input").fill("roses")
  await page.getByTestId("palette-result").first().waitFor()
  await page.screenshot({ path: path.join(artifacts, "browser-8-search-palette-dark.png") })
  await page.keyboard.press("Escape")
  await page.getByTestId("search-palette").waitFor({ state: "detached" })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
})

test("the sidebar pins a session to the top and archives two at once", async () => {
  const sessions = []
  for (const title of ["Pin one", "Pin two", "Pin three"]) sessions.push(await api("POST", "/session", { title }))
  const page = await run.browser.newPage({ viewport: { width: 1200, height: 800 } })
  await page.goto(run.server.baseUrl + "/")
  const row = (session) => page.locator(`[data-testid=session-row][data-session-id="${session.id}"]`)
  const topTitle = (title) => page.waitForFunction((expected) => document.querySelector("[data-testid=session-row] .session-title")?.textContent === expected, title)
  await row(sessions[0]).hover()
  await row(sessions[0]).getByTestId("pin-session").click()
  await topTitle("Pin one")
  await page.reload()
  await topTitle("Pin one")
  // Ctrl-click starts choosing several; the tick boxes then show.
  await row(sessions[1]).locator(".session-open").click({ modifiers: ["Control"] })
  await row(sessions[2]).getByTestId("session-check").check()
  assert.equal(await page.getByTestId("bulk-count").innerText(), "2 selected")
  await page.screenshot({ path: path.join(artifacts, "browser-7-sidebar-selection.png") })
  // Delete asks first; keeping them changes nothing.
  await page.getByTestId("bulk-delete").click()
  await page.getByTestId("bulk-delete-confirm").waitFor()
  await page.screenshot({ path: path.join(artifacts, "browser-7b-sidebar-delete-asks.png") })
  await page.getByRole("button", { name: "Keep" }).click()
  await page.getByTestId("bulk-archive").click()
  await page.getByTestId("bulk-bar").waitFor({ state: "detached" })
  const titles = await page.locator("[data-testid=session-row] .session-title").allInnerTexts()
  assert.equal(titles[0], "Pin one")
  assert.ok(!titles.includes("Pin two") && !titles.includes("Pin three"), titles.join(", "))
  const archived = await api("GET", "/session?archived=true")
  assert.deepEqual(
    archived.filter((session) => session.time.archived !== undefined).map((session) => session.title).sort(),
    ["Pin three", "Pin two"],
  )
})
