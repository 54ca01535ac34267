#!/usr/bin/env python3
"""Differential of a symbol-range prompt: OpenCode with real language servers against Dossier.

Driven by scripts/differential-symbols.sh, which starts both servers on loopback. This writes
real-looking TypeScript and Python files into the project folder, posts the same noReply prompt
with a `file://…?start=N&end=N` draft to both servers, reads back the stored user message and
compares the parts that matter (ids and times ignored). Exits 1 on any difference, 2 when
OpenCode's language servers never answered (a run that measured nothing must not pass).
Standard library only.
"""
import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

TYPESCRIPT_FILE = """\
export interface Shape {
  area(): number;
}

function sealed(constructor: Function) {
  Object.seal(constructor);
}

@sealed
export class Circle implements Shape {
  constructor(private radius: number) {}

  area(): number {
    return Math.PI * this.radius * this.radius;
  }

  static unit(): Circle {
    return new Circle(1);
  }
}

/**
 * Adds two numbers; the comment is part of the function's documentation.
 */
export function add(left: number, right: number): number {
  const total = left + right;
  return total;
}

export const LIMIT = 10;

export enum Colour {
  Red,
  Green,
}
"""

TYPESCRIPT_FIRST_LINE_FILE = """\
export function first(): string {
  return "on line 1";
}

export function second(): string {
  return "on line 5";
}
"""

PYTHON_FILE = """\
import functools

LIMIT = 10


@functools.cache
def area(radius: float) -> float:
    \"\"\"Area of a circle, cached.\"\"\"
    return 3.14159 * radius * radius


class Shape:
    \"\"\"A shape with a name.\"\"\"

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def label(self) -> str:
        return self.name.title()


@dataclass_like
class Point:
    x: int = 0
    y: int = 0


def plain(value):
    # a line inside the function
    result = value * 2
    return result
"""

PYTHON_FIRST_LINE_FILE = """\
def first():
    return 1


def second():
    return 2
"""

TYPESCRIPT_EXTRA_FILE = """\
import { readFileSync } from "fs";

export const double = (value: number): number => {
  return value * 2;
};

export type Pair = {
  left: number;
  right: number;
};

export namespace Geometry {
  export function origin(): number {
    return 0;
  }
}

export function outer(): number {
  const settings = {
    depth: 2,
    name: "outer",
  };
  function inner(): number {
    return settings.depth;
  }
  return inner();
}

export abstract class Base {
  abstract run(): void;
}

export const handlers = {
  onClick() {
    return readFileSync;
  },
};

export class Store {
  private cache = new Map<string, number>([
    ["a", 1],
  ]);
}

export function locals(): number {
  const list = [
    1,
    2,
  ];
  const pick = (index: number) => {
    return list[index];
  };
  return pick(0);
}

export const settings = {
  nested: {
    depth: 2,
  },
};
"""

PYTHON_EXTRA_FILE = """\
import asyncio

CONFIG = {
    "depth": 2,
    "name": "outer",
}


async def fetch(delay: float) -> None:
    await asyncio.sleep(delay)


def outer():
    settings = {
        "depth": 2,
    }

    def inner():
        return settings["depth"]

    return inner()


class Holder:
    items = [
        1,
        2,
    ]

    class Inner:
        pass
"""

