#!/usr/bin/env python3
"""Writes the committed seed corpus (fuzz/corpus/<target>/). Run from anywhere; rerun after
editing. Inputs are small and handmade after real wire samples (OpenCode's prompt bodies and
export, OpenAI and Anthropic SSE bodies); the first byte of some targets is a mode byte."""

import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
# Beside the repository, as the core's tests find it.
WIRE = os.path.join(HERE, "../../shared/reference/opencode-wire")


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(data)


shutil.rmtree(CORPUS, ignore_errors=True)

# 1. prompt_input: OpenCode's own prompt bodies, then each draft type and the refusals.
PROMPTS = {
    "opencode-noreply": {
        "parts": [
            {"type": "file", "mime": "text/plain", "filename": "package.json",
             "url": "file:///home/user/demo/package.json"},
            {"type": "text", "text": "explain this project"},
        ],
        "noReply": True,
    },
    "model-agent-variant": {
        "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4"},
        "agent": "plan", "variant": "high", "system": "Be brief.",
        "tools": {"bash": False}, "messageID": "msg_22a00980c001OtSKj3Nt0Sc8jw",
        "parts": [{"type": "text", "id": "prt_22a00a20b0015WRkSUlBJyspmh", "text": "这个文件很大吗？"}],
    },
    "data-url-image": {
        "parts": [{"type": "file", "mime": "image/png", "filename": "dot.png",
                   "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}],
    },
    "file-range": {
        "parts": [{"type": "file", "mime": "text/plain",
                   "url": "file:///home/user/demo/src/main.rs?start=10&end=20",
                   "source": {"type": "file", "path": "src/main.rs",
                              "text": {"value": "@src/main.rs", "start": 0, "end": 12}}}],
    },
    "agent-subtask": {
        "parts": [
            {"type": "agent", "name": "general"},
            {"type": "subtask", "prompt": "find the bug", "description": "debug",
             "agent": "general", "model": {"providerID": "fake", "modelID": "fake-model"}},
        ],
    },
    "mcp-resource": {
        "parts": [{"type": "file", "mime": "text/plain", "url": "docs://readme",
                   "source": {"type": "resource", "clientName": "docs", "uri": "docs://readme",
                              "text": {"value": "@readme", "start": 0, "end": 7}}}],
    },
    "refused-tool-part": {"parts": [{"type": "tool", "tool": "bash", "callID": "c1"}]},
    "refused-repeated-id": {"parts": [{"type": "text", "id": "prt_1", "text": "a"},
                                      {"type": "text", "id": "prt_1", "text": "b"}]},
}
for name, body in PROMPTS.items():
    write("prompt_input", name + ".json", json.dumps(body, ensure_ascii=False))

# 2. data_url: mode byte 1 = parse text, 0 = build from arbitrary (mime, bytes).
for name, url in {
    "base64": "data:text/plain;base64,aGVsbG8gd29ybGQ=",
    "percent": "data:,hello%20there",
    "unpadded": "data:image/png;base64,aGk",
    "charset": "data:text/plain;charset=UTF-8;base64,5paH5Lu2",
    "whitespace": "data:application/pdf;BASE64,JVBE%0ARi0x%20LjQ=",
    "no-comma": "data:text/plain",
}.items():
    write("data_url", name, b"\x01" + url.encode())
write("data_url", "built", b"\x00\x0aimage/jpeg\xff\xd8\xff\xe0")
# The fuzzer's own finding (a comma in the media type changed the bytes), kept as a regression seed.
write("data_url", "regression-comma-in-mime", b"\x1cd%2ata:image/png@base64,gGk")

# 3. session_import: OpenCode's real export, a minimal Dossier one, and an empty session.
with open(os.path.join(WIRE, "16-opencode-export.json"), "rb") as handle:
    export = json.load(handle)
write("session_import", "opencode-export.json", json.dumps(export, ensure_ascii=False))
small = {"info": dict(export["info"]), "messages": export["messages"][:1]}
small["info"]["title"] = "Quarterly report 报告"
write("session_import", "one-message.json", json.dumps(small, ensure_ascii=False))
# The fuzzer's finding: a message id repeated (the import failed as a conflict over a new id).
repeated = {"info": export["info"], "messages": [export["messages"][0], export["messages"][0]]}
write("session_import", "regression-repeated-message-id.json", json.dumps(repeated, ensure_ascii=False))
write("session_import", "no-messages.json",
      json.dumps({"info": export["info"], "messages": []}, ensure_ascii=False))

# 4. sse_stream: header byte = (cut count << 1) | protocol (0 OpenAI, 1 Anthropic), the cut
# points as little-endian u16, then the body.
OPENAI = (
    'data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n'
    'data: {"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"thinking"}}]}\n\n'
    'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hi 你好"}}]}\n\n'
    'data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{\\"filePath\\":"}}]}}]}\n\n'
    'data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"a.txt\\"}"}}]}}]}\n\n'
    'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":2}}}\n\n'
    "data: [DONE]\n\n"
)
OPENAI_CRLF = OPENAI.replace("\n", "\r\n")
OPENAI_ERROR = 'data: {"error":{"message":"Rate limit reached","type":"rate_limit"}}\n\n'
ANTHROPIC_EVENTS = [
    ("message_start", {"type": "message_start", "message": {"usage": {"input_tokens": 12, "cache_read_input_tokens": 2, "output_tokens": 1}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQB"}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
    ("ping", {"type": "ping"}),
    ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi ファイル"}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 1}),
    ("content_block_start", {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {}}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"pattern\":\"x\"}"}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 2}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}}),
    ("message_stop", {"type": "message_stop"}),
]
ANTHROPIC = "".join(f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n" for name, data in ANTHROPIC_EVENTS)
ANTHROPIC_OVERLOADED = 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'


def sse(protocol, body, cuts):
    header = bytes([(len(cuts) << 1) | protocol])
    return header + b"".join(struct.pack("<H", cut) for cut in cuts) + body.encode()


write("sse_stream", "openai", sse(0, OPENAI, [7, 90, 91, 300]))
write("sse_stream", "openai-crlf", sse(0, OPENAI_CRLF, [1, 2, 3, 200, 201]))
write("sse_stream", "openai-cut-mid-reply", sse(0, OPENAI[:260], [100]))
write("sse_stream", "openai-error", sse(0, OPENAI_ERROR, [10]))
write("sse_stream", "anthropic", sse(1, ANTHROPIC, [5, 6, 150, 151, 152]))
write("sse_stream", "anthropic-overloaded", sse(1, ANTHROPIC_OVERLOADED, [12]))
write("sse_stream", "anthropic-no-stop", sse(1, ANTHROPIC.rsplit("event: message_stop", 1)[0], [3]))

# 5. search_query: mode byte (limit, offset, archived, in-session bits), then what was typed.
for index, query in enumerate([
    "quarterly report", "文件", "这个文件很大", "ファイル", "\"tax\" AND NEAR(a b, 2)",
    "title:budget OR ^start*", "café naïve", "İstanbul", "-excluded +required", "\"",
    "*", "()", "AND", "한국어", "🎉", "   ", "a\"b", "x:y:z NOT w",
]):
    write("search_query", f"query-{index:02}", bytes([index * 13 % 256]) + query.encode())

# 6. file_url: mode byte 1 = parse text, 0 = build from arbitrary segments, start, end.
for name, url in {
    "range": "file:///home/user/demo/src/main.rs?start=10&end=20",
    "start-only": "file:///tmp/notes.txt?start=3",
    "hash-in-name": "file:///tmp/issue%20%2317.md#17?start=1&end=2",
    "escaped": "file:///home/user/%E6%96%87%E4%BB%B6.txt?end=5",
    "host": "file://localhost/etc/hosts?start=0&end=0",
    "huge": "file:///tmp/a.txt?start=99999999999&end=18446744073709551615",
    "windows": "file:///C:/Users/me/report.txt?start=2&end=1",
}.items():
    write("file_url", name, b"\x01" + url.encode())
write("file_url", "built", b"\x00\x02\x03src\x07main.rs\x01\x05\x00\x00\x00\x00\x00\x00\x00\x01\x09")

# 7. config_file: OpenCode's JSONC config and a Dossier one with hooks and agents.
write("config_file", "opencode.jsonc", """{
  "$schema": "https://opencode.ai/config.json", // OpenCode writes this
  "theme": "dark",
  /* a block comment */
  "model": "fake/fake-model",
  "small_model": "fake/small",
  "default_agent": "plan",
  "agent": {"reviewer": {"description": "Reviews // not a comment", "mode": "subagent"}},
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:1/v1", "apiKey": "sk-secret"}, "models": {"fake-model": {"name": "Fake"},},},},
}""")
write("config_file", "dossier.json", json.dumps({
    "model": "anthropic/claude-sonnet-4",
    "permission": {"edit": "ask", "bash": {"git *": "allow", "*": "ask"}},
    "agent": {"build": {"model": "openai/gpt-4.1", "temperature": 0.2, "prompt": "{file:./build.md}"}},
    "provider": {"ollama": {"options": {"baseURL": "http://127.0.0.1:11434/v1"},
                            "models": {"qwen3": {"limit": {"context": 32768, "output": 8192}}}}},
    "hooks": {"chat.message": [{"command": ["./hook.sh", "--json"], "timeout": 2000}]},
    "compaction": {"auto": False, "prune": True},
}, indent=2))
write("config_file", "unterminated.jsonc", '{"model": "a/b" /* never closed')

# 8. symbols: first byte picks the grammar (index into `grammars::all()`), second a line.
SYMBOL_SEEDS = [
    (0, 2, "use std::fmt;\n\nimpl fmt::Display for Point {\n    fn fmt(&self) {}\n}\n"),
    (1, 3, "import functools\n\n\n@functools.cache\ndef compute(v):\n    return v\n\nclass A:\n    X = 1\n"),
    (2, 0, "export function start() {\n  return 1;\n}\nfor (let i = 0; i < 3; i++) {}\n"),
    (3, 2, "import { x } from './x';\n\n@Component({})\nexport class Circle {\n  area(): number { return 1; }\n}\n"),
    (4, 2, "import React from 'react';\n\nexport const App = () => (<div>hi</div>);\n"),
    (5, 2, "package main\n\ntype S struct{}\n\nfunc (s *S) Run() {}\nconst A = 1\n"),
    (6, 2, "package a;\n\npublic class G {\n  @Override public String toString() { return \"\"; }\n}\n"),
    (7, 2, "#include <stdio.h>\n\nstatic int *find(struct point *p) {\n  return 0;\n}\n"),
    (8, 0, "namespace n {\ntemplate <typename T>\nT twice(T v) { return v; }\nclass C { void m() {} };\n}\n"),
    (9, 2, "using System;\nnamespace App;\npublic class G\n{\n    public void Greet() {}\n}\n"),
    (10, 1, "module Shop\n  class Cart\n    def self.empty; end\n  end\nend\n"),
    (11, 2, "<?php\nnamespace App;\nfunction greet() {}\nclass G { const A = 1; public function m() {} }\n"),
    (12, 4, "Intro\n\n# Guide\n\n## Install\n\nRun.\n\nTitle\n=====\n"),
    (0, 1, "fn broken( {\n}\nfn fine() {}\n" + "{" * 200),
]
for index, (grammar, line, source) in enumerate(SYMBOL_SEEDS):
    write("symbols", f"seed-{index:02}", bytes([grammar, line]) + source.encode())
