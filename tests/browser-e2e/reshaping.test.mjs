// Undo, redo, edit and resend, fork, export, import and deleting a message in Debian's chromium against a real
// dossier-server with the offline model: every step through the page's own buttons, the
// export as a real browser download, the import through the page's file input.
// Screenshots go to tests/artifacts/browser-reshaping-*.png.
import { test } from "node:test"
import assert from "node:assert/strict"
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { artifacts, openNewSession, serverAndBrowser } from "./support.mjs"

const run = serverAndBrowser()

const userTexts = (page) => page.locator('[data-testid="message"][data-role="user"] .user-text').allInnerTexts()

async function say(page, text) {
  const replies = await page.getByTestId("reply-text").count()
  const composer = page.getByRole("textbox", { name: "Message" })
  await composer.fill(text)
  await composer.press("Enter")
  await page.getByTestId("reply-text").nth(replies).waitFor({ timeout: 20_000 })
  await page.getByTestId("undo").and(page.locator(":enabled")).waitFor({ timeout: 20_000 })
}

test("undo, redo, edit and resend, fork, export and import a session, and delete a message", async () => {
  const page = await run.browser.newPage({ viewport: { width: 1200, height: 800 }, acceptDownloads: true })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await openNewSession(page)
  await say(page, "first question")
  await say(page, "second question")
  assert.deepEqual(await userTexts(page), ["first question", "second question"])

  // Undo: the last turn is hidden, its text is back in the composer.
  await page.getByTestId("undo").click()
  await page.getByTestId("undone").waitFor()
  assert.deepEqual(await userTexts(page), ["first question"])
  assert.equal(await page.getByRole("textbox", { name: "Message" }).inputValue(), "second question")
  await page.screenshot({ path: path.join(artifacts, "browser-reshaping-1-undone.png") })

  // Redo: it comes back.
  await page.getByTestId("redo").click()
  await page.getByTestId("undone").waitFor({ state: "detached" })
  assert.deepEqual(await userTexts(page), ["first question", "second question"])
  await page.getByRole("textbox", { name: "Message" }).fill("")

  // Edit the first message and send it again: everything after it is replaced.
  const first = page.locator(".message-slot").filter({ hasText: "first question" }).first()
  await first.hover()
  await first.getByTestId("edit").click()
  const editor = page.getByRole("textbox", { name: "Edit" })
  await editor.fill("first question, edited")
  await page.screenshot({ path: path.join(artifacts, "browser-reshaping-2-editing.png") })
  await editor.press("Enter")
  await page.waitForFunction(() => {
    const texts = [...document.querySelectorAll('[data-testid="message"][data-role="user"] .user-text')].map((node) => node.textContent)
    return texts.length === 1 && texts[0] === "first question, edited"
  }, null, { timeout: 20_000 })
  await page.getByTestId("reply-text").first().waitFor()

  // Export as Markdown (in the header's "More actions" menu): a real download named after the session.
  await page.getByTestId("session-menu").click()
  const [markdownDownload] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-markdown").click()])
  assert.match(markdownDownload.suggestedFilename(), /\.md$/)
  const markdown = readFileSync(await markdownDownload.path(), "utf8")
  assert.match(markdown, /first question, edited/)
  assert.doesNotMatch(markdown, /second question/, "the undone turn was removed for good by the resend")

  await page.getByTestId("session-menu").click()
  const [jsonDownload] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-json").click()])
  const exportedPath = path.join(run.server.folder, "exported.json")
  await jsonDownload.saveAs(exportedPath)
  assert.equal(JSON.parse(readFileSync(exportedPath, "utf8")).messages.length, 2)

  // Fork the whole session: a new session opens with the same messages.
  const heading = page.getByTestId("session-heading")
  const title = await heading.innerText()
  await page.getByTestId("session-menu").click()
  await page.getByTestId("fork-session").click()
  await page.waitForFunction((before) => document.querySelector('[data-testid="session-heading"]')?.textContent === `${before} (fork #1)`, title)
  await page.locator('[data-testid="message"][data-role="user"]').first().waitFor()
  assert.deepEqual(await userTexts(page), ["first question, edited"])

  // Import the JSON export: another new session, same conversation.
  await page.getByTestId("import-file").setInputFiles(exportedPath)
  await page.waitForFunction((before) => document.querySelector('[data-testid="session-heading"]')?.textContent === before, title)
  await page.locator('[data-testid="message"][data-role="user"]').first().waitFor()
  assert.deepEqual(await userTexts(page), ["first question, edited"])
  assert.equal(await page.getByTestId("session-row").count(), 3)
  await page.screenshot({ path: path.join(artifacts, "browser-reshaping-3-imported.png") })

  // Delete the imported session's reply for good, after saying yes.
  const reply = page.locator(".message-slot").filter({ has: page.getByTestId("reply-text") }).first()
  await reply.hover()
  await reply.getByTestId("delete-message").click()
  await reply.getByRole("alertdialog").waitFor()
  await page.screenshot({ path: path.join(artifacts, "browser-reshaping-4-delete-asks.png") })
  await reply.getByTestId("delete-message-confirm").click()
  await page.getByTestId("reply-text").waitFor({ state: "detached" })
  assert.deepEqual(await userTexts(page), ["first question, edited"])
  assert.deepEqual(problems, [], "no uncaught errors in the page")
})

