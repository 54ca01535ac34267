// The window's frame (issue 13, items 8–10 and the screenshots), in Debian's chromium against a
// real dossier-server whose model is the scripted provider: narrow windows (800×600 and the
// minimum 640×420, English and Chinese) keep every header, sidebar and composer control on one
// line, with the header's actions in the "More actions" menu where the column is narrow; the
// sidebar hides and shows (and below 700 px hides on its own, opening over the conversation);
// sessions are grouped by date under Pinned with plain-text titles; archive says so in a toast
// with Undo; the delete question is whole; the model list marks the current model; a lost
// server is said in words. Screenshots of every screen at 1280×800 and 800×600, light and dark,
// English and Chinese go to tests/artifacts/layout-*.png.
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import axe from "axe-core"
import { mkdtempSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { startServer as startDossierServer } from "../sdk-compat/server.mjs"
import { startScriptedProvider } from "./scripted-provider.mjs"
import { artifacts, callApi, launchBrowser, root, startServer } from "./support.mjs"

const run = { provider: undefined, server: undefined, browser: undefined }
before(async () => {
  run.provider = await startScriptedProvider()
  const folder = mkdtempSync(path.join(os.tmpdir(), "dossier-browser-"))
  run.server = { ...(await startDossierServer(folder, { config: run.provider.config, ui: path.join(root, "ui/dist") })), folder }
  run.browser = await launchBrowser()
})
after(async () => {
  await run.browser?.close()
  await run.server?.stop()
  await run.provider?.stop()
})

const api = (method, route, body) => callApi(run.server.baseUrl, method, route, body)
const day = 24 * 60 * 60 * 1000

/** Moves a session's last activity back in time, in the ledger itself (the API always says now). */
function lastActive(session, when) {
  execFileSync("sqlite3", [path.join(run.server.folder, "data/dossier.db"), `UPDATE session SET time_updated = ${Math.round(when)} WHERE id = '${session.id}'`])
}

async function openPage({ width, height, colorScheme = "light", locale = "en-US" }, server = run.server) {
  // CSP allows only the page's own scripts; axe-core is put in by the test (bypassCSP).
  const context = await run.browser.newContext({ viewport: { width, height }, colorScheme, locale, bypassCSP: true })
  const page = await context.newPage()
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(server.baseUrl + "/")
  // Below 700 px the sidebar (and its New session) starts hidden: the header's toggle is always there.
  await page.getByTestId("toggle-sidebar").waitFor()
  return { page, context, problems }
}

/**
 * Every visible control of the header, the sidebar and the composer whose label runs onto a
 * second line (or that is taller than one line of text), with its label and height.
 */
function wrappedControls(page) {
  return page.evaluate(() => {
    const selector = [".main-header button", ".main-header h2", ".sidebar button:not(.session-open)", ".session-title", ".session-group-title", ".composer-footer button", ".composer-footer select", ".menu-item"].join(",")
    const lines = (element) => {
      let most = 0
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        if (node.textContent.trim() === "") continue
        const range = document.createRange()
        range.selectNodeContents(node)
        const tops = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)))
        most = Math.max(most, tops.size)
      }
      return most
    }
    return [...document.querySelectorAll(selector)]
      .filter((element) => element.getClientRects().length > 0)
      .map((element) => ({ label: (element.getAttribute("aria-label") ?? element.textContent).trim().slice(0, 40), lines: lines(element), height: Math.round(element.getBoundingClientRect().height) }))
      // One line of 15px text with its padding is at most 41px; two lines are 50px or more.
      .filter((control) => control.lines > 1 || control.height > 46)
  })
}

