// Issue 27 in Debian's chromium against a real dossier-server: in a 640-px window the sidebar
// hides itself and its toggle opens it over the conversation; a click on a row's title opens
// that session and pins nothing (the row's actions are in its ⋯ and right-click menu); the delete
// question goes away on a press elsewhere; "Jump to newest" stays hidden while the newest
// message is in view; New session twice leaves one empty session; the welcome can be read from
// its top at 640×480 and its Summarise example opens the file picker; forks are marked.
// Screenshots at 640×480 and 1280×800, light and dark, English and Chinese, go to
// tests/artifacts/narrow-*.png.
import { test } from "node:test"
import assert from "node:assert/strict"
import path from "node:path"
import { artifacts, serverAndBrowser } from "./support.mjs"

const run = serverAndBrowser()
const api = run.api

async function say(sessionID, text) {
  await api("POST", `/session/${sessionID}/message`, { noReply: true, parts: [{ type: "text", text }] })
}

async function openPage({ width, height, colorScheme = "light", locale = "en-US" }) {
  const context = await run.browser.newContext({ viewport: { width, height }, colorScheme, locale })
  const page = await context.newPage()
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await page.getByTestId("toggle-sidebar").waitFor()
  return { page, context, problems }
}

const placeholder = /^New session - \d{4}-\d{2}-\d{2}T/

test("at 640 px the sidebar hides itself; opened, a click on a row opens that session and pins nothing", async () => {
  const titles = ["Journal for the week", "Long session about the garden, the shed and the hedge", "Reading list"]
  const sessions = []
  for (const title of titles) {
    const session = await api("POST", "/session", { title })
    await say(session.id, `About ${title}`)
    sessions.push(session)
  }
  const { page, context, problems } = await openPage({ width: 640, height: 480 })
  const sidebar = page.locator(".sidebar")
  const toggle = page.getByTestId("toggle-sidebar")
  assert.equal(await sidebar.isVisible(), false, "hidden on its own below 700 px")
  assert.equal(await toggle.getAttribute("aria-expanded"), "false")

  await toggle.click()
  await sidebar.waitFor()
  assert.equal(await toggle.getAttribute("aria-expanded"), "true")
  // Over the conversation, from the window's left edge.
  const over = await sidebar.boundingBox()
  assert.equal(over.x, 0)
  assert.ok((await page.getByTestId("welcome").boundingBox()).x < over.width, "the conversation keeps the window's width under it")

  // Hovered, the row keeps most of its title: only ⋯ and Pin beside it, no tick box.
  const row = page.locator(`[data-session-id="${sessions[1].id}"]`)
  await row.hover()
  const widths = await row.evaluate((element) => ({
    row: element.getBoundingClientRect().width,
    title: element.querySelector(".session-open").getBoundingClientRect().width,
    check: element.querySelector(".session-check").getBoundingClientRect().width,
  }))
  assert.equal(widths.check, 0, "no tick box on hover")
  assert.ok(widths.title >= widths.row - 60, `the title keeps the row: ${JSON.stringify(widths)}`)
  // The Ctrl+K badge sits inside its button.
  const badge = await page.locator(".search-all .shortcut").boundingBox()
  const search = await page.getByTestId("open-search").boundingBox()
  assert.ok(badge.x + badge.width <= search.x + search.width, `the badge inside the search button: ${JSON.stringify({ badge, search })}`)
  await page.screenshot({ path: path.join(artifacts, "narrow-sidebar-over-640x480.png") })

  // A click in the middle of the row opens it; nothing is pinned; the sidebar goes away.
  await row.click()
  await page.getByTestId("session-heading").filter({ hasText: titles[1] }).waitFor()
  await sidebar.waitFor({ state: "hidden" })
  const listed = await api("GET", "/session")
  assert.deepEqual(listed.filter((session) => session.pinned).map((session) => session.title), [], "nothing pinned")
  assert.equal(await page.getByTestId("session-group").first().innerText(), "Today")

  // Widened, the sidebar comes back beside the conversation; narrowed again, it hides.
  await page.setViewportSize({ width: 1280, height: 800 })
  await sidebar.waitFor()
  assert.ok((await page.getByTestId("conversation").boundingBox()).x >= (await sidebar.boundingBox()).width - 1, "beside, not over")
  // The open row shows its title, not buttons, once the pointer has left it.
  await page.mouse.move(900, 400)
  const openRow = page.locator(".session-row--selected")
  assert.equal(await openRow.getByTestId("pin-session").isVisible(), false, "no quick button on the open row without hover")
  await page.setViewportSize({ width: 640, height: 480 })
  await sidebar.waitFor({ state: "hidden" })
  // Ctrl+B opens it too, with the keyboard in it (on the open session's row), and Esc puts it away.
  await page.keyboard.press("Control+b")
  await sidebar.waitFor()
  await page.waitForFunction(() => document.activeElement?.closest(".session-row--selected") !== null, null, { timeout: 5_000 })
  await page.keyboard.press("Escape")
  await sidebar.waitFor({ state: "hidden" })
  // The toggle opens it; a click on the conversation beside it puts it away.
  await toggle.click()
  await sidebar.waitFor()
  await page.mouse.click(600, 300)
  await sidebar.waitFor({ state: "hidden" })
  assert.deepEqual(problems, [])
  await context.close()
})