/** The open session's id (the selected sidebar row). */
const openSessionId = (page) => page.evaluate(() => document.querySelector(".session-row--selected")?.dataset.sessionId)

/**
 * What the server has stored for a session, read through its HTTP API: each message's id and
 * role, the words you typed (not the context the server added) and the names of the files sent.
 */
async function stored(sessionId) {
  const messages = await run.api("GET", `/session/${sessionId}/message`)
  return messages.map(({ info, parts }) => ({
    id: info.id,
    role: info.role,
    text: parts.filter((part) => part.type === "text" && part.synthetic !== true).map((part) => part.text).join("\n"),
    files: parts.filter((part) => part.type === "file").map((part) => part.filename),
  }))
}

/** The exchanges as a person would list them: each prompt and whether a reply follows it. */
const exchanges = (messages) =>
  messages.flatMap((message, index) => (message.role === "user" ? [{ prompt: message.text, files: message.files, answered: messages[index + 1]?.role === "assistant" }] : []))

async function undoOnce(page, hidden) {
  await page.getByTestId("undo").and(page.locator(":enabled")).click()
  await page.waitForFunction((count) => (document.querySelector('[data-testid="undone"]')?.textContent ?? "").includes(`${count} undone`), hidden)
}

test("Undo ×2, Redo ×1, Send: the composer held the still-undone second prompt, so each exchange is stored once", async () => {
  const page = await run.browser.newPage({ viewport: { width: 1200, height: 800 } })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await openNewSession(page)
  const notes = path.join(run.server.folder, "redo-notes.txt")
  writeFileSync(notes, "one\ntwo\n")
  await page.getByTestId("attach-file-input").setInputFiles(notes)
  await page.getByTestId("attachment-chip").first().waitFor()
  await say(page, "first question")
  await say(page, "second question")
  const sessionId = await openSessionId(page)
  const [firstPrompt, firstReply] = await stored(sessionId)
  const composer = page.getByRole("textbox", { name: "Message" })
  const chips = page.getByTestId("attachment-chip")

  await undoOnce(page, 2)
  await undoOnce(page, 4)
  assert.equal(await composer.inputValue(), "first question")
  assert.equal(await chips.count(), 1, "Undo brought back the first prompt's file")

  // Redo brings the first exchange back, and takes its prompt and file out of the composer:
  // what is there now is the second prompt, which is still undone.
  await page.getByTestId("redo").click()
  await page.waitForFunction(() => (document.querySelector('[data-testid="undone"]')?.textContent ?? "").includes("2 undone"))
  assert.deepEqual(await userTexts(page), ["first question"])
  await page.waitForFunction(() => document.querySelector("textarea")?.value === "second question")
  assert.equal(await chips.count(), 0, "the first prompt's file left the composer with it")
  await page.screenshot({ path: path.join(artifacts, "browser-reshaping-5-redo-composer.png") })

  await say(page, await composer.inputValue())
  const after = await stored(sessionId)
  assert.deepEqual(exchanges(after), [
    { prompt: "first question", files: ["redo-notes.txt"], answered: true },
    { prompt: "second question", files: [], answered: true },
  ])
  assert.deepEqual(after.slice(0, 2).map((message) => message.id), [firstPrompt.id, firstReply.id], "the first exchange is the same one, not sent again")
  assert.deepEqual(await userTexts(page), ["first question", "second question"])
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

test("Undo ×1, Redo ×1, Send: the draft being written comes back and is the only thing added", async () => {
  const page = await run.browser.newPage({ viewport: { width: 1200, height: 800 } })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await openNewSession(page)
  await say(page, "first question")
  await say(page, "second question")
  const sessionId = await openSessionId(page)
  const before = await stored(sessionId)
  const composer = page.getByRole("textbox", { name: "Message" })
  await composer.fill("a third thought")

  await undoOnce(page, 2)
  assert.equal(await composer.inputValue(), "second question")
  await page.getByTestId("redo").click()
  await page.getByTestId("undone").waitFor({ state: "detached" })
  await page.waitForFunction(() => document.querySelector("textarea")?.value === "a third thought")

  await say(page, await composer.inputValue())
  const after = await stored(sessionId)
  assert.deepEqual(exchanges(after).map((exchange) => exchange.prompt), ["first question", "second question", "a third thought"])
  assert.ok(exchanges(after).every((exchange) => exchange.answered), "every prompt has its reply")
  assert.deepEqual(after.slice(0, before.length).map((message) => message.id), before.map((message) => message.id), "nothing stored before was removed")
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})
