"""Code and printed output that fit the page: every line of a chapter's code cells and of its
printed outputs is at most ``WIDTH`` characters (issue 18).

The text column of the built book holds 80 characters of code at the code font size set in
``_static/layout.css`` (measured in Chromium at a 1280 px wide window; see
``tests/test_book_browser_layout.py``, which checks the pages themselves). A longer line is cut
off at the right edge, and the reader misses the end of it, which is often the result. So
chapters wrap code as PEP 8 does (79 characters), print tables with short aligned columns, and
results whose ``repr`` is long wrap it (``attnlib._validation.wrap_fields``).

Code blocks in the prose (the exercise solutions) sit in boxes four columns narrower, so
their lines are at most ``PROSE_WIDTH`` characters. Two lines are exempt: the Colab install line in the setup
cell (its input is removed from the page) and its download of the book's helpers (``book/bookkit.py``), which
must name the repository URL and the pinned commit in one piece (``test_book.py`` checks them against
``_config.yml``).
"""

import ast
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import compact_prints  # noqa: E402, I001
WIDTH = 79
# Code blocks in the prose sit inside exercise and solution boxes, whose padding leaves 76 columns.
PROSE_WIDTH = 75
# A cell whose input is hidden opens in a toggle box a few pixels narrower: a 79-character line
# overflowed it by 5 px in Chromium (CI of 2026-12-06, ch09), a 78-character one fits.
HIDDEN_WIDTH = 78
CHAPTERS = sorted((ROOT / "book").glob("ch[0-9][0-9]_*.ipynb"))
IDS = [p.stem for p in CHAPTERS]
# What the page shows instead of text: figures and live widgets.
NOT_TEXT = ("image/png", "image/svg+xml", "application/pdf", "application/vnd.jupyter.widget-view+json", "text/html")


def cells(path):
    return json.loads(path.read_text())["cells"]


def long_lines(text, width=WIDTH):
    return [line for line in text.splitlines() if len(line) > width]


def code_width(cell):
    """The longest line that fits the box a code cell's input is shown in."""
    return HIDDEN_WIDTH if "hide-input" in cell["metadata"].get("tags", []) else WIDTH


def install_line(cell, line):
    tags = cell["metadata"].get("tags", [])
    hidden = bool({"hide-cell", "remove-input"} & set(tags))
    pinned = r"\s*(%pip install .*git\+https://|!curl .*https://raw\.githubusercontent\.com/.*/book/bookkit\.py$)"
    return hidden and re.match(pinned, line) is not None


def shown_text(output):
    """The text a reader sees for one output, or '' when the page shows something else."""
    if output["output_type"] == "stream":
        return "".join(output["text"])
    if output["output_type"] == "error":
        return "\n".join(output.get("traceback", []))
    data = output.get("data", {})
    if any(kind in data for kind in NOT_TEXT):
        return ""
    return "".join(data.get("text/plain", ""))


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_code_lines_fit_the_column(path):
    too_long = [
        f"cell {i}: {len(line)} characters: {line.strip()[:60]}..."
        for i, cell in enumerate(cells(path))
        if cell["cell_type"] == "code"
        for line in long_lines("".join(cell["source"]), code_width(cell))
        if not install_line(cell, line)
    ]
    assert not too_long, (
        f"{path.name}: code lines over {WIDTH} characters ({HIDDEN_WIDTH} in a hidden input):\n" + "\n".join(too_long))


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_no_print_call_takes_a_line_per_argument(path):
    """The formatter sets a call that does not fit one line one argument per line; scripts/compact_prints.py
    fills them back onto as few lines as fit."""
    exploded = [f"cell {i}: {''.join(cell['source']).strip()[:60]}..." for i, cell in enumerate(cells(path))
                if cell["cell_type"] == "code" and compact_prints.compact_cell("".join(cell["source"]))[1]]
    assert not exploded, (f"{path.name}: print calls one argument per line; run "
                          f"`python scripts/compact_prints.py {path.relative_to(ROOT)}`:\n" + "\n".join(exploded))


