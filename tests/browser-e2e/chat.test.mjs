// The web UI in Debian's chromium (playwright-core, no downloaded browser) against a real
// dossier-server on 127.0.0.1 serving ui/dist: start a session, attach a text file through the
// page's file input (in a browser files travel as data: URLs), send, watch the offline model's
// reply stream in, reload and find the session in the sidebar; words typed but not sent survive
// a reload. Screenshots go to tests/artifacts/browser-*.png.
import { test } from "node:test"
import assert from "node:assert/strict"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { artifacts, openNewSession, serverAndBrowser } from "./support.mjs"

const run = serverAndBrowser()

test("a browser session: attach a text file, send, see the reply stream in, find it after a reload", async () => {
  const page = await run.browser.newPage({ viewport: { width: 1200, height: 800 } })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await openNewSession(page)

  const notes = path.join(run.server.folder, "notes.txt")
  writeFileSync(notes, "first line of my notes\nsecond line\nthird line\n")
  await page.getByTestId("attach-file-input").setInputFiles(notes)
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
  // The attached three-line file (ending in a newline) is counted as three lines, not four.
  assert.match(await page.locator("[data-testid=context] summary").first().innerText(), /notes\.txt.*3 lines/)
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

  // Words not sent yet survive a reload (the session reopens with its draft).
  await composer.fill("A question for later")
  await page.reload()
  await page.waitForFunction(() => document.querySelector("textarea")?.value === "A question for later", null, { timeout: 10_000 })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
})
