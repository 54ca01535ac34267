// Settings → Models on this computer in a browser against the real server (issue 30): the
// library is a small fake model served by a loopback HTTP server (DOSSIER_MODEL_LIBRARY_URL and
// DOSSIER_MODEL_LIBRARY_FILE point the server at it), sent slowly with Range support so the
// progress bar is seen moving; the download is verified and the model shows as installed, then
// deleted with its space said.
import { test, after } from "node:test"
import assert from "node:assert/strict"
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import { mkdtempSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { artifacts, serverAndBrowser } from "./support.mjs"

const MODEL_BYTES = 3 * 1024 * 1024

/** A GGUF v3 header naming architecture `llama`, padded to the model's size. */
function fakeModel() {
  const key = Buffer.from("general.architecture")
  const value = Buffer.from("llama")
  const header = Buffer.alloc(4 + 4 + 8 + 8 + 8 + key.length + 4 + 8 + value.length)
  let at = header.write("GGUF", 0)
  at = header.writeUInt32LE(3, at)
  at = header.writeBigUInt64LE(0n, at)
  at = header.writeBigUInt64LE(1n, at)
  at = header.writeBigUInt64LE(BigInt(key.length), at)
  at += key.copy(header, at)
  at = header.writeUInt32LE(8, at)
  at = header.writeBigUInt64LE(BigInt(value.length), at)
  value.copy(header, at)
  const body = Buffer.alloc(MODEL_BYTES - header.length)
  for (let index = 0; index < body.length; index++) body[index] = (index * 31 + 7) % 251
  return Buffer.concat([header, body])
}

const model = fakeModel()
let fileServer
const requests = []

// Started before the file's server (top-level await), so the environment is set when it starts.
{
  fileServer = createServer((request, response) => {
    requests.push(request.headers.range ?? null)
    const start = Number(/bytes=(\d+)-/.exec(request.headers.range ?? "")?.[1] ?? 0)
    const headers = { "content-length": String(model.length - start) }
    if (start > 0) headers["content-range"] = `bytes ${start}-${model.length - 1}/${model.length}`
    response.writeHead(start > 0 ? 206 : 200, headers)
    // 96 KiB every 100 ms: about three seconds for the whole file, long enough to be seen.
    let offset = start
    const timer = setInterval(() => {
      const end = Math.min(offset + 96 * 1024, model.length)
      response.write(model.subarray(offset, end))
      offset = end
      if (offset >= model.length) {
        clearInterval(timer)
        response.end()
      }
    }, 100)
    request.on("close", () => clearInterval(timer))
  })
  await new Promise((resolve) => fileServer.listen(0, "127.0.0.1", resolve))
  const folder = mkdtempSync(path.join(os.tmpdir(), "dossier-library-"))
  const library = path.join(folder, "library.json")
  writeFileSync(
    library,
    JSON.stringify({
      about: ["A fake library for the browser test."],
      models: [
        {
          id: "tiny-e2e-model",
          displayName: "Tiny test model",
          repository: "dossier/tiny",
          revision: "0".repeat(40),
          fileName: "tiny-e2e-model.gguf",
          quantization: "Q4_K_M",
          sizeBytes: model.length,
          sha256: createHash("sha256").update(model).digest("hex"),
          licence: "Apache-2.0",
          memoryBytes: model.length + 1000,
          checked: "made by the test",
        },
      ],
    }),
  )
  process.env.DOSSIER_MODEL_LIBRARY_URL = `http://127.0.0.1:${fileServer.address().port}`
  process.env.DOSSIER_MODEL_LIBRARY_FILE = library
}

const run = serverAndBrowser()

after(() => {
  fileServer?.close()
})

test("a model downloads with its progress bar visible, is verified and installed, then deleted", async () => {
  const context = await run.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" })
  const page = await context.newPage()
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await page.getByTestId("new-session").waitFor()
  await page.keyboard.press("Control+,")
  const section = page.getByTestId("local-model-settings")
  await section.waitFor()
  const row = section.getByTestId("local-model")
  await row.waitFor()
  assert.match(await row.innerText(), /Tiny test model/)
  assert.match(await row.innerText(), /Recommended for this computer/)
  assert.match(await row.innerText(), /3\.0 MB download/)

  await row.getByRole("button", { name: "Download Tiny test model" }).click()
  const bar = row.getByTestId("local-model-progress")
  await bar.waitFor()
  // Bytes arrive: the line says how many, the speed and the time left.
  await page.waitForFunction(() => /MB of 3\.0 MB · [\d.]+ (KB|MB)\/s/.test(document.querySelector("[data-testid=local-model-progress-line]")?.textContent ?? ""))
  await row.scrollIntoViewIfNeeded()
  await page.screenshot({ path: path.join(artifacts, "local-models-downloading.png") })
  const value = Number(await bar.getAttribute("value"))
  assert.ok(value > 0 && value < 100, `progress ${value}`)

  await row.getByTestId("local-model-installed").waitFor({ timeout: 20_000 })
  await page.screenshot({ path: path.join(artifacts, "local-models-installed.png") })
  assert.deepEqual(requests, [null])
  const listed = await run.api("GET", "/dossier/local-models")
  assert.equal(listed.library[0].installed, true)

  await row.getByRole("button", { name: "Delete Tiny test model" }).click()
  assert.match(await row.getByTestId("delete-local-model-confirm").innerText(), /gives back 3\.0 MB/)
  await row.getByTestId("confirm-delete-local-model").click()
  await page.getByTestId("local-models-notice").waitFor()
  assert.match(await page.getByTestId("local-models-notice").innerText(), /Tiny test model was deleted; 3\.0 MB of disk space is free again/)
  assert.equal(await row.getByTestId("local-model-installed").count(), 0)
  assert.deepEqual(problems, [])
  await context.close()
})