# (file name, line N as sent (a language server's 0-based line), what it exercises)
CASES = [
    ("shapes.ts", 4, "function, 0-based start"),
    ("shapes.ts", 8, "decorated class (decorator line)"),
    ("shapes.ts", 9, "decorated class (class line)"),
    ("shapes.ts", 12, "nested method area()"),
    ("shapes.ts", 16, "nested static method"),
    ("shapes.ts", 21, "doc comment above function"),
    ("shapes.ts", 24, "function after doc comment"),
    ("shapes.ts", 25, "line inside a function"),
    ("shapes.ts", 29, "exported const"),
    ("shapes.ts", 31, "enum"),
    ("shapes.ts", 33, "enum member (nested)"),
    ("first.ts", 0, "symbol on line 1 (N=0)"),
    ("first.ts", 4, "second function"),
    ("shapes.py", 0, "import on line 1 (N=0)"),
    ("shapes.py", 2, "module-level constant"),
    ("shapes.py", 5, "decorated function (decorator line)"),
    ("shapes.py", 6, "decorated function (def line)"),
    ("shapes.py", 7, "docstring line inside function"),
    ("shapes.py", 11, "class"),
    ("shapes.py", 14, "nested method __init__"),
    ("shapes.py", 17, "nested decorated method (decorator)"),
    ("shapes.py", 22, "decorated class (decorator line)"),
    ("shapes.py", 24, "class field (nested)"),
    ("shapes.py", 28, "plain function"),
    ("shapes.py", 30, "line inside a function"),
    ("first.py", 0, "symbol on line 1 (N=0)"),
    ("first.py", 4, "second function"),
    ("extra.ts", 2, "exported arrow-function const"),
    ("extra.ts", 6, "multi-line type alias"),
    ("extra.ts", 11, "namespace"),
    ("extra.ts", 12, "function in a namespace (nested)"),
    ("extra.ts", 17, "function with locals"),
    ("extra.ts", 18, "multi-line local const (nested)"),
    ("extra.ts", 22, "local function (nested)"),
    ("extra.ts", 28, "abstract class"),
    ("extra.ts", 32, "object-literal const"),
    ("extra.ts", 33, "object-literal method (nested)"),
    ("extra.ts", 39, "multi-line class property (nested)"),
    ("extra.ts", 45, "multi-line local array (nested)"),
    ("extra.ts", 49, "local arrow-function const (nested)"),
    ("extra.ts", 56, "multi-line object property (nested)"),
    ("extra.py", 2, "multi-line module-level dict"),
    ("extra.py", 8, "async function"),
    ("extra.py", 12, "function with locals"),
    ("extra.py", 13, "multi-line local dict (nested)"),
    ("extra.py", 17, "local function (nested)"),
    ("extra.py", 23, "class"),
    ("extra.py", 24, "multi-line class attribute (nested)"),
    ("extra.py", 29, "nested class"),
]

FILES = {
    "shapes.ts": TYPESCRIPT_FILE,
    "first.ts": TYPESCRIPT_FIRST_LINE_FILE,
    "shapes.py": PYTHON_FILE,
    "first.py": PYTHON_FIRST_LINE_FILE,
    "extra.ts": TYPESCRIPT_EXTRA_FILE,
    "extra.py": PYTHON_EXTRA_FILE,
}

# A top-level symbol per language whose widening proves the language server answered.
READINESS_PROBES = [("shapes.ts", 4), ("shapes.py", 28)]


