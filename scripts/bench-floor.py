#!/usr/bin/env python3
"""The floor this machine allows under an HTTP figure: an empty request to the same server
(`GET /path`, which reads nothing from the ledger) over one keep-alive connection, and one
fsync of a 4 KiB write on the disk that holds the data folder; with `--provider`, also the fake
provider's own time from a streamed request to its first text chunk (under "first text after
the POST"). All are measured with the same
Python client the side-by-side bench uses, so a figure divided by the floor says how far above
the machine's own cost the server is.

    python3 scripts/bench-floor.py --base http://127.0.0.1:4096 --folder /tmp/dd \
        [--provider http://127.0.0.1:PORT] [--json out.json]

Prints p50/p99 in milliseconds; asserts nothing.
"""
import argparse
import http.client
import json
import os
import statistics
import tempfile
import time
import urllib.parse


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * fraction))]


def summary(samples):
    return {
        "p50_ms": percentile(samples, 0.5) * 1000,
        "p99_ms": percentile(samples, 0.99) * 1000,
        "mean_ms": statistics.fmean(samples) * 1000,
        "n": len(samples),
    }


def empty_requests(base, count, warmup):
    parsed = urllib.parse.urlparse(base)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
    samples = []
    for index in range(warmup + count):
        started = time.perf_counter()
        connection.request("GET", "/path")
        response = connection.getresponse()
        response.read()
        elapsed = time.perf_counter() - started
        if response.status != 200:
            raise SystemExit(f"GET /path answered {response.status}")
        if index >= warmup:
            samples.append(elapsed)
    connection.close()
    return summary(samples)


def fsyncs(folder, count):
    os.makedirs(folder, exist_ok=True)
    block = os.urandom(4096)
    samples = []
    with tempfile.NamedTemporaryFile(dir=folder, prefix="floor-") as file:
        for _ in range(count):
            file.write(block)
            file.flush()
            started = time.perf_counter()
            os.fsync(file.fileno())
            samples.append(time.perf_counter() - started)
    return summary(samples)


def provider_first_chunks(provider, count, warmup):
    """A streamed chat request straight to the fake provider, on a new connection each time (it
    closes every stream), timed to its first content chunk: the part of "first text after the
    POST" that the provider itself takes."""
    parsed = urllib.parse.urlparse(provider)
    body = json.dumps({
        "model": "fake-model",
        "stream": True,
        "messages": [
            {"role": "system", "content": "You are a helpful assistant. " * 40},
            {"role": "user", "content": "hello"},
        ],
    })
    samples = []
    for index in range(warmup + count):
        started = time.perf_counter()
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
        connection.request("POST", "/v1/chat/completions", body,
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            raise SystemExit(f"the fake provider answered {response.status}")
        while True:
            line = response.readline()
            if not line:
                raise SystemExit("the fake provider's stream ended before any text")
            if line.startswith(b"data: ") and b'"content": "' in line and b'"content": ""' not in line:
                break
        elapsed = time.perf_counter() - started
        connection.close()
        if index >= warmup:
            samples.append(elapsed)
    return summary(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True)
    parser.add_argument("--folder", required=True, help="a folder on the data folder's disk")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--fsyncs", type=int, default=200)
    parser.add_argument("--provider", help="the fake provider's base URL, to time its first chunk")
    parser.add_argument("--json")
    arguments = parser.parse_args()
    floor = {
        "empty_request": empty_requests(arguments.base, arguments.requests, warmup=50),
        "fsync": fsyncs(arguments.folder, arguments.fsyncs),
    }
    if arguments.provider:
        floor["provider_first_chunk"] = provider_first_chunks(arguments.provider, 200, warmup=10)
    for name, figures in floor.items():
        print(f"[floor: {name.replace('_', ' ')}] p50 {figures['p50_ms']:.3f} ms, p99 {figures['p99_ms']:.3f} ms (n={figures['n']})")
    if arguments.json:
        with open(arguments.json, "w") as output:
            json.dump(floor, output, indent=2)


if __name__ == "__main__":
    main()
