// The conversation as a person uses it (issue 13), in Debian's chromium against a real
// dossier-server whose model is a scripted OpenAI-compatible provider on 127.0.0.1 (slow,
// long or link-carrying replies on demand): stopping a reply, links, following the newest
// message. Screenshots go to tests/artifacts/browser-conversation-*.png.
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { mkdtempSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { startServer } from "../sdk-compat/server.mjs"
import { startScriptedProvider } from "./scripted-provider.mjs"
import { artifacts, callApi, focused, launchBrowser, noSeriousViolations, openNewSession, root } from "./support.mjs"

const run = { provider: undefined, server: undefined, browser: undefined }
before(async () => {
  run.provider = await startScriptedProvider()
  const folder = mkdtempSync(path.join(os.tmpdir(), "dossier-browser-"))
  run.server = { ...(await startServer(folder, { config: run.provider.config, ui: path.join(root, "ui/dist") })), folder }
  run.browser = await launchBrowser()
})
after(async () => {
  await run.browser?.close()
  await run.server?.stop()
  await run.provider?.stop()
})

async function freshSession(viewport = { width: 1280, height: 800 }) {
  const page = await run.browser.newPage({ viewport })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await openNewSession(page)
  return { page, problems }
}

async function send(page, text) {
  const composer = page.getByRole("textbox", { name: "Message" })
  await composer.fill(text)
  await composer.press("Enter")
}

test("a stopped reply is marked quietly as stopped, its text kept, with Continue and Regenerate", async () => {
  const { page, problems } = await freshSession()
  await send(page, "please be slow")
  await page.waitForFunction(() => /word5 /.test(document.querySelector('[data-testid="reply-text"]')?.textContent ?? ""), null, { timeout: 20_000 })
  await page.getByTestId("stop").click()
  const stopped = page.getByTestId("reply-stopped")
  await stopped.waitFor({ timeout: 10_000 })
  assert.equal(await stopped.innerText(), "Stopped")
  const reply = await page.getByTestId("reply-text").first().innerText()
  assert.match(reply, /word0 word1/, "the text streamed before Stop is kept")
  assert.doesNotMatch(reply, /word299/, "the reply really stopped")
  assert.equal(await page.getByRole("alert").count(), 0, "no failure is shown")
  assert.equal(await page.getByText(/failed|aborted/i).count(), 0, "no failure wording")
  const slot = page.locator(".message-slot").filter({ has: stopped })
  await slot.hover()
  assert.equal(await slot.getByTestId("regenerate").innerText(), "Regenerate")
  assert.equal(await slot.getByTestId("continue").innerText(), "Continue")
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-1-stopped.png") })

  // Continue sends a follow-up and a new reply streams in.
  await slot.getByTestId("continue").click()
  await page.getByTestId("reply-text").nth(1).waitFor({ timeout: 20_000 })
  await page.waitForFunction(() => /scripted model/.test(document.querySelectorAll('[data-testid="reply-text"]')[1]?.textContent ?? ""), null, { timeout: 20_000 })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

test("a link in a reply opens in a new tab cut off from the app; a file: link opens nothing", async () => {
  const { page, problems } = await freshSession()
  const context = page.context()
  await context.route("https://example.com/**", (route) => route.fulfill({ contentType: "text/html", body: "<title>Guide</title>the guide" }))
  await send(page, "show me links")
  const reply = page.getByTestId("reply-text").first()
  await reply.getByText("a script").waitFor({ timeout: 20_000 })
  // The scripted model has no price: its replies show tokens, not "$0.0000".
  const usage = page.getByTestId("usage").first()
  await usage.waitFor({ timeout: 20_000 })
  assert.match(await usage.innerText(), /^\d+ in · \d+ out$/)
  const appUrl = page.url()
  const guide = reply.getByRole("link", { name: "the guide" })
  assert.equal(await guide.getAttribute("rel"), "noopener noreferrer")
  const [tab] = await Promise.all([context.waitForEvent("page", { timeout: 10_000 }), guide.click()])
  await tab.waitForLoadState()
  assert.equal(tab.url(), "https://example.com/guide", "the link opened in a new tab")
  assert.equal(await tab.evaluate(() => window.opener), null, "the new tab has no handle on the app")
  await tab.close()
  assert.equal(page.url(), appUrl, "the app's own view stayed where it was")

  // file: and javascript: links are words, not links: clicking them opens nothing.
  const pagesBefore = context.pages().length
  await reply.getByText("this local file").click()
  await reply.getByText("a script").click()
  await page.waitForTimeout(500)
  assert.equal(context.pages().length, pagesBefore, "no tab opened")
  assert.equal(page.url(), appUrl)
  assert.equal(await reply.locator("a[href]").count(), 1, "only the https link is a link")
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-2-links.png") })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

/** A session of `count` messages you sent (no replies), of uneven heights, made over HTTP. */
async function seededSession(count, title) {
  const session = await callApi(run.server.baseUrl, "POST", "/session", { title })
  for (let index = 0; index < count; index++) {
    const lines = Array.from({ length: 1 + (index % 7) }, (_, line) => `message ${index} line ${line}`).join("\n")
    await callApi(run.server.baseUrl, "POST", `/session/${session.id}/message`, { noReply: true, parts: [{ type: "text", text: lines }] })
  }
  return session
}

/** How far the conversation is from its bottom, in pixels. */
const distanceFromBottom = (page) =>
  page.getByTestId("conversation").evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight)

/**
 * Waits (up to five seconds) for the view to settle within `pixels` of the bottom, then asserts
 * it did. Rows are measured as they render, so on a loaded machine the last adjustment can land
 * after a fixed pause; a view that never gets there still fails, with the distance it stopped at.
 */
async function assertSettlesAtBottom(page, pixels, message) {
  await page
    .getByTestId("conversation")
    .evaluate(
      (element, pixels) =>
        new Promise((resolve) => {
          const started = performance.now()
          const check = () => {
            const distance = element.scrollHeight - element.scrollTop - element.clientHeight
            if (distance <= pixels || performance.now() - started > 5_000) resolve(undefined)
            else requestAnimationFrame(check)
          }
          check()
        }),
      pixels,
    )
  const distance = await distanceFromBottom(page)
  assert.ok(distance <= pixels, `${message} (was ${distance} px short)`)
}

test("a long session opens on its newest message, stays pinned while a reply streams, and offers Jump to newest when scrolled up", async () => {
  await seededSession(400, "Long history")
  const { page, problems } = await freshSession()
  await page.getByTestId("session-row").filter({ hasText: "Long history" }).click()
  const newest = page.locator(".message-slot").filter({ hasText: "message 399 line 0" })
  await newest.waitFor({ timeout: 20_000 })
  await assertSettlesAtBottom(page, 2, "opened at the bottom")
  const box = await newest.boundingBox()
  const view = await page.getByTestId("conversation").boundingBox()
  assert.ok(box.y + box.height <= view.y + view.height + 1 && box.y >= view.y - 1, "the newest message is fully in view")
  assert.equal(await page.getByTestId("jump-to-newest").count(), 0)
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-3-opened-at-newest.png") })

  // A long reply streams: the view follows it.
  await send(page, "write a long answer")
  await page.waitForFunction(() => /Line 30 /.test([...document.querySelectorAll('[data-testid="reply-text"]')].at(-1)?.textContent ?? ""), null, { timeout: 20_000 })
  for (let sample = 0; sample < 3; sample++) {
    assert.ok((await distanceFromBottom(page)) <= 45, "pinned to the bottom while the reply streams")
    await page.waitForTimeout(300)
  }
  await page.getByTestId("stop").waitFor({ state: "detached", timeout: 30_000 })
  await assertSettlesAtBottom(page, 2, "still at the bottom when the reply ends")

  // Scrolled up while another reply streams: the view stays where the reader put it.
  await send(page, "another long answer please")
  await page.waitForFunction(() => /Line 10 /.test([...document.querySelectorAll('[data-testid="reply-text"]')].at(-1)?.textContent ?? ""), null, { timeout: 20_000 })
  const conversation = page.getByTestId("conversation")
  await conversation.hover()
  await page.mouse.wheel(0, -1500)
  const jump = page.getByTestId("jump-to-newest")
  await jump.waitFor({ timeout: 5_000 })
  const heldAt = await conversation.evaluate((element) => element.scrollTop)
  await page.waitForTimeout(800)
  assert.ok(Math.abs((await conversation.evaluate((element) => element.scrollTop)) - heldAt) <= 2, "the reader's place is held while the reply grows")
  assert.ok((await distanceFromBottom(page)) > 500)
  assert.ok(await jump.isVisible(), "Jump to newest is visible")
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-4-jump-to-newest.png") })
  await jump.click()
  await assertSettlesAtBottom(page, 45, "Jump to newest lands at the bottom")
  await jump.waitFor({ state: "detached" })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

test("older messages load as the reader scrolls up, holding what they look at in place, down to the first", async () => {
  await seededSession(300, "Paged history")
  const { page, problems } = await freshSession()
  // Older pages take a moment to arrive, so the page can be read before and after one lands.
  let olderPages = 0
  await page.route(/\/message\?.*before=/, async (route) => {
    olderPages++
    await new Promise((resolve) => setTimeout(resolve, 700))
    await route.continue()
  })
  await page.getByTestId("session-row").filter({ hasText: "Paged history" }).click()
  await page.locator(".message-slot").filter({ hasText: "message 299 line 0" }).waitFor({ timeout: 20_000 })
  const conversation = page.getByTestId("conversation")
  await conversation.hover()

  const topSlot = () => conversation.evaluate((element) => {
    const top = element.getBoundingClientRect().top
    const slot = [...element.querySelectorAll(".message-slot")].find((candidate) => candidate.getBoundingClientRect().bottom > top + 60)
    return { id: slot.dataset.messageId, index: Number(slot.dataset.index), y: slot.getBoundingClientRect().top }
  })
  const slotNow = (id) => conversation.evaluate((element, id) => {
    const slot = element.querySelector(`.message-slot[data-message-id="${id}"]`)
    return slot === null ? undefined : { index: Number(slot.dataset.index), y: slot.getBoundingClientRect().top }
  }, id)
  const firstShown = () => page.locator(".message-slot").filter({ hasText: "message 0 line 0" }).count()
  let checked = 0
  for (let step = 0; step < 100 && (await firstShown()) === 0; step++) {
    const requested = olderPages
    await page.mouse.wheel(0, -800)
    await page.waitForTimeout(250)
    if (olderPages === requested) continue
    // A page was asked for and is on its way: what the reader sees now must stay put.
    const seen = await topSlot()
    await page.waitForFunction(() => !document.querySelector('[data-testid="load-older"]')?.disabled, null, { timeout: 10_000 })
    await page.waitForTimeout(150)
    const now = await slotNow(seen.id)
    assert.ok(now !== undefined && now.index >= seen.index + 50, "the page arrived above the message in view")
    assert.ok(Math.abs(now.y - seen.y) <= 4, `the message in view stayed put when a page loaded above (moved ${now.y - seen.y} px)`)
    checked++
  }
  assert.equal(await firstShown(), 1, "scrolling up reached the first message")
  assert.ok(checked >= 3, `page loads were seen while scrolling (${checked})`)
  assert.equal(olderPages, 5, "every older page was fetched once, none by a click")
  await page.getByTestId("load-older").waitFor({ state: "detached" })
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-5-scrolled-to-first.png") })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

test("undo and fork from here bring back the attached files as chips, and they send again", async () => {
  const { page, problems } = await freshSession()
  const notes = path.join(run.server.folder ?? os.tmpdir(), "undo-notes.txt")
  writeFileSync(notes, "one\ntwo\nthree\nfour\n")
  await page.getByTestId("attach-file-input").setInputFiles(notes)
  await page.getByTestId("attachment-chip").first().waitFor()
  const composer = page.getByRole("textbox", { name: "Message" })
  await composer.fill("what is in this file")
  await composer.press("Enter")
  await page.getByTestId("reply-text").first().waitFor({ timeout: 20_000 })
  await page.getByTestId("undo").and(page.locator(":enabled")).waitFor({ timeout: 20_000 })
  assert.equal(await page.getByTestId("attachment-chip").count(), 0, "the composer is empty after sending")

  // Undo: the text and the file come back; one message says what happened, not two.
  await page.getByTestId("undo").click()
  await page.getByTestId("undone").waitFor()
  assert.equal(await composer.inputValue(), "what is in this file")
  const chips = page.getByTestId("attachment-chip")
  await chips.first().waitFor()
  assert.deepEqual(await chips.allInnerTexts().then((texts) => texts.map((text) => text.includes("undo-notes.txt"))), [true])
  assert.equal(await page.getByText("Nothing here yet").count(), 0, "no empty-session message beside the undone notice")
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-6-undo-keeps-files.png") })

  // Redo, then fork from that message: the new session's composer has the text and the file.
  await page.getByTestId("redo").click()
  await page.getByTestId("undone").waitFor({ state: "detached" })
  assert.equal(await composer.inputValue(), "", "redo takes the words back out of the composer")
  assert.equal(await page.getByTestId("attachment-chip").count(), 0, "and the files")
  const mine = page.locator(".message-slot").filter({ hasText: "what is in this file" }).first()
  await mine.hover()
  await mine.getByTestId("fork-here").click()
  await page.getByTestId("session-heading").filter({ hasText: "fork" }).waitFor({ timeout: 10_000 })
  await page.waitForFunction(() => document.querySelector("textarea")?.value === "what is in this file", null, { timeout: 10_000 })
  await page.getByTestId("attachment-chip").filter({ hasText: "undo-notes.txt" }).waitFor()

  // Sending it from the fork sends the file again.
  await composer.press("Enter")
  const sent = page.locator('[data-testid="message"][data-role="user"]').last()
  await sent.getByTestId("file-chip").filter({ hasText: "undo-notes.txt" }).waitFor({ timeout: 20_000 })
  assert.match(await sent.getByTestId("context").first().innerText(), /undo-notes\.txt/)
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

test("Copy on a message copies it as Markdown and Copy on a code block copies the code, each saying Copied", async () => {
  const { page, problems } = await freshSession()
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: run.server.baseUrl })
  await send(page, "show me code")
  const reply = page.getByTestId("reply-text").first()
  await reply.getByText("Done.").waitFor({ timeout: 20_000 })
  assert.equal(await reply.locator(".code-language").innerText(), "rust", "the code block says its language")

  const copyCode = reply.getByTestId("copy-code")
  await copyCode.click()
  await page.waitForFunction(() => document.querySelector('[data-testid="copy-code"]')?.textContent === "Copied")
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'fn main() {\n    println!("hi");\n}')
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-7-copied-code.png") })

  const slot = page.locator(".message-slot").filter({ has: reply })
  await slot.hover()
  await slot.getByTestId("copy-message").click()
  await slot.getByTestId("copy-message").filter({ hasText: "Copied" }).waitFor()
  assert.equal(
    await page.evaluate(() => navigator.clipboard.readText()),
    'Here is **the fix**:\n\n```rust\nfn main() {\n    println!("hi");\n}\n```\n\nDone.',
    "the message is copied as the Markdown it was written in",
  )
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="copy-message"]')].every((button) => button.textContent === "Copy"), null, { timeout: 5_000 })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

test("raw HTML in a reply is shown as text: nothing is fetched, nothing runs, no CSP error", async () => {
  const { page, problems } = await freshSession()
  const fetched = []
  const consoleErrors = []
  page.on("request", (request) => { if (/missing\.png/.test(request.url())) fetched.push(request.url()) })
  page.on("console", (message) => { if (message.type() === "error") consoleErrors.push(message.text()) })
  await send(page, "rawhtml please")
  const reply = page.getByTestId("reply-text").first()
  await reply.getByText("end.").waitFor({ timeout: 20_000 })
  await page.waitForTimeout(500)
  assert.match(await reply.innerText(), /a missing picture/)
  assert.equal(await reply.locator("img, script").count(), 0)
  assert.deepEqual(fetched, [], "the reply's image was never requested")
  assert.deepEqual(consoleErrors, [], "no console errors (CSP or 404)")
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

test("with a session open at start the composer is at most ten Tab presses away: the header and the messages are one stop each, walked with the arrows", async () => {
  // Sixty messages (more than the first page of fifty), then replies with a link and a code block.
  const session = await callApi(run.server.baseUrl, "POST", "/session", { title: "Long talk with links" })
  for (let index = 0; index < 60; index += 1) {
    await callApi(run.server.baseUrl, "POST", `/session/${session.id}/message`, { noReply: true, parts: [{ type: "text", text: `Note ${index}` }] })
  }
  // CSP allows only the page's own scripts; axe is put in by the test, not by the app.
  const context = await run.browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true })
  const page = await context.newPage()
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await page.locator(`[data-session-id="${session.id}"] .session-open`).click()
  await send(page, "links please")
  await page.locator('[data-testid="reply-text"] a[href]').waitFor({ timeout: 20_000 })
  await page.waitForFunction(() => !document.querySelector('[data-testid="stop"]'), null, { timeout: 20_000 })
  await send(page, "code please")
  await page.locator(".code-copy").waitFor({ timeout: 20_000 })
  await page.waitForFunction(() => !document.querySelector('[data-testid="stop"]'), null, { timeout: 20_000 })

  // The app starts again with that session open (the last open session comes back).
  await page.reload()
  await page.getByTestId("session-heading").filter({ hasText: "Long talk with links" }).waitFor()
  await page.locator(".code-copy").waitFor()
  await page.getByTestId("load-older").waitFor()
  await noSeriousViolations(page, "a session open at start")
  await page.emulateMedia({ colorScheme: "dark" })
  await noSeriousViolations(page, "a session open at start, dark")
  await page.emulateMedia({ colorScheme: "light" })

  let presses = 0
  const stops = []
  while (presses < 40 && !(await page.evaluate(() => document.activeElement?.id === "composer-input"))) {
    await page.keyboard.press("Tab")
    presses += 1
    stops.push(await focused(page))
  }
  console.log(`Tab presses from a load with a session open to the composer: ${presses} (${stops.join(" → ")})`)
  assert.ok(presses <= 10, `${presses} Tab presses to the composer: ${stops.join(" → ")}`)
  assert.match(stops[0], /skip-to-composer/)
  assert.equal(stops.filter((stop) => stop.startsWith("article")).length, 1, `the messages are one stop: ${stops.join(" → ")}`)
  assert.equal(stops.filter((stop) => /toolbar-button/.test(stop)).length, 1, `the header is one stop: ${stops.join(" → ")}`)
  const isLink = (stop) => /^a[.[]/.test(stop) && !stop.includes("skip-to-composer")
  assert.ok(!stops.some((stop) => isLink(stop) || /code-copy|copy-message|load-older/.test(stop)), `no link or message button on the way: ${stops.join(" → ")}`)

  // Shift+Tab from the composer: the newest message (the reply with the code block).
  await page.keyboard.press("Shift+Tab")
  const messageId = () => page.evaluate(() => document.activeElement?.closest(".message-slot")?.getAttribute("data-message-id") ?? null)
  const messageIndex = () => page.evaluate(() => Number(document.activeElement?.closest(".message-slot")?.getAttribute("data-index")))
  const newest = await page.evaluate(() => [...document.querySelectorAll(".message-slot")].at(-1)?.getAttribute("data-message-id"))
  assert.equal(await messageId(), newest, "the messages' stop is the newest message on screen")
  assert.match(await focused(page), /^article/)
  const newestIndex = await messageIndex()
  // → walks the message's own controls, ← comes back.
  const walked = []
  for (let step = 0; step < 6; step += 1) {
    await page.keyboard.press("ArrowRight")
    walked.push(await page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? document.activeElement?.className))
  }
  assert.deepEqual(walked, ["copy-code", "copy-message", "regenerate", "fork-here", "delete-message", "delete-message"], "→ reaches the code block's Copy, then the message's buttons")
  // The actions show while one has focus (after their fade-in).
  await page.waitForFunction(() => getComputedStyle(document.activeElement.closest(".message-actions")).opacity === "1", null, { timeout: 2_000 })
  for (let step = 0; step < 6; step += 1) await page.keyboard.press("ArrowLeft")
  assert.match(await focused(page), /^article/)
  assert.equal(await messageIndex(), newestIndex)
  // ↑ to the earlier reply; → reaches its link.
  await page.keyboard.press("ArrowUp")
  await page.keyboard.press("ArrowUp")
  assert.equal(await messageIndex(), newestIndex - 2)
  await page.keyboard.press("ArrowRight")
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("href")), "https://example.com/guide")
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-keyboard-link.png") })
  // Home: the oldest loaded message; reaching the top loads the older page, and Home again
  // reaches message #1 (the keyboard pages through history as the wheel does).
  await page.keyboard.press("Home")
  await page.waitForFunction(() => document.activeElement?.matches("article") && document.activeElement.textContent === "Note 14", null, { timeout: 10_000 })
  await page.getByTestId("load-older").waitFor({ state: "detached", timeout: 10_000 })
  // The message that had focus keeps it while the older page lands above it.
  await page.waitForFunction(() => document.activeElement?.matches("article") && document.activeElement.textContent === "Note 14", null, { timeout: 10_000 })
  await page.keyboard.press("Home")
  await page.waitForFunction(() => document.activeElement?.matches("article") && document.activeElement.textContent === "Note 0")
  await page.keyboard.press("ArrowUp")
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Note 0", "↑ on message #1 stays there")
  // End: the newest again; the stop follows the focus.
  await page.keyboard.press("End")
  await page.waitForFunction((id) => document.activeElement?.closest(".message-slot")?.getAttribute("data-message-id") === id, newest)
  assert.equal(await page.locator(".message-list [tabindex='0']").count(), 1, "one stop in the messages")

  // The header: its one stop, → and ← between its buttons, End to the session's menu.
  await page.getByTestId("toggle-sidebar").focus()
  await page.keyboard.press("ArrowRight")
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "undo")
  await page.keyboard.press("End")
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "session-menu")
  assert.deepEqual(
    await page.evaluate(() => [...document.querySelectorAll(".main-header button")].filter((button) => button.tabIndex === 0).map((button) => button.dataset.testid)),
    ["session-menu"],
    "the header's stop is the button last focused",
  )
  await page.keyboard.press("ArrowLeft")
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "open-find")

  // The skip link: Tab once from a fresh load, Enter, and the composer has focus.
  await page.reload()
  await page.locator(".code-copy").waitFor()
  await page.keyboard.press("Tab")
  assert.match(await focused(page), /skip-to-composer/)
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-skip-link.png") })
  await page.keyboard.press("Enter")
  assert.equal(await page.evaluate(() => document.activeElement?.id), "composer-input")
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await context.close()
})

test("tables, inline code and quotes are finished like code blocks in both themes; cells keep whole words, a wide table scrolls", async () => {
  // CSP bypassed only so that axe-core can be injected at the end.
  const page = await run.browser.newPage({ viewport: { width: 800, height: 600 }, bypassCSP: true })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await openNewSession(page)
  await send(page, "a tabular reply please")
  const reply = page.getByTestId("reply-text").first()
  await reply.getByText("Done.").waitFor({ timeout: 20_000 })
  assert.equal(await reply.locator(".table-scroll > table").count(), 2, "each table sits in its own scroller")

  /** Words of table cells that the browser split over two lines (a broken word has two boxes). */
  const brokenWords = () =>
    reply.evaluate((element) => {
      const broken = []
      for (const cell of element.querySelectorAll("th, td")) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT)
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
          for (const match of node.data.matchAll(/\S+/g)) {
            const range = document.createRange()
            range.setStart(node, match.index)
            range.setEnd(node, match.index + match[0].length)
            if (range.getClientRects().length > 1) broken.push(match[0])
          }
        }
      }
      return broken
    })
  /** What a person sees of the finish: borders, tints and the scrollers' widths. */
  const finish = () =>
    reply.evaluate((element) => {
      const style = (selector) => getComputedStyle(element.querySelector(selector))
      const [narrow, wide] = element.querySelectorAll(".table-scroll")
      return {
        cellBorder: style("td").borderBottomWidth,
        boxBorder: style(".table-scroll").borderTopWidth,
        headerTint: style("th").backgroundColor,
        inlineCodeTint: style("p > code").backgroundColor,
        quoteEdge: style("blockquote").borderLeftWidth,
        quoteTint: style("blockquote").backgroundColor,
        codeBlockTint: getComputedStyle(document.documentElement).getPropertyValue("--sidebar-bg").trim(),
        narrowScrolls: narrow.scrollWidth > narrow.clientWidth,
        wideScrolls: wide.scrollWidth > wide.clientWidth,
        replyOverflows: element.scrollWidth > element.clientWidth,
      }
    })

  const seen = {}
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.waitForFunction((wanted) => document.documentElement.dataset.theme === wanted, scheme)
    for (const viewport of [{ width: 800, height: 600 }, { width: 1280, height: 800 }]) {
      await page.setViewportSize(viewport)
      await reply.locator(".table-scroll").first().scrollIntoViewIfNeeded()
      await page.waitForTimeout(200)
      const where = `${scheme} at ${viewport.width}×${viewport.height}`
      assert.deepEqual(await brokenWords(), [], `no word in a table cell is broken (${where})`)
      const looks = await finish()
      assert.equal(looks.cellBorder, "1px", where)
      assert.equal(looks.boxBorder, "1px", where)
      assert.equal(looks.quoteEdge, "3px", where)
      for (const tint of [looks.headerTint, looks.inlineCodeTint, looks.quoteTint]) assert.notEqual(tint, "rgba(0, 0, 0, 0)", `tinted (${where})`)
      assert.equal(looks.narrowScrolls, false, `the budget table fits (${where})`)
      assert.equal(looks.replyOverflows, false, `the reply itself never scrolls sideways (${where})`)
      if (viewport.width === 800) assert.equal(looks.wideScrolls, true, `the year's table scrolls inside its box (${where})`)
      seen[scheme] = looks.inlineCodeTint
      await page.screenshot({ path: path.join(artifacts, `browser-conversation-7-tables-${scheme}-${viewport.width}.png`) })
    }
  }
  assert.notEqual(seen.light, seen.dark, "the tints follow the theme")

  // The wide table's box is one of the reply's stops, reached with → from the message like its
  // links and buttons, and → then scrolls it.
  await page.setViewportSize({ width: 800, height: 600 })
  const wide = reply.locator(".table-scroll").nth(1)
  await page.locator('[data-testid="message"][data-role="assistant"]').first().focus()
  for (let press = 0; press < 6 && !(await wide.evaluate((element) => element === document.activeElement)); press++) await page.keyboard.press("ArrowRight")
  assert.equal(await wide.evaluate((element) => element === document.activeElement), true, "→ from the message reaches the wide table's box")
  for (let press = 0; press < 3; press++) await page.keyboard.press("ArrowRight")
  await page.waitForFunction(() => (document.querySelectorAll(".table-scroll")[1]?.scrollLeft ?? 0) > 0)
  assert.equal(await wide.evaluate((element) => element === document.activeElement), true, "the focus stays on the table while it scrolls")
  await noSeriousViolations(page, "a reply with tables, inline code and a quote", [{ rule: "scrollable-region-focusable", selector: ".table-scroll" }])
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})
