#!/usr/bin/env python3
"""Fails when a relative link in the README or the docs pages points nowhere.

    python3 scripts/check-doc-links.py              # README.md and docs/*.md
    python3 scripts/check-doc-links.py FILE.md ...  # only these
    python3 scripts/check-doc-links.py --self-test  # proves the checker catches what it should

A link is broken when its file or folder does not exist, when it leaves the repository (GitHub
cannot show `../shared/...`), or when its `#anchor` names no heading of the Markdown file it
points to (headings are turned into anchors the way GitHub does). Web links (http, https, mailto)
are not fetched: the test run stays on loopback. Links inside code blocks and code spans are
text, not links, so they are skipped. Prints one line per broken link and exits 1 if there is any.
"""

import functools
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# [text](target "title") and ![alt](target); the text may hold one level of brackets.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# [label]: target
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+).*?\1")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def prose_lines(text):
    """The file's lines outside fenced code blocks: (number, line as written, line with its code
    spans blanked)."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        yield number, line, CODE_SPAN.sub(lambda match: " " * len(match.group(0)), line)


def github_slug(heading_text):
    """The anchor GitHub gives a heading: its rendered text in lower case, without punctuation,
    spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading_text)  # a link shows its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML is not text
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters of every script, digits and _
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors_of(path):
    """Every anchor a Markdown file offers: its headings' and explicit `<a name|id="…">` ones."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    found, seen = set(), {}
    for _, line, _ in prose_lines(text):
        heading = HEADING.match(line)
        if heading:
            slug = github_slug(heading.group(2))
            # A repeated heading gets -1, -2, … in the order it appears.
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
        found.update(EXPLICIT_ANCHOR.findall(line))
    return frozenset(found)


def link_targets(text):
    for number, _, line in prose_lines(text):
        for match in INLINE_LINK.finditer(line):
            yield number, match.group(1)
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            yield number, definition.group(1)


def broken_links(markdown_path, root):
    """Each broken link of one file, as a printable line."""
    with open(markdown_path, encoding="utf-8") as file:
        text = file.read()
    shown = os.path.relpath(markdown_path, root)
    problems = []
    for number, target in link_targets(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # http:, https:, mailto: — not ours to fetch
        path_part, _, anchor = target.partition("#")
        path_part = path_part.split("?", 1)[0]
        if path_part:
            if path_part.startswith("/"):
                problems.append(f"{shown}:{number}: {target}: absolute path (use one relative to the file)")
                continue
            resolved = os.path.normpath(os.path.join(os.path.dirname(markdown_path), path_part))
            if os.path.relpath(resolved, root).startswith(".."):
                problems.append(f"{shown}:{number}: {target}: leaves the repository")
                continue
            if not os.path.exists(resolved):
                problems.append(f"{shown}:{number}: {target}: no such file or folder")
                continue
        else:
            resolved = markdown_path
        if anchor:
            if not resolved.endswith(".md") or os.path.isdir(resolved):
                continue  # line anchors of source files (#L10) are GitHub's, not headings
            if anchor not in anchors_of(resolved):
                problems.append(f"{shown}:{number}: {target}: no heading makes the anchor #{anchor}")
    return problems


# Folders that hold other people's Markdown or build output, never ours.
SKIPPED_FOLDERS = {"node_modules", "target", "dist"}


def default_files(root):
    """The top README, every docs page, and the README of every folder (the server's, the UI's,
    the tests'), which people reach from GitHub as often as the docs."""
    docs = os.path.join(root, "docs")
    pages = sorted(
        os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md")
    ) if os.path.isdir(docs) else []
    folder_readmes = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(
            name for name in subfolders if not name.startswith(".") and name not in SKIPPED_FOLDERS
        )
        if folder != root and "README.md" in names:
            folder_readmes.append(os.path.join(folder, "README.md"))
    return [os.path.join(root, "README.md")] + pages + folder_readmes


def check(files, root):
    problems = []
    for path in files:
        problems.extend(broken_links(os.path.abspath(path), root))
    return problems


def self_test():
    """Builds a small tree with one link of each kind and checks what is reported."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        os.makedirs(os.path.join(root, "scripts"))
        with open(os.path.join(root, "scripts", "run.sh"), "w") as file:
            file.write("")
        with open(os.path.join(root, "docs", "page.md"), "w", encoding="utf-8") as file:
            file.write(
                "# Page\n\n## How `search` works, in 中文 too\n\n## Twice\n\n## Twice\n\n"
                "[back](../README.md#top-heading) [self](#twice-1) [bad self](#twice-2)\n"
            )
        with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as file:
            file.write(
                "# Top heading\n\n"
                "[good](docs/page.md) [folder](scripts/) [anchor](docs/page.md#how-search-works-in-中文-too)\n"
                "[web](https://example.com/x) [missing](docs/nothing.md) [bad anchor](docs/page.md#nowhere)\n"
                "[outside](../shared/spec.md) [absolute](/etc/passwd)\n"
                "`[in a span](docs/span-missing.md)`\n\n"
                "```\n[in a block](docs/block-missing.md)\n```\n\n"
                "[ref]: docs/ref-missing.md\n"
            )
        for folder, text in (("server", "[up](../README.md) [gone](src/missing.rs)\n"),
                             ("node_modules/package", "[theirs](nowhere.md)\n")):
            os.makedirs(os.path.join(root, folder))
            with open(os.path.join(root, folder, "README.md"), "w", encoding="utf-8") as file:
                file.write(text)
        reported = check(default_files(root), root)
    expected = [
        "README.md:4: docs/nothing.md: no such file or folder",
        "README.md:4: docs/page.md#nowhere: no heading makes the anchor #nowhere",
        "README.md:5: ../shared/spec.md: leaves the repository",
        "README.md:5: /etc/passwd: absolute path (use one relative to the file)",
        "README.md:12: docs/ref-missing.md: no such file or folder",
        f"docs{os.sep}page.md:9: #twice-2: no heading makes the anchor #twice-2",
        f"server{os.sep}README.md:1: src/missing.rs: no such file or folder",
    ]
    if reported != expected:
        print("check-doc-links self-test FAILED", file=sys.stderr)
        print("expected:\n  " + "\n  ".join(expected), file=sys.stderr)
        print("reported:\n  " + "\n  ".join(reported), file=sys.stderr)
        return 1
    print(f"check-doc-links self-test: the {len(expected)} broken links found, nothing else")
    return 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    files = arguments or default_files(ROOT)
    problems = check(files, ROOT)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} broken link(s) in the documentation", file=sys.stderr)
        return 1
    print(f"Documentation links OK: {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
