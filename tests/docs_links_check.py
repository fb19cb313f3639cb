#!/usr/bin/env python3
"""docs_links: every relative link of README.md and docs/*.md resolves.

    docs_links_check.py SOURCE_DIR [MAX_README_LINES]

For each Markdown link or image, [text](target) or ![alt](target), outside
code fences and inline code: an absolute URL (http:, https:, mailto:) is
skipped; any other target must name an existing file or folder relative to
the page, and a #anchor (on another page or, alone, on this one) must be
the slug of a heading of the target page, by GitHub's rules (lower case;
characters other than letters, digits, marks, '_', '-' and ' ' removed;
spaces to '-'; a repeated slug gets -1, -2, ...). README.md must have at
most MAX_README_LINES lines (default 300), and every code fence is
closed. Exit status 1 with one line per
problem, 0 when all is well.
"""
import os
import re
import sys
import unicodedata

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```+|~~~+)")


def prose_lines(text, unclosed=None):
    """(line number, line) outside fenced code blocks; a fence still open
    at the end is appended to unclosed (its opening line)."""
    fence = None
    opened = 0
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
                opened = n
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            continue
        if fence is None:
            yield n, line
    if fence is not None and unclosed is not None:
        unclosed.append(opened)


def strip_inline_code(line):
    return re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: text
    text = text.lower()
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_ " or cat[0] in "LNM":
            out.append(ch)
    return "".join(out).replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        seen = {}
        result = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in prose_lines(text):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            k = seen.get(base, 0)
            seen[base] = k + 1
            result.add(base if k == 0 else f"{base}-{k}")
        # explicit HTML anchors
        for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):
            result.add(m.group(1))
        _anchor_cache[path] = result
    return _anchor_cache[path]


def check_page(root, page, problems):
    path = os.path.join(root, page)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    links = 0
    unclosed = []
    for n, line in prose_lines(text, unclosed):
        for m in LINK.finditer(strip_inline_code(line)):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # http:, https:, mailto:, ...
            links += 1
            file_part, _, anchor = target.partition("#")
            if file_part:
                dest = os.path.normpath(
                    os.path.join(os.path.dirname(path), file_part))
                if not os.path.exists(dest):
                    problems.append(f"{page}:{n}: {target}: no such file")
                    continue
            else:
                dest = path
            if anchor:
                if not dest.endswith(".md") or os.path.isdir(dest):
                    problems.append(
                        f"{page}:{n}: {target}: anchor on a non-Markdown target")
                elif anchor not in anchors(dest):
                    problems.append(
                        f"{page}:{n}: {target}: no heading with anchor "
                        f"#{anchor} in {os.path.relpath(dest, root)}")
    for n in unclosed:
        problems.append(f"{page}:{n}: code fence never closed")
    return links


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    limit = int(argv[2]) if len(argv) == 3 else 300
    pages = ["README.md"] + sorted(
        "docs/" + p for p in os.listdir(os.path.join(root, "docs"))
        if p.endswith(".md"))
    problems = []
    total = 0
    for page in pages:
        total += check_page(root, page, problems)
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme_lines = f.read().count("\n")
    if readme_lines > limit:
        problems.append(
            f"README.md: {readme_lines} lines, more than {limit}: move "
            f"detail into docs/")
    for p in problems:
        print(p)
    if problems:
        print(f"docs_links: {len(problems)} problem(s)")
        return 1
    print(f"docs_links: {total} relative links in {len(pages)} pages resolve; "
          f"README.md {readme_lines} lines (<= {limit})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
