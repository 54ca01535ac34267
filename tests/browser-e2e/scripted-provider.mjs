// A fake model provider for the browser tests: a real HTTP server on 127.0.0.1 speaking the
// OpenAI-compatible streaming protocol (SSE chunks of `chat.completion.chunk`), whose reply is
// chosen by a word in the newest user message, so one server can be slow (to be stopped), long
// (to be followed) or carry links, or ask for a tool call. Title requests get a short title at once.
import http from "node:http"

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The reply for a user message: a list of deltas and the pause between them. */
export function script(userText) {
  if (/\bshaped benchmark\b/i.test(userText)) {
    // The same 2,500 numbered words and pace, shaped as a model writes: each 250 words are two
    // paragraphs, a five-item list, a code block of five lines, and a paragraph.
    return { deltas: Array.from({ length: 2500 }, (_, index) => shapedDelta(index)), pause: 4, rate: 500 }
  }
  if (/\bbenchmark\b/i.test(userText)) {
    // bench.mjs: 2,500 numbered words at 500 deltas a second, paced by the clock (a timer
    // wakes late on a loaded machine, so each wake sends what is due by then).
    return { deltas: Array.from({ length: 2500 }, (_, index) => `d${index} `), pause: 4, rate: 500 }
  }
  if (/\bslow\b/i.test(userText)) {
    return { deltas: Array.from({ length: 300 }, (_, index) => `word${index} `), pause: 100 }
  }
  if (/\blinks\b/i.test(userText)) {
    return {
      deltas: [
        "Read [the guide](https://example.com/guide) or ",
        "[this local file](file:///etc/passwd) or ",
        "[a script](javascript:alert(1)).",
      ],
      pause: 5,
    }
  }
  if (/\brawhtml\b/i.test(userText)) {
    return { deltas: ['Some <b>raw</b> HTML: <img src="missing.png" alt="a missing picture" onerror="alert(1)"> ', "<script>alert(2)</script>end."], pause: 5 }
  }
  if (/\btabular\b/i.test(userText)) {
    // A narrow table (whose "Cost" once broke mid-word), inline code, a quote and a table too
    // wide for an 800-pixel window, streamed a row at a time.
    const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    return {
      deltas: [
        "Here is the **budget**; run `estimate_cost --monthly` before you commit.\n\n",
        "| Item | Cost | Notes |\n|---|--:|---|\n",
        "| Rent | 1,200 | Paid on the first of the month |\n",
        "| Groceries | 450 | Includes `household` items |\n",
        "| Transport | 95 | Monthly pass |\n\n",
        "> Budgets are plans, not promises: look at them again every month.\n\n",
        "The whole year:\n\n",
        `| Category | ${months.join(" | ")} |\n|---|${months.map(() => "--:").join("|")}|\n`,
        `| Housing | ${months.map(() => "1,200").join(" | ")} |\n`,
        `| Groceries | ${months.map((_, index) => String(430 + index * 5)).join(" | ")} |\n\n`,
        "Done.",
      ],
      pause: 20,
    }
  }
  if (/\bcode\b/i.test(userText)) {
    return { deltas: ["Here is **the fix**:\n\n", "```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nDone."], pause: 5 }
  }
  if (/\bthinking\b/i.test(userText)) {
    // A model that takes its time before the first word (the typing indicator's moment).
    return { deltas: ["Here I am, ", "after a pause."], pause: 5, before: 2500 }
  }
  if (/\blong\b/i.test(userText)) {
    return { deltas: Array.from({ length: 120 }, (_, index) => `Line ${index} of a long reply.\n\n`), pause: 40 }
  }
  return { deltas: ["A short answer ", "from the scripted model."], pause: 5 }
}

/** Word `index` of the shaped benchmark's reply, with the Markdown around it. */
export function shapedDelta(index) {
  const word = `d${index} `
  const at = index % 250
  if (at === 59 || at === 109 || at === 249) return `${word}\n\n` // the ends of the paragraphs
  if (at >= 110 && at < 160) {
    const item = at - 110
    if (item % 10 === 0) return `- ${word}`
    return item === 49 ? `${word}\n\n` : item % 10 === 9 ? `${word}\n` : word
  }
  if (at >= 160 && at < 210) {
    const line = at - 160
    if (line === 0) return `\`\`\`python\n${word}`
    if (line === 49) return `${word}\n\`\`\`\n\n`
    return line % 10 === 9 ? `${word}\n` : word
  }
  return word
}

function lastUserText(body) {
  const users = (body.messages ?? []).filter((message) => message.role === "user")
  const content = users.at(-1)?.content ?? ""
  return typeof content === "string" ? content : content.map((piece) => piece.text ?? "").join(" ")
}

const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "scripted", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

/** Starts the provider on a free port; `config(baseUrl)` is the dossier.json that uses it. */
export async function startScriptedProvider() {
  const server = http.createServer((request, response) => {
    let raw = ""
    request.on("data", (piece) => (raw += piece))
    request.on("end", async () => {
      const body = JSON.parse(raw || "{}")
      const isTitle = JSON.stringify(body.messages ?? []).includes("title generator")
      // "toolcall <name>" asks for a call of the tool <name> (no arguments), once: after the
      // tool's result comes back the reply is the usual short answer.
      const wantedTool = isTitle ? null : /\btoolcall (\S+)/.exec(lastUserText(body))?.[1]
      if (wantedTool && body.messages?.at(-1)?.role !== "tool") {
        response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
        response.write(chunk({ role: "assistant", content: "" }))
        response.write(chunk({ tool_calls: [{ index: 0, id: "call_scripted_1", type: "function", function: { name: wantedTool, arguments: "{}" } }] }))
        response.write(chunk({}, "tool_calls"))
        response.end("data: [DONE]\n\n")
        return
      }
      const { deltas, pause, before = 0, rate } = isTitle ? { deltas: ["Scripted session"], pause: 0 } : script(lastUserText(body))
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      let closed = false
      response.on("close", () => (closed = true))
      await sleep(before)
      if (closed) return
      response.write(chunk({ role: "assistant", content: "" }))
      const started = performance.now()
      for (const [index, delta] of deltas.entries()) {
        if (closed) return
        response.write(chunk({ content: delta }))
        // With a rate, sleep only once ahead of the clock; otherwise `pause` after every delta.
        if (rate === undefined || index + 1 >= ((performance.now() - started) / 1000) * rate) await sleep(pause)
      }
      response.write(chunk({}, "stop"))
      response.write(`data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 10, completion_tokens: deltas.length, total_tokens: 10 + deltas.length } })}\n\n`)
      response.end("data: [DONE]\n\n")
    })
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const baseUrl = `http://127.0.0.1:${server.address().port}/v1`
  return {
    config: {
      model: "scripted/scripted-model",
      provider: { scripted: { npm: "@ai-sdk/openai-compatible", options: { baseURL: baseUrl, apiKey: "sk-test" }, models: { "scripted-model": { name: "Scripted" } } } },
    },
    stop: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }),
  }
}