/** Runs axe-core on the page as it is; fails on any serious or critical violation. */
async function noSeriousViolations(page, screen) {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axe.source })
  const result = await page.evaluate(() => window.axe.run(document))
  const serious = result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`)
  assert.deepEqual(serious, [], `axe on ${screen}`)
}

const sizes = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]
const looks = [
  { colorScheme: "light", locale: "en-US", name: "en-light" },
  { colorScheme: "dark", locale: "en-US", name: "en-dark" },
  { colorScheme: "light", locale: "zh-CN", name: "zh-light" },
  { colorScheme: "dark", locale: "zh-CN", name: "zh-dark" },
]
const shot = (page, size, look, screen) => page.screenshot({ path: path.join(artifacts, `layout-${screen}-${size.width}x${size.height}-${look.name}.png`) })

test("screenshots of every screen at 1280×800 and 800×600, light and dark, English and Chinese; nothing wraps", async () => {
  // The empty first run: no session, no provider yet (only the built-in offline model).
  const firstRun = await startServer()
  for (const size of sizes) {
    for (const look of looks) {
      const { page, context, problems } = await openPage({ ...size, ...look }, firstRun)
      await page.getByTestId("welcome").waitFor()
      assert.ok((await page.getByTestId("welcome-example").count()) >= 3, "example prompts")
      await page.getByTestId("welcome-add-provider").waitFor()
      await noSeriousViolations(page, `the first run, ${size.width}×${size.height} ${look.name}`)
      assert.deepEqual(await wrappedControls(page), [], `first run, ${size.width}×${size.height} ${look.name}`)
      await shot(page, size, look, "1-first-run")
      assert.deepEqual(problems, [])
      await context.close()
    }
  }
  await firstRun.stop()

  // Sessions over the last months, one pinned, one with a finished reply with code.
  const code = await api("POST", "/session", { title: "Rust hello world" })
  await api("POST", `/session/${code.id}/message`, { parts: [{ type: "text", text: "show me code please" }] })
  const titles = [
    ["## Summary of your notes", 0, false],
    ["Dinner plans", 1, false],
    ["**Tax** return 2025", 4, false],
    ["Garden layout", 20, false],
    ["Lisbon trip", 50, false],
    ["Reading list", 80, true],
  ]
  for (const [title, daysAgo, pinned] of titles) {
    const session = await api("POST", "/session", { title })
    await api("POST", `/session/${session.id}/message`, { noReply: true, parts: [{ type: "text", text: `About ${title}` }] })
    if (pinned) await api("PATCH", `/session/${session.id}`, { pinned: true })
    if (daysAgo > 0) lastActive(session, Date.now() - daysAgo * day)
  }

  for (const size of sizes) {
    for (const look of looks) {
      const { page, context, problems } = await openPage({ ...size, ...look })
      const english = look.locale === "en-US"
      // The sidebar: sections by date, Pinned on top, titles without Markdown.
      await page.getByTestId("session-group").nth(4).waitFor()
      const groups = await page.getByTestId("session-group").allInnerTexts()
      assert.equal(groups[0], english ? "Pinned" : "已置顶")
      assert.equal(groups[1], english ? "Today" : "今天")
      assert.ok(groups.includes(english ? "Yesterday" : "昨天"), groups.join(", "))
      assert.ok(groups.includes(english ? "Previous 7 days" : "过去 7 天"), groups.join(", "))
      assert.ok(groups.length >= 5, `a section per older month: ${groups.join(", ")}`)
      const shownTitles = await page.locator(".session-title").allInnerTexts()
      assert.ok(shownTitles.includes("Summary of your notes") && shownTitles.includes("Tax return 2025"), shownTitles.join(", "))
      assert.ok(shownTitles.every((title) => !/[#*]/.test(title)), shownTitles.join(", "))
      await page.locator(".sidebar").screenshot({ path: path.join(artifacts, `layout-2-sidebar-${size.width}x${size.height}-${look.name}.png`) })

      // A finished reply with code.
      await page.locator(`[data-session-id="${code.id}"] .session-open`).click()
      await page.locator(".markdown pre").first().waitFor({ timeout: 20_000 })
      assert.deepEqual(await wrappedControls(page), [], `a session, ${size.width}×${size.height} ${look.name}`)
      await shot(page, size, look, "3-reply-with-code")

      // The session menu.
      await page.getByTestId("session-menu").click()
      await page.getByRole("menu").waitFor()
      assert.deepEqual(await wrappedControls(page), [], `the menu, ${size.width}×${size.height} ${look.name}`)
      await shot(page, size, look, "4-session-menu")
      await page.keyboard.press("Escape")

      // The palette.
      await page.keyboard.press("Control+k")
      await page.getByTestId("palette-input").fill(english ? "notes" : "Summary")
      await page.getByTestId("palette-result").first().waitFor()
      // The title's excerpt is plain text too.
      assert.ok((await page.getByTestId("palette-excerpt").allInnerTexts()).includes("Summary of your notes"))
      await shot(page, size, look, "5-palette")
      // So is a reply's: "Here is **the fix**:" shows as "Here is the fix:".
      await page.getByTestId("palette-input").fill("fix")
      await page.getByTestId("palette-excerpt").filter({ hasText: "the fix" }).first().waitFor()
      const replyExcerpts = await page.getByTestId("palette-excerpt").allInnerTexts()
      assert.ok(replyExcerpts.some((text) => text.includes("Here is the fix:")) && replyExcerpts.every((text) => !text.includes("**")), replyExcerpts.join(" | "))
      await page.keyboard.press("Escape")

      // Settings.
      await page.keyboard.press("Control+,")
      await page.getByTestId("settings").waitFor()
      // A browser's settings: the theme and language, and the server's providers read-only.
      await page.getByTestId("appearance-settings").waitFor()
      await page.getByTestId("server-provider-row").first().waitFor()
      await noSeriousViolations(page, `settings, ${size.width}×${size.height} ${look.name}`)
      await shot(page, size, look, "6-settings")
      // The dialog fits the window, and scrolled to its end its title and Close are still in view.
      const fits = await page.evaluate(() => {
        const dialog = document.querySelector("[data-testid=settings]")
        const body = document.querySelector("[data-testid=settings-body]")
        body.scrollTop = body.scrollHeight
        const box = dialog.getBoundingClientRect()
        const close = document.querySelector("[data-testid=close-settings]").getBoundingClientRect()
        return { top: box.top, bottom: box.bottom, closeTop: close.top, closeBottom: close.bottom, height: innerHeight }
      })
      assert.ok(fits.top >= 0 && fits.bottom <= fits.height, `settings inside the window at ${size.width}×${size.height}: ${JSON.stringify(fits)}`)
      assert.ok(fits.closeTop >= fits.top && fits.closeBottom <= fits.bottom, `Close in view at the settings' end: ${JSON.stringify(fits)}`)
      await page.keyboard.press("Escape")

      // A streaming reply: the typing indicator first, then the words.
      await page.getByTestId("new-session").click()
      // Typed only once the new session is open (its draft is what the composer shows).
      await page.getByTestId("session-heading").filter({ hasText: /^(New session|新建会话) · / }).waitFor()
      const composer = page.locator("#composer-input")
      await composer.fill("please be slow")
      await composer.press("Enter")
      await page.waitForFunction(() => /word5 /.test(document.querySelector('[data-testid="reply-text"]')?.textContent ?? ""), null, { timeout: 20_000 })
      assert.deepEqual(await wrappedControls(page), [], `streaming, ${size.width}×${size.height} ${look.name}`)
      await shot(page, size, look, "7-streaming")
      await page.getByTestId("stop").click()
      await page.getByTestId("reply-stopped").waitFor({ timeout: 10_000 })
      assert.deepEqual(problems, [])
      await context.close()
    }
  }
})

