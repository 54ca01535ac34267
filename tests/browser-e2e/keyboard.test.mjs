// Keyboard and focus in the browser against a real dossier-server: from a fresh load the
// composer is a handful of Tab presses away (the session list is one stop, walked with the
// arrows); the palette, the settings and the delete question take focus, keep Tab inside and
// give it back; the model list answers the arrows; and axe-core finds nothing serious or critical
// on the main screens. Screenshots go to tests/artifacts/keyboard-*.png.
import { test } from "node:test"
import assert from "node:assert/strict"
import path from "node:path"
import { artifacts, focused, noSeriousViolations, serverAndBrowser } from "./support.mjs"

const run = serverAndBrowser()

const api = run.api

test("the keyboard reaches everything: few Tab stops, arrows in lists, focus into and back out of dialogs, no serious axe findings", async () => {
  // Thirty sessions, the newest with a conversation in it.
  const sessions = []
  for (let index = 0; index < 30; index += 1) sessions.push(await api("POST", "/session", { title: `Trip ${String(index).padStart(2, "0")}` }))
  const talked = sessions[29]
  for (const text of ["Which train leaves first?", "The 7:40 to Lyon, with tomatoes in the buffet car."]) {
    await api("POST", `/session/${talked.id}/message`, { noReply: true, parts: [{ type: "text", text }] })
  }

  // CSP allows only the page's own scripts; axe is put in by the test, not by the app.
  const context = await run.browser.newContext({ viewport: { width: 1200, height: 800 }, bypassCSP: true })
  const page = await context.newPage()
  await page.goto(run.server.baseUrl + "/")
  await page.getByTestId("session-row").first().waitFor()

  // The first screen, no session open.
  await noSeriousViolations(page, "the first screen")

  // From a fresh load, Tab until the composer has focus.
  let presses = 0
  const stops = []
  while (presses < 40 && !(await page.evaluate(() => document.activeElement?.id === "composer-input"))) {
    await page.keyboard.press("Tab")
    presses += 1
    stops.push(await focused(page))
  }
  console.log(`Tab presses from a fresh load to the composer: ${presses} (${stops.join(" → ")})`)
  assert.ok(presses <= 10, `${presses} Tab presses to the composer: ${stops.join(" → ")}`)
  // The first stop is the skip link straight to the composer; the session list was exactly one.
  assert.match(stops[0], /skip-to-composer/, stops.join(" → "))
  assert.equal(stops.filter((stop) => stop.includes("session-open")).length, 1, stops.join(" → "))

  // The list: Shift+Tab back to it, then the arrows.
  await page.locator(".session-open[tabindex='0']").focus()
  const first = await focused(page)
  assert.match(first, new RegExp(`session-open in ${talked.id}`), "the newest session is the list's stop")
  await page.keyboard.press("ArrowDown")
  await page.keyboard.press("ArrowDown")
  assert.match(await focused(page), new RegExp(`session-open in ${sessions[27].id}`))
  await page.keyboard.press("End")
  await page.waitForFunction((id) => document.activeElement?.closest("[data-session-id]")?.getAttribute("data-session-id") === id, sessions[0].id)
  await page.keyboard.press("Home")
  await page.waitForFunction((id) => document.activeElement?.closest("[data-session-id]")?.getAttribute("data-session-id") === id, talked.id)
  // Only one button in the whole list is a Tab stop.
  assert.equal(await page.locator("[data-testid=session-list] [tabindex='0'], [data-testid=session-list] button:not([tabindex])").count(), 1)
  await page.keyboard.press("Enter")
  await page.getByTestId("session-heading").filter({ hasText: talked.title }).waitFor()
  await page.locator("[data-testid=message][data-role=user]").first().waitFor()

  // → reaches the row's own buttons; ← comes back.
  await page.locator(`[data-session-id="${talked.id}"] .session-open`).focus()
  await page.keyboard.press("ArrowRight")
  assert.match(await focused(page), /pin-session/)
  await page.keyboard.press("ArrowLeft")
  assert.match(await focused(page), /session-open/)
  await page.screenshot({ path: path.join(artifacts, "keyboard-session-list.png") })
  await noSeriousViolations(page, "a session with messages")
  // The dark colours too (prefers-color-scheme), for contrast.
  await page.emulateMedia({ colorScheme: "dark" })
  await noSeriousViolations(page, "a session with messages, dark")
  await page.emulateMedia({ colorScheme: "light" })

  // Delete asks, with focus on Keep; Tab stays in the question; Esc goes back to the row.
  await page.keyboard.press("Delete")
  const question = page.locator(`[data-session-id="${talked.id}"] [role=alertdialog]`)
  await question.waitFor()
  await page.waitForFunction(() => document.activeElement?.textContent === "Keep")
  await page.keyboard.press("Tab")
  await page.keyboard.press("Tab")
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Keep", "Tab cycles inside the question")
  await page.screenshot({ path: path.join(artifacts, "keyboard-delete-question.png") })
  await noSeriousViolations(page, "the delete question")
  await page.keyboard.press("Escape")
  await question.waitFor({ state: "detached" })
  await page.waitForFunction((id) => document.activeElement?.matches(`[data-session-id="${id}"] .session-open`), talked.id)

  // The palette: focus in, Tab cycles inside, Esc gives it back.
  await page.keyboard.press("Control+k")
  await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "palette-input")
  for (let index = 0; index < 4; index += 1) await page.keyboard.press("Tab")
  assert.ok(await page.evaluate(() => document.querySelector("[data-testid=search-palette]")?.contains(document.activeElement)), "Tab stays in the palette")
  await page.getByTestId("palette-input").focus()
  await page.getByTestId("palette-input").fill("tomatoes")
  await page.getByTestId("palette-result").first().waitFor()
  await noSeriousViolations(page, "the search palette")
  await page.keyboard.press("Escape")
  await page.waitForFunction((id) => document.activeElement?.matches(`[data-session-id="${id}"] .session-open`), talked.id)
  // Choosing a result goes on to the composer.
  await page.keyboard.press("Control+k")
  await page.getByTestId("palette-input").fill("tomatoes")
  await page.getByTestId("palette-result").first().waitFor()
  await page.keyboard.press("Enter")
  await page.getByTestId("search-palette").waitFor({ state: "detached" })
  await page.waitForFunction(() => document.activeElement?.id === "composer-input")

  // Settings: focus in, Tab cycles inside, Esc gives it back.
  await page.locator(`[data-session-id="${talked.id}"] .session-open`).focus()
  await page.keyboard.press("Control+,")
  await page.getByTestId("settings").waitFor()
  await page.waitForFunction(() => document.querySelector("[data-testid=settings]")?.contains(document.activeElement))
  for (let index = 0; index < 12; index += 1) {
    await page.keyboard.press("Tab")
    assert.ok(await page.evaluate(() => document.querySelector("[data-testid=settings]")?.contains(document.activeElement)), `Tab ${index + 1} stays in the settings: ${await focused(page)}`)
  }
  await page.keyboard.press("Shift+Tab")
  assert.ok(await page.evaluate(() => document.querySelector("[data-testid=settings]")?.contains(document.activeElement)), "Shift+Tab stays in the settings")
  await page.getByTestId("close-settings").focus()
  await page.screenshot({ path: path.join(artifacts, "keyboard-settings.png") })
  await noSeriousViolations(page, "the settings")
  await page.keyboard.press("Escape")
  await page.getByTestId("settings").waitFor({ state: "detached" })
  await page.waitForFunction((id) => document.activeElement?.matches(`[data-session-id="${id}"] .session-open`), talked.id)

  // The model list: ↓ from the search field to the first model, Enter picks it, back to the composer.
  await page.getByTestId("model-picker").click()
  await page.waitForFunction(() => document.activeElement?.classList.contains("popover-search"))
  await page.keyboard.press("ArrowDown")
  assert.match(await focused(page), /popover-option/)
  await page.keyboard.press("ArrowUp")
  assert.match(await focused(page), /popover-search/)
  await page.keyboard.press("ArrowDown")
  await page.keyboard.press("Enter")
  await page.locator(".popover").waitFor({ state: "detached" })
  await page.waitForFunction(() => document.activeElement?.id === "composer-input")
  // Esc closes the list onto its button.
  await page.getByTestId("model-picker").click()
  await page.waitForFunction(() => document.activeElement?.classList.contains("popover-search"))
  await page.keyboard.press("Escape")
  await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "model-picker")

  await context.close()
})