test("the row's ⋯ menu and right-click menu hold its actions; the delete question closes on a press elsewhere", async () => {
  const session = await api("POST", "/session", { title: "Menu and question" })
  await say(session.id, "hello")
  const { page, context, problems } = await openPage({ width: 1280, height: 800 })
  const row = page.locator(`[data-session-id="${session.id}"]`)
  await row.waitFor()

  // A right click opens the menu at the pointer; Esc closes it.
  await row.locator(".session-title").click({ button: "right" })
  const menu = page.getByTestId("session-row-menu-items")
  await menu.waitFor()
  await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "menu-pin")
  await page.keyboard.press("Escape")
  await menu.waitFor({ state: "detached" })

  // ⋯ → Delete asks; a click on the conversation keeps the session and closes the question.
  await row.hover()
  await row.getByTestId("session-row-menu").click()
  await page.getByTestId("delete-session").click()
  const question = page.getByTestId("delete-question")
  await question.waitFor()
  await page.getByTestId("welcome").click({ position: { x: 20, y: 20 } })
  await question.waitFor({ state: "detached" })
  assert.ok((await api("GET", "/session")).some((item) => item.id === session.id), "not deleted")
  // And Esc, once focus is in it.
  await row.hover()
  await row.getByTestId("session-row-menu").click()
  await page.getByTestId("delete-session").click()
  await question.waitFor()
  await page.keyboard.press("Escape")
  await question.waitFor({ state: "detached" })
  assert.deepEqual(problems, [])
  await context.close()
})

test("Jump to newest is hidden while the newest message is in view", async () => {
  const session = await api("POST", "/session", { title: "A long talk" })
  for (let index = 1; index <= 40; index += 1) await say(session.id, `Message number ${index}. ${"Words to make it longer. ".repeat(6)}`)
  const { page, context, problems } = await openPage({ width: 1280, height: 800 })
  await page.locator(`[data-session-id="${session.id}"] .session-open`).click()
  await page.locator('[data-testid="message"]').filter({ hasText: "Message number 40." }).waitFor()
  const jump = page.getByTestId("jump-to-newest")
  const conversation = page.getByTestId("conversation")
  await conversation.hover()
  // A small move up: the newest message is still on screen, so there is nowhere to jump to.
  await page.mouse.wheel(0, -60)
  await page.waitForTimeout(400)
  assert.equal(await jump.isVisible(), false, "hidden with the newest message in view")
  // Far up: now it helps.
  await page.mouse.wheel(0, -2500)
  await jump.waitFor()
  await page.screenshot({ path: path.join(artifacts, "narrow-jump-to-newest-1280x800.png") })
  await jump.click()
  await jump.waitFor({ state: "detached" })
  assert.deepEqual(problems, [])
  await context.close()
})