test("a narrow window: one line per control at 800×600 and 640×420 in both languages, actions in the menu, the sidebar hides (on its own below 700 px)", async () => {
  const session = await api("POST", "/session", { title: "Narrow window check" })
  await api("POST", `/session/${session.id}/message`, { noReply: true, parts: [{ type: "text", text: "hello" }] })
  for (const size of [{ width: 800, height: 600 }, { width: 640, height: 420 }]) {
    for (const locale of ["en-US", "zh-CN"]) {
      const { page, context, problems } = await openPage({ ...size, locale })
      const narrow = size.width < 700
      // Below 700 px the sidebar is hidden on its own; its toggle opens it over the conversation.
      if (narrow) {
        assert.equal(await page.locator(".sidebar").isVisible(), false, `hidden on its own at ${size.width} px`)
        await page.getByTestId("toggle-sidebar").click()
      }
      await page.locator(`[data-session-id="${session.id}"] .session-open`).click()
      await page.locator('[data-testid="message"][data-role="user"]').first().waitFor()
      // Choosing a session puts the sidebar opened over the conversation away again.
      if (narrow) await page.locator(".sidebar").waitFor({ state: "hidden" })
      assert.deepEqual(await wrappedControls(page), [], `${size.width}×${size.height} ${locale}`)
      if (narrow) {
        // With the sidebar out of the way the header has the window's width: its buttons fit.
        assert.equal(await page.getByTestId("undo").isVisible(), true, "Undo has room in the header")
        await page.screenshot({ path: path.join(artifacts, `layout-narrow-no-sidebar-${size.width}x${size.height}-${locale}.png`) })
        assert.deepEqual(problems, [])
        await context.close()
        continue
      }
      // Undo, Redo and Find have gone into the menu; the menu works from the keyboard.
      assert.equal(await page.getByTestId("undo").isVisible(), false, "Undo is in the menu")
      await page.getByTestId("session-menu").focus()
      await page.keyboard.press("ArrowDown")
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "menu-undo")
      // Redo has nothing to bring back: disabled, so the arrows step over it.
      await page.keyboard.press("ArrowDown")
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "menu-find")
      assert.deepEqual(await wrappedControls(page), [], `the menu at ${size.width}×${size.height} ${locale}`)
      await noSeriousViolations(page, `the open menu at ${size.width}×${size.height} ${locale}`)
      await page.screenshot({ path: path.join(artifacts, `layout-narrow-menu-${size.width}x${size.height}-${locale}.png`) })
      await page.keyboard.press("Escape")
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "session-menu")

      // Ctrl+B hides the sidebar (the conversation takes the width) and brings it back.
      const before = (await page.getByTestId("conversation").boundingBox()).width
      await page.keyboard.press("Control+b")
      await page.locator(".sidebar").waitFor({ state: "hidden" })
      assert.ok((await page.getByTestId("conversation").boundingBox()).width > before + 150, "the conversation is wider")
      assert.deepEqual(await wrappedControls(page), [], `sidebar hidden, ${size.width}×${size.height} ${locale}`)
      await page.screenshot({ path: path.join(artifacts, `layout-narrow-no-sidebar-${size.width}x${size.height}-${locale}.png`) })
      // Remembered across a reload.
      await page.reload()
      await page.getByTestId("toggle-sidebar").waitFor()
      assert.equal(await page.locator(".sidebar").isVisible(), false, "still hidden after a reload")
      await page.getByTestId("toggle-sidebar").click()
      await page.locator(".sidebar").waitFor()
      assert.deepEqual(problems, [])
      await context.close()
    }
  }
})

