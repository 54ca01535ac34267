#!/usr/bin/env python3
"""The server's memory before a local model runs, while it is loaded, and after it is unloaded.

    python3 scripts/bench-local-model-memory.py SERVER MODEL.gguf

Issue 30: "after unload the app's memory back within 10 MB of before". Starts `dossier-server`
(the worker is found beside it) on loopback with a fresh data folder, a models folder holding
MODEL (a symbolic link) and `local_models.idle_unload_seconds` = 3, then reads the resident
memory (VmRSS) of the server and of its worker processes at each step:

  1. started, one request answered;
  2. after one reply from the offline stand-in (the server's own first-reply allocations: the
     "before" the target compares with, so what is left is the local model's doing alone);
  3. after one reply from the local model, the worker still holding it;
  4. after the idle unload (the worker has exited).

Prints one table; `docs/benchmarks.md` keeps the figures.
"""

import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time


def resident_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found += [int(child) for child in listing.read().split()]
        except FileNotFoundError:
            pass
    return found


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    server, model = sys.argv[1], os.path.abspath(sys.argv[2])
    folder = tempfile.mkdtemp(prefix="dossier-memory-")
    models = os.path.join(folder, "models")
    os.makedirs(models)
    os.symlink(model, os.path.join(models, os.path.basename(model)))
    config = os.path.join(folder, "config.json")
    with open(config, "w") as file:
        # One thread: memory does not depend on it, and two threads crawl on a busy machine.
        json.dump({"local_models": {"idle_unload_seconds": 3, "models_dir": models, "threads": 1}}, file)
    environment = dict(os.environ, DOSSIER_DATA_DIR=os.path.join(folder, "data"), DOSSIER_CONFIG=config)
    process = subprocess.Popen(
        [server, "--port", "0"], env=environment, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        line = process.stdout.readline()
        port = int(line.rsplit(":", 1)[1].split()[0].strip("/"))

        def call(method: str, path: str, body=None):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            connection.request(method, path, json.dumps(body) if body is not None else None,
                               {"Content-Type": "application/json"})
            response = connection.getresponse()
            data = response.read()
            if response.status >= 400:
                sys.exit(f"{method} {path}: {response.status} {data[:300]!r}")
            return json.loads(data) if data else None

        def reply(provider: str, model_id: str) -> str:
            session = call("POST", "/session", {})
            message = call("POST", f"/session/{session['id']}/message", {
                "model": {"providerID": provider, "modelID": model_id},
                "parts": [{"type": "text", "text": "Say hello in five words."}],
            })
            return "".join(part.get("text", "") for part in message.get("parts", []) if part.get("type") == "text")

        def figures(label: str) -> None:
            server_kib = resident_kib(process.pid)
            workers = children(process.pid)
            worker_kib = sum(resident_kib(child) for child in workers)
            rows.append((label, server_kib, len(workers), worker_kib))

        rows: list = []
        providers = call("GET", "/config/providers")
        local = next(provider for provider in providers["providers"] if provider["id"] == "local")
        local_model = next(iter(local["models"]))
        call("GET", "/session")
        figures("started, one request answered")
        reply("dossier", "offline")
        time.sleep(1)
        figures("after a reply from the offline stand-in")
        text = reply("local", local_model)
        figures("after a reply from the local model")
        deadline = time.time() + 30
        while children(process.pid) and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(1)
        figures("after the idle unload (3 s)")

        print(f"\n{os.path.basename(model)} as local/{local_model}; the reply: {text.strip()[:60]!r}")
        print(f"{'':42}{'server MiB':>12}{'workers':>9}{'worker MiB':>12}")
        for label, server_kib, count, worker_kib in rows:
            print(f"{label:42}{server_kib / 1024:>12.1f}{count:>9}{worker_kib / 1024:>12.1f}")
        before, after = rows[1][1], rows[3][1]
        print(f"server after unload minus before the local reply: {(after - before) / 1024:+.1f} MiB")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


if __name__ == "__main__":
    main()
