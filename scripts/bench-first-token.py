#!/usr/bin/env python3
"""Time to the first token of a 200-token prompt through Dossier's local model worker.

    python3 scripts/bench-first-token.py WORKER MODEL.gguf [THREADS] [REPETITIONS] [PROMPT_TOKENS]

Speaks the worker's own JSON lines (docs/local-models.md) as the core does: `load` once, then per
repetition a `generate` whose one user message makes a templated prompt of PROMPT_TOKENS tokens
(200 by default; the words are calibrated on a first run from the `done` event's `prompt_tokens`),
greedy, one token. The figure is the time from writing `generate` to reading the first `delta`
(or `done`, should the first token end the reply): the whole path a reply takes in the worker —
template, tokenising, a fresh context, the prompt's batch, sampling, the JSON line. Printed as one
JSON line for scripts/bench-local-model.sh, which prints llama-bench's own figure beside it.
"""

import json
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    worker, model = sys.argv[1], sys.argv[2]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    repetitions = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    wanted = int(sys.argv[5]) if len(sys.argv) > 5 else 200

    process = subprocess.Popen(
        [worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )

    def send(request: dict) -> None:
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()

    def receive() -> dict:
        line = process.stdout.readline()
        if not line:
            sys.exit("the worker ended: " + str(process.wait()))
        return json.loads(line)

    assert receive()["type"] == "ready"
    send({"type": "load", "path": model, "threads": threads})
    loaded = receive()
    if loaded["type"] != "loaded":
        sys.exit("the model did not load: " + json.dumps(loaded))

    def first_token(words: int, identifier: str) -> tuple[float, int]:
        # Numbered words tokenise to a steady count per word in every vocabulary tried.
        text = " ".join(f"w{index % 97}" for index in range(words))
        started = time.perf_counter()
        send({
            "type": "generate",
            "id": identifier,
            "messages": [{"role": "user", "content": text}],
            "max_tokens": 1,
            "temperature": 0,
        })
        first = None
        while True:
            event = receive()
            if event["type"] in ("delta", "done") and first is None:
                first = time.perf_counter() - started
            if event["type"] == "error":
                sys.exit("the worker refused: " + json.dumps(event))
            if event["type"] == "done":
                return first, event["prompt_tokens"]

    # Calibrate the number of words to the wanted prompt length (a warm-up run each time).
    words = wanted // 3
    for attempt in range(8):
        _, tokens = first_token(words, f"calibrate-{attempt}")
        if tokens == wanted:
            break
        words = max(1, words + round((wanted - tokens) * words / max(tokens, 1)))
        if tokens > wanted and attempt > 4:
            words -= 1
    seconds = [first_token(words, f"run-{run}")[0] for run in range(repetitions)]
    _, tokens = first_token(words, "check")
    process.stdin.close()
    process.wait()
    print(json.dumps({
        "model": model,
        "threads": threads,
        "prompt_tokens": tokens,
        "first_token_ms_median": round(statistics.median(seconds) * 1000, 1),
        "first_token_ms_min": round(min(seconds) * 1000, 1),
        "repetitions": repetitions,
    }))


if __name__ == "__main__":
    main()