test("New session twice leaves one empty session", async () => {
  const { page, context, problems } = await openPage({ width: 1280, height: 800 })
  const emptyOnes = async () => (await api("GET", "/session")).filter((session) => placeholder.test(session.title))
  const before = (await emptyOnes()).length
  await page.getByTestId("new-session").click()
  await page.getByTestId("session-heading").filter({ hasText: /^New session · / }).waitFor()
  const first = await page.locator(".session-row--selected").getAttribute("data-session-id")
  await page.getByTestId("new-session").click()
  await page.keyboard.press("Control+n")
  await page.waitForTimeout(300)
  assert.equal(await page.locator(".session-row--selected").getAttribute("data-session-id"), first, "the same empty session is open")
  assert.equal((await emptyOnes()).length, Math.max(before, 1), "one empty session, not three")
  assert.deepEqual(problems, [])
  await context.close()
})

test("the welcome reads from its top at 640×480 and its Summarise example opens the file picker", async () => {
  const { page, context, problems } = await openPage({ width: 640, height: 480 })
  // A fresh browser context: no session open, so the welcome shows.
  await page.getByTestId("welcome").waitFor()
  const edges = await page.evaluate(() => {
    const scroller = document.querySelector("[data-testid=welcome]")
    scroller.scrollTop = 0
    const heading = document.querySelector(".welcome-title").getBoundingClientRect()
    return { headingTop: heading.top, scrollerTop: scroller.getBoundingClientRect().top }
  })
  assert.ok(edges.headingTop >= edges.scrollerTop, `the heading is reachable: ${JSON.stringify(edges)}`)
  await page.screenshot({ path: path.join(artifacts, "narrow-welcome-640x480.png") })
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByTestId("welcome-example").first().click()])
  assert.ok(chooser.isMultiple(), "the attach picker, for several files")
  assert.match(await page.locator("#composer-input").inputValue(), /Summari[sz]e/)
  assert.deepEqual(problems, [])
  await context.close()
})

test("a fork is marked in the list, its number whole and its source's title in the tooltip", async () => {
  const source = await api("POST", "/session", { title: "Trip to Lisbon with a title long enough to be cut in the list" })
  await say(source.id, "plans")
  const fork = await api("POST", `/session/${source.id}/fork`, {})
  const { page, context } = await openPage({ width: 1280, height: 800 })
  const open = page.locator(`[data-session-id="${fork.id}"] .session-open`)
  await open.waitFor()
  assert.equal(await open.getByTestId("session-fork-mark").isVisible(), true)
  // "#1" is seen whole beside the cut title; a screen reader hears " (fork #1)".
  const number = open.locator(".session-fork-number")
  assert.equal(await number.textContent(), " (fork #1)")
  const [numberBox, openBox] = [await number.boundingBox(), await open.boundingBox()]
  assert.ok(numberBox.width > 8 && numberBox.x + numberBox.width <= openBox.x + openBox.width, "the number is not cut")
  assert.equal(await open.getAttribute("title"), "Fork #1 of “Trip to Lisbon with a title long enough to be cut in the list”")
  await context.close()
})

test("screenshots at 640×480 and 1280×800, light and dark, English and Chinese", async () => {
  const looks = [
    { colorScheme: "light", locale: "en-US", name: "en-light" },
    { colorScheme: "dark", locale: "en-US", name: "en-dark" },
    { colorScheme: "light", locale: "zh-CN", name: "zh-light" },
    { colorScheme: "dark", locale: "zh-CN", name: "zh-dark" },
  ]
  for (const size of [{ width: 640, height: 480 }, { width: 1280, height: 800 }]) {
    for (const look of looks) {
      const { page, context, problems } = await openPage({ ...size, ...look })
      const name = `${size.width}x${size.height}-${look.name}`
      if (size.width < 700) await page.getByTestId("toggle-sidebar").click()
      const row = page.getByTestId("session-row").nth(1)
      await row.waitFor()
      await row.hover()
      await page.screenshot({ path: path.join(artifacts, `narrow-rows-${name}.png`) })
      await row.getByTestId("session-row-menu").click()
      await page.getByTestId("session-row-menu-items").waitFor()
      await page.screenshot({ path: path.join(artifacts, `narrow-row-menu-${name}.png`) })
      await page.keyboard.press("Escape")
      assert.deepEqual(problems, [])
      await context.close()
    }
  }
})