test("archive says so in a toast with Undo; the delete question is whole; the model list marks the current model; exports are named in plain words", async () => {
  const title = "## Home network: the router, the mesh and the printer upstairs"
  const session = await api("POST", "/session", { title })
  await api("POST", `/session/${session.id}/message`, { noReply: true, parts: [{ type: "text", text: "the router is in the hall" }] })
  const { page, context, problems } = await openPage({ width: 800, height: 600 })
  const row = page.locator(`[data-session-id="${session.id}"]`)
  await row.locator(".session-open").click()
  await page.getByTestId("session-heading").filter({ hasText: "Home network: the router, the mesh and the printer upstairs" }).waitFor()

  // The export's file name has no Markdown in it.
  await page.getByTestId("session-menu").click()
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-markdown").click()])
  // The server already swaps what file systems refuse (":" → "_"); the UI drops the Markdown.
  assert.match(download.suggestedFilename(), /^Home network.* the router, the mesh and the printer upstairs\.md$/)
  assert.match(await page.getByTestId("toast-text").innerText(), /^Saved to /)

  // The model list marks the model in use.
  await page.getByTestId("model-picker").click()
  const current = page.locator('[data-testid=model-option][aria-pressed="true"]')
  assert.equal(await current.count(), 1)
  assert.match(await current.innerText(), /Scripted\s+current/)
  // The list opens over the export's toast, not under it.
  assert.ok(await page.getByTestId("toast").isVisible(), "the export's toast is still up")
  const hidden = await page.locator(".popover").evaluate((element) => {
    const box = element.getBoundingClientRect()
    return [0.1, 0.3, 0.5, 0.7, 0.9].some((fraction) => !element.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height * fraction)))
  })
  assert.equal(hidden, false, "the model list is on top of the toast")
  await page.screenshot({ path: path.join(artifacts, "layout-model-picker.png") })
  await page.keyboard.press("Escape")

  // The delete question shows the whole title, nothing cut.
  await row.hover()
  await row.getByTestId("session-row-menu").click()
  await page.getByTestId("delete-session").click()
  const question = page.getByTestId("delete-question")
  await question.waitFor()
  assert.equal(await question.innerText(), "Delete “Home network: the router, the mesh and the printer upstairs” and its messages for good?")
  const clipped = await question.evaluate((element) => element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1)
  assert.equal(clipped, false, "the question is not cut off")
  // Nothing is drawn over it: the rows below go under the question.
  const covered = await question.evaluate((element) => {
    const box = element.getBoundingClientRect()
    return [0.25, 0.5, 0.75].some((fraction) => !element.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height * fraction)))
  })
  assert.equal(covered, false, "the question is on top")
  const box = await question.boundingBox()
  const sidebar = await page.locator(".sidebar").boundingBox()
  assert.ok(box.x >= sidebar.x && box.x + box.width <= sidebar.x + sidebar.width, "the question fits in the sidebar")
  await page.screenshot({ path: path.join(artifacts, "layout-delete-question.png") })
  await page.keyboard.press("Escape")

  // While the model has not said a word, three dots stand where its reply will be; then the words.
  const composer = page.locator("#composer-input")
  await composer.fill("keep thinking")
  await composer.press("Enter")
  const typing = page.getByTestId("typing-indicator")
  await typing.waitFor({ timeout: 10_000 })
  assert.equal(await typing.locator(".typing-dots span").count(), 3)
  assert.match(await typing.locator(".visually-hidden").textContent(), /^(Sending|Replying)…$/, "said to screen readers")
  // Right below the message just sent, where the reply goes (measured in one go: the dots move
  // into the reply's own slot when its empty message arrives).
  const gap = await page.evaluate(() => {
    const dots = document.querySelector('[data-testid="typing-indicator"]')
    const sent = [...document.querySelectorAll('[data-testid="message"][data-role="user"]')].at(-1)
    return dots && sent ? dots.getBoundingClientRect().top - sent.getBoundingClientRect().bottom : undefined
  })
  assert.ok(gap !== undefined && gap >= 0 && gap < 80, `the dots are just below the message sent (${gap} px)`)
  await page.screenshot({ path: path.join(artifacts, "layout-typing-indicator.png") })
  await page.getByTestId("reply-text").filter({ hasText: "after a pause" }).waitFor({ timeout: 20_000 })
  await typing.waitFor({ state: "detached" })

  // Archive from the menu: a toast says so, Undo brings the session back.
  await page.getByTestId("session-menu").click()
  await page.getByTestId("archive-session").click()
  // It takes the place of the export's toast.
  await page.getByTestId("toast-text").filter({ hasText: /^Archived/ }).waitFor()
  assert.equal(await page.getByTestId("toast-text").innerText(), "Archived “Home network: the router, the mesh and the printer upstairs”")
  await row.waitFor({ state: "detached" })
  await page.screenshot({ path: path.join(artifacts, "layout-archived-toast.png") })
  await noSeriousViolations(page, "the archive toast")
  await page.getByTestId("toast-undo").click()
  await row.waitFor()
  // And it is open again, as before.
  await page.getByTestId("session-heading").filter({ hasText: "Home network: the router" }).waitFor()
  const listed = await api("GET", "/session")
  assert.ok(listed.some((item) => item.id === session.id && item.time.archived === undefined), "restored on the server")
  assert.deepEqual(problems, [])
  await context.close()
})