def request(base, method, path, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else None


def wait_ready(base, deadline_seconds=180):
    end = time.time() + deadline_seconds
    while time.time() < end:
        try:
            request(base, "GET", "/session", timeout=0.5)
            return True
        except Exception:  # noqa: BLE001 - still starting; OpenCode may hang a request while starting
            time.sleep(0.3)
    return False


def prompt_body(path, line):
    return {
        "noReply": True,
        "parts": [
            {"type": "file", "mime": "text/plain", "filename": os.path.basename(path),
             "url": "file://%s?start=%d&end=%d" % (path, line, line)},
            {"type": "text", "text": "look at this"},
        ],
    }


def stored_parts(base, path, line):
    """Posts the prompt in a new session and returns the user message's parts, ids and times removed."""
    session = request(base, "POST", "/session", {})
    request(base, "POST", "/session/%s/message" % session["id"], prompt_body(path, line), timeout=120)
    messages = request(base, "GET", "/session/%s/message" % session["id"])
    users = [m for m in messages if (m.get("info") or {}).get("role") == "user"]
    if not users:
        return []
    kept = []
    for part in users[-1].get("parts", []):
        kind = part.get("type")
        if kind == "text":
            kept.append({"type": "text", "synthetic": bool(part.get("synthetic")), "text": part.get("text")})
        elif kind == "file":
            kept.append({"type": "file", "url": part.get("url"), "mime": part.get("mime"),
                         "filename": part.get("filename")})
        else:
            kept.append({"type": kind})
    return kept


def read_call(parts):
    """The offset/limit of the synthetic Read-call text, or None."""
    prefix = "Called the Read tool with the following input: "
    for part in parts:
        if part["type"] == "text" and part["synthetic"] and (part["text"] or "").startswith(prefix):
            arguments = json.loads(part["text"][len(prefix):])
            return arguments.get("offset"), arguments.get("limit")
    return None


def describe_difference(left, right):
    if len(left) != len(right):
        return "part count %d vs %d" % (len(left), len(right))
    for index, (a, b) in enumerate(zip(left, right)):
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            return "part %d (%s) differs in %s" % (index, a.get("type"), ",".join(keys))
    return ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opencode", required=True, help="OpenCode base URL (loopback)")
    parser.add_argument("--dossier", required=True, help="dossier-server base URL (loopback)")
    parser.add_argument("--project", required=True, help="folder the files are written into")
    parser.add_argument("--json", help="write every case's parts here")
    parser.add_argument("--ready-timeout", type=float, default=120)
    arguments = parser.parse_args()
    for base in (arguments.opencode, arguments.dossier):
        if not base.startswith(("http://127.", "http://localhost", "http://[::1]")):
            sys.exit("not a loopback URL: %s" % base)

    paths = {}
    for name, text in FILES.items():
        paths[name] = os.path.join(os.path.abspath(arguments.project), name)
        with open(paths[name], "w") as handle:
            handle.write(text)

    for name, base in (("opencode", arguments.opencode), ("dossier", arguments.dossier)):
        if not wait_ready(base):
            sys.exit("%s at %s never answered GET /session" % (name, base))

    # OpenCode asks for a file's symbols before its Read tool opens the file in the language
    # server, so the first prompt for each file records the one-line read (the server is not
    # started, or does not have the file yet). Read every file once, without a range, in a
    # throwaway session first; then probe a top-level function per language until OpenCode
    # widens it, and say how long that took.
    for name in FILES:
        session = request(arguments.opencode, "POST", "/session", {})
        warm_up = prompt_body(paths[name], 0)
        warm_up["parts"][0]["url"] = "file://" + paths[name]
        request(arguments.opencode, "POST", "/session/%s/message" % session["id"], warm_up, timeout=120)
    probe_report = []
    for name, line in READINESS_PROBES:
        started = time.time()
        attempts = 0
        widened = False
        first = None
        while time.time() - started < arguments.ready_timeout:
            attempts += 1
            call = read_call(stored_parts(arguments.opencode, paths[name], line))
            if first is None:
                first = call
            if call and call[1] not in (None, 1):
                widened = True
                break
            time.sleep(1)
        probe_report.append((name, line, widened, attempts, time.time() - started, first))
        print("readiness probe %s line %d: %s after %d prompt(s), %.1f s (first prompt recorded offset/limit %s)"
              % (name, line, "widened" if widened else "NEVER widened", attempts, time.time() - started, first))
    try:
        print("OpenCode GET /lsp: %s" % json.dumps(request(arguments.opencode, "GET", "/lsp", timeout=10)))
    except (urllib.error.URLError, ValueError) as error:
        print("OpenCode GET /lsp failed: %s" % error)
    if not all(report[2] for report in probe_report):
        print("FAIL: OpenCode recorded nothing from its language server for %s — the run measured nothing"
              % ", ".join("%s" % r[0] for r in probe_report if not r[2]))
        return 2

    rows = []
    details = []
    for name, line, what in CASES:
        opencode_parts = stored_parts(arguments.opencode, paths[name], line)
        dossier_parts = stored_parts(arguments.dossier, paths[name], line)
        same = opencode_parts == dossier_parts
        rows.append((name, line, what, read_call(opencode_parts), read_call(dossier_parts),
                     "match" if same else "DIFF", "" if same else describe_difference(opencode_parts, dossier_parts)))
        details.append({"file": name, "line": line, "what": what, "opencode": opencode_parts,
                        "dossier": dossier_parts})

    def fmt(call):
        return "-" if call is None else "%s/%s" % call

    header = ("file", "N", "case", "OpenCode off/lim", "Dossier off/lim", "result", "detail")
    table = [header] + [(r[0], str(r[1]), r[2], fmt(r[3]), fmt(r[4]), r[5], r[6]) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
    differences = sum(1 for r in rows if r[5] != "match")
    print("%d cases, %d match, %d differ" % (len(rows), len(rows) - differences, differences))
    if arguments.json:
        with open(arguments.json, "w") as handle:
            json.dump(details, handle, indent=1)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