def test_compacting_keeps_the_code_and_fills_the_column():
    exploded = 'for s in (1, 2):\n    print(\n        "label:",\n        f(s),\n        "more",\n    )\nx = 1'
    new, count = compact_prints.compact_cell(exploded)
    assert count == 1 and new == 'for s in (1, 2):\n    print("label:", f(s), "more")\nx = 1'
    long = "print(\n" + "".join(f'    "{k:02d}{"x" * 30}",\n' for k in range(4)) + ")"
    new, _ = compact_prints.compact_cell(long)
    assert [len(line) <= WIDTH for line in new.splitlines()] == [True, True] and ast.parse(new)
    nested = 'print(\n    f(\n        1,\n    ),\n)'  # an argument over several lines is left alone
    assert compact_prints.compact_cell(nested) == (nested, 0)


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_printed_lines_fit_the_column(path):
    too_long = [
        f"cell {i}: {len(line)} characters: {line.strip()[:60]}..."
        for i, cell in enumerate(cells(path))
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
        for line in long_lines(shown_text(output))
    ]
    assert not too_long, f"{path.name}: printed lines over {WIDTH} characters:\n" + "\n".join(too_long)


def prose_code(text):
    """Lines of the code blocks in a markdown cell: fenced (```` ``` ```` or ``~~~``; a directive's
    fence such as ```` ```{solution} ```` is not code, but code fences inside it are) and indented
    by four spaces after a blank line (the exercise solutions), without the indentation."""
    found, lines = [], text.split("\n")
    open_fences = []  # (fence, is_code), innermost last
    for k, line in enumerate(lines):
        stripped = line.strip()
        if open_fences and open_fences[-1][1]:  # inside a code block
            if stripped == open_fences[-1][0]:
                open_fences.pop()
            else:
                found.append(line)
            continue
        opener = re.match(r"(`{3,}|~{3,})(.*)", stripped)
        if opener:
            info = opener.group(2).strip()
            if not info and open_fences and stripped == open_fences[-1][0]:
                open_fences.pop()  # the end of a directive
            else:
                code = not info.startswith("{") or info.startswith(("{code-block}", "{code-cell}", "{code}"))
                open_fences.append((opener.group(1), code))
            continue
        if line.startswith("    ") and k > 0 and (lines[k - 1].strip() == "" or lines[k - 1].startswith("    ")):
            found.append(line[4:])
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_code_in_the_prose_fits_the_column(path):
    too_long = [
        f"cell {i}: {len(line)} characters: {line.strip()[:60]}..."
        for i, cell in enumerate(cells(path))
        if cell["cell_type"] == "markdown"
        for line in prose_code("".join(cell["source"]))
        if len(line) > PROSE_WIDTH
    ]
    assert not too_long, f"{path.name}: lines of code blocks in the prose over {PROSE_WIDTH} characters:\n" + "\n".join(
        too_long)


def test_the_check_sees_a_long_line_and_spares_the_install_line():
    setup = {"cell_type": "code", "metadata": {"tags": ["remove-input"]}, "source": []}
    assert install_line(setup, '    %pip install -q "attnlib[viz] @ git+https://github.com/o/r"')
    assert not install_line({**setup, "metadata": {}}, "    %pip install -q git+https://x")
    assert install_line(setup, "    !curl -sSfO https://raw.githubusercontent.com/o/r/" + "a" * 40 + "/book/bookkit.py")
    assert not install_line(setup, "    print('https://raw.githubusercontent.com/o/r/main/book/bookkit.py')")
    assert long_lines("short\n" + "x" * (WIDTH + 1)) == ["x" * (WIDTH + 1)]
    hidden = {"cell_type": "code", "metadata": {"tags": ["hide-input"]}, "source": []}
    assert long_lines("x" * WIDTH, code_width(hidden)) == ["x" * WIDTH]
    assert long_lines("x" * WIDTH, code_width({**hidden, "metadata": {}})) == []
    assert shown_text({"output_type": "display_data", "data": {"image/png": "...", "text/plain": "y" * 99}}) == ""
    assert shown_text({"output_type": "stream", "name": "stdout", "text": ["a\n", "b"]}) == "a\nb"
    prose = "Text.\n\n    x = 1\n\n    y = 2\n\n```python\nz = 3\n```\n\n```{note}\nnot code\n```\nplain"
    assert prose_code(prose) == ["x = 1", "y = 2", "z = 3"]
    nested = "````{solution} ex\n:class: dropdown\n\n```python\nw = 4\n```\n````\n~~~python\nv = 5\n~~~"
    assert prose_code(nested) == ["w = 4", "v = 5"]


def test_the_link_text_check_can_fail():
    """tests/test_book_html.py's check of cross-reference texts finds LaTeX source, and only that."""
    from _site import raw_link_texts

    assert raw_link_texts('<span class="std std-ref">Why \\gamma=1: the margin</span>') == ["Why \\gamma=1: the margin"]
    assert raw_link_texts('<span class="std std-ref">Why $\\gamma$</span>') == ["Why $\\gamma$"]
    assert raw_link_texts('<span class="std std-ref">the section on the margin</span>') == []