test("a lost server is said plainly, and a send then says it was not sent instead of 'Failed to fetch'", async () => {
  const server = await startServer()
  const context = await run.browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  try {
    await page.goto(server.baseUrl + "/")
    await page.getByTestId("new-session").click()
    await page.getByTestId("session-row").first().waitFor()
    assert.equal(await page.getByTestId("connection-status").count(), 0, "nothing to say while connected")
    assert.equal(await page.getByText(/^(Browser|Desktop app)$/).count(), 0, "no transport label")
    await server.stop()
    const status = page.getByTestId("connection-status")
    await status.waitFor({ timeout: 10_000 })
    assert.equal(await status.innerText(), "Can’t reach Dossier’s server — retrying")
    const composer = page.locator("#composer-input")
    await composer.fill("are you there?")
    await composer.press("Enter")
    const notice = page.getByTestId("notice")
    await notice.waitFor({ timeout: 10_000 })
    assert.equal(await notice.getAttribute("data-kind"), "network")
    assert.match(await notice.innerText(), /Can’t reach Dossier’s server, so this was not sent/)
    assert.doesNotMatch(await notice.innerText(), /Failed to fetch|Something went wrong/)
    await page.screenshot({ path: path.join(artifacts, "layout-server-lost.png") })
  } finally {
    await context.close()
    await server.stop()
  }
})
