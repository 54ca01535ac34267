// Theme and language in a browser (issue 13): both follow the system (prefers-color-scheme,
// navigator.languages) until the person picks one in Settings → Appearance; the pick outlives a
// reload. Settings in a browser also lists the server's providers read-only.
import { test } from "node:test"
import assert from "node:assert/strict"
import path from "node:path"
import { artifacts, openNewSession, serverAndBrowser } from "./support.mjs"

const run = serverAndBrowser()

async function openPage({ languages, ...options }) {
  const context = await run.browser.newContext({ viewport: { width: 1280, height: 800 }, ...options })
  // Chromium takes one locale; a person's list of preferred languages is set on the page.
  if (languages !== undefined) await context.addInitScript((list) => Object.defineProperty(navigator, "languages", { get: () => list }), languages)
  const page = await context.newPage()
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await page.getByTestId("new-session").waitFor()
  return { page, context, problems }
}

/** What a person sees of the appearance: the page's background colour, its language, the New session button's words. */
const looks = (page) =>
  page.evaluate(() => ({
    theme: document.documentElement.dataset.theme,
    background: getComputedStyle(document.body).backgroundColor,
    lang: document.documentElement.lang,
    newSession: document.querySelector("[data-testid=new-session]")?.textContent?.trim(),
  }))

test("theme and language follow the system, live for the theme", async () => {
  const { page, context, problems } = await openPage({ colorScheme: "dark", locale: "fr-FR", languages: ["fr-FR", "zh-CN", "en-US"] })
  const dark = await looks(page)
  assert.equal(dark.theme, "dark")
  assert.equal(dark.lang, "zh-CN", "the first preferred language Dossier has")
  assert.match(dark.newSession, /新建会话/)
  await page.emulateMedia({ colorScheme: "light" })
  await page.waitForFunction(() => document.documentElement.dataset.theme === "light")
  const light = await looks(page)
  assert.notEqual(light.background, dark.background, "the colours changed with the system's scheme")
  assert.deepEqual(problems, [])
  await context.close()
})

test("settings in a browser: choose the theme and the language (kept across a reload), see the server's providers", async () => {
  const { page, context, problems } = await openPage({ colorScheme: "light", locale: "en-US" })
  const before = await looks(page)
  assert.equal(before.theme, "light")
  assert.match(before.newSession, /New session/)

  await page.keyboard.press("Control+,")
  await page.getByTestId("settings").waitFor()
  // The server's providers, read-only, with a word on where to change them.
  const rows = page.getByTestId("server-provider-row")
  await rows.first().waitFor()
  assert.ok((await rows.allInnerTexts()).some((text) => /Dossier/.test(text)), (await rows.allInnerTexts()).join(" | "))
  assert.equal(await page.getByTestId("settings").locator("[data-testid=server-providers] button").count(), 0, "nothing to press that the server would refuse")
  assert.match(await page.getByTestId("settings-desktop-only").innerText(), /desktop app/)

  await page.getByTestId("theme-choice").selectOption("dark")
  await page.getByTestId("language-choice").selectOption("zh-CN")
  await page.waitForFunction(() => document.documentElement.dataset.theme === "dark")
  assert.equal(await page.locator("#settings-title").innerText(), "设置")
  const chosen = await looks(page)
  assert.notEqual(chosen.background, before.background)
  assert.equal(chosen.lang, "zh-CN")
  assert.match(chosen.newSession, /新建会话/)
  await page.screenshot({ path: path.join(artifacts, "appearance-settings-chosen-dark-zh.png") })

  // The choice is kept for this install: a reload (and the system staying light and English) keeps it.
  await page.reload()
  await page.getByTestId("new-session").waitFor()
  assert.deepEqual(await looks(page), chosen)

  // Back to the system's.
  await page.keyboard.press("Control+,")
  await page.getByTestId("theme-choice").selectOption("system")
  await page.getByTestId("language-choice").selectOption("system")
  await page.waitForFunction(() => document.documentElement.lang === "en")
  assert.deepEqual(await looks(page), before)
  assert.deepEqual(problems, [])
  await context.close()
})

test("in Chinese the composer speaks Chinese: the agents by name, the offline model, the placeholder, the token counts", async () => {
  const { page, context, problems } = await openPage({ colorScheme: "light", locale: "zh-CN", languages: ["zh-CN"] })
  await openNewSession(page)
  const picker = page.getByTestId("agent-picker")
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=agent-picker] option").length >= 2)
  const options = await picker.locator("option").evaluateAll((items) => items.map((item) => [item.value, item.textContent]))
  assert.deepEqual(options.slice(0, 2), [["build", "直接动手"], ["plan", "只做计划（不改动）"]], "ids on the wire, names in words")
  assert.match(await page.getByTestId("model-picker").innerText(), /离线替身/)
  assert.match(await page.locator("textarea").getAttribute("placeholder"), /@ 提及智能体/)
  assert.equal(await page.getByTestId("attach-resource").count(), 0, "no Resources button without an MCP server offering resources")
  const composer = page.locator("textarea")
  await composer.fill("你好")
  await composer.press("Enter")
  const usage = page.getByTestId("usage").first()
  await usage.waitFor({ timeout: 20_000 })
  assert.match(await usage.innerText(), /^输入 \d+ · 输出 \d+/)
  await page.screenshot({ path: path.join(artifacts, "appearance-composer-zh.png") })
  assert.deepEqual(problems, [])
  await context.close()
})
