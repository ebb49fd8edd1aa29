"""Re-wrap the chapters' exploded ``print`` calls: the arguments filled onto lines of at most 79 columns.

The formatter (``ruff format``, as black) sets a call that does not fit on one line one argument per
line, so a two-line ``print`` of a label and a value takes five. This puts the arguments back on as few
lines as fit, continued under the first argument, and leaves a cell alone unless its syntax tree is
unchanged. Run it after the formatter::

    ruff format --config book/ruff.toml book/chNN_*.ipynb
    python scripts/compact_prints.py book/chNN_*.ipynb

``tests/test_book_layout.py`` fails on a chapter with a call this would re-wrap.
"""

from __future__ import annotations

import ast
import json
import re
import sys

WIDTH = 79
_OPEN = re.compile(r"^( *)print\($")


def _arguments(lines: list[str]) -> list[str] | None:
    """The arguments of an exploded call, one per line with its trailing comma; None if one spans lines."""
    args = [line.strip() for line in lines]
    if any(not a.endswith(",") for a in args[:-1]):
        return None
    args = [a[:-1] if a.endswith(",") else a for a in args]
    try:
        for a in args:
            ast.parse(a, mode="eval")
    except SyntaxError:
        return None
    return args


def _fill(indent: str, args: list[str]) -> list[str]:
    head = indent + "print("
    lines, current = [], head
    for k, a in enumerate(args):
        piece = a + (", " if k < len(args) - 1 else ")")
        if current != head and len(current.rstrip() + piece.rstrip()) > WIDTH:
            lines.append(current.rstrip())
            current = " " * len(head)
        current += piece
    return lines + [current.rstrip()]


def rewrap(source: str) -> tuple[str, int]:
    """The source with every exploded ``print`` call re-wrapped, and how many were."""
    lines, out, i, count = source.split("\n"), [], 0, 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        end = lines.index(match.group(1) + ")", i + 1) if match and match.group(1) + ")" in lines[i + 1:] else -1
        if end < 0:
            out.append(lines[i])
            i += 1
            continue
        inner = match.group(1) + "    "
        body = lines[i + 1:end]
        args = (_arguments(body) if body and all(b.startswith(inner) and not b.startswith(inner + " ")
                                                 for b in body) else None)
        filled = _fill(match.group(1), args) if args else None
        if filled is None or any(len(line) > WIDTH for line in filled):
            out.append(lines[i])
            i += 1
            continue
        out.extend(filled)
        count += 1
        i = end + 1
    return "\n".join(out), count


def _tree(source: str) -> str:
    """The syntax tree of a cell, its IPython magics read as comments."""
    code = "\n".join("pass  # " + line if line.lstrip().startswith(("%", "!")) else line
                     for line in source.split("\n"))
    return ast.dump(ast.parse(code))


def compact_cell(source: str) -> tuple[str, int]:
    """``rewrap`` of one cell, or the cell unchanged (and 0) if that would change its syntax tree."""
    new, count = rewrap(source)
    return (new, count) if count and _tree(new) == _tree(source) else (source, 0)


def main(paths: list[str]) -> int:
    total = 0
    for path in paths:
        notebook = json.loads(open(path, encoding="utf-8").read())
        changed = 0
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                new, count = compact_cell("".join(cell["source"]))
                if count:
                    cell["source"] = new.splitlines(keepends=True)
                    changed += count
        if changed:
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
        print(f"{path}: {changed} print calls re-wrapped")
        total += changed
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
