"""The built book as the HTML tests see it: the pages of the table of contents and their files.

The tests of the built book (``test_book_html.py``, ``test_book_browser.py``) need
``_build/html`` from ``jupyter-book build .``. Without it, or when a page is older
than its source, they are skipped with a message saying so. ``.ci/run`` sets
``BOOK_HTML_TESTS=required`` after its build, which turns every such skip
(including a missing Chromium) into a failure.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
REQUIRED = os.environ.get("BOOK_HTML_TESTS") == "required"


def _entries(items):
    for item in items or []:
        if "file" in item:
            yield item["file"]
        yield from _entries(item.get("sections"))


def toc_docnames() -> list[str]:
    """Every page of the table of contents, in reading order (``book/ch01_attention`` etc.)."""
    names = [TOC["root"]]
    for part in TOC.get("parts", []):
        names.extend(_entries(part.get("chapters")))
    names.extend(_entries(TOC.get("chapters")))
    return names


def toc_top_docnames() -> list[str]:
    """The pages at the top level of the table of contents (chapters and appendices, not their sections)."""
    names = [TOC["root"]]
    for part in TOC.get("parts", []):
        names.extend(item["file"] for item in part.get("chapters") or [] if "file" in item)
    names.extend(item["file"] for item in TOC.get("chapters") or [] if "file" in item)
    return names


def source(docname: str) -> Path:
    for ext in (".ipynb", ".md"):
        path = ROOT / f"{docname}{ext}"
        if path.exists():
            return path
    raise FileNotFoundError(f"{docname} is in _toc.yml but has no .ipynb or .md source")


def is_chapter(docname: str) -> bool:
    """A notebook page: it carries launch buttons and figures."""
    return source(docname).suffix == ".ipynb"


def built(docname: str) -> Path:
    return HTML / f"{docname}.html"


def build_problem() -> str | None:
    """Why the built book cannot be tested, or None."""
    if not (HTML / "index.html").exists():
        return "no built book in _build/html: build it first with `jupyter-book build .`"
    for docname in toc_docnames():
        page = built(docname)
        if not page.exists():
            return f"{page.relative_to(ROOT)} is missing: rebuild with `jupyter-book build .`"
        if page.stat().st_mtime < source(docname).stat().st_mtime:
            return f"{page.relative_to(ROOT)} is older than its source: rebuild with `jupyter-book build .`"
    return None


def skip_or_fail(reason: str):
    """Skip, except under ``BOOK_HTML_TESTS=required`` (CI), where it is a failure."""
    if REQUIRED:
        pytest.fail(f"{reason} (BOOK_HTML_TESTS=required)")
    pytest.skip(reason)


def require_build() -> None:
    problem = build_problem()
    if problem:
        skip_or_fail(problem)


def image_outputs(docname: str) -> int:
    """How many figures (PNG, JPEG or SVG outputs) a chapter notebook shows."""
    cells = json.loads(source(docname).read_text())["cells"]
    count = 0
    for cell in cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or {"remove-output", "remove-cell"} & set(tags):
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if any(key in data for key in ("image/png", "image/jpeg", "image/svg+xml")):
                count += 1
    return count


@cache
def element_ids(path: Path) -> frozenset[str]:
    """The ids and anchor names in a built HTML file."""
    text = path.read_text(errors="replace")
    return frozenset(re.findall(r'\s(?:id|name)="([^"]+)"', text))


RAW_LINK_TEXT = re.compile(r'<span class="std std-ref">([^<]*[\\$][^<]*)</span>')


def raw_link_texts(html: str) -> list[str]:
    """Cross-reference texts that show LaTeX source: a {ref} to a heading with math takes the heading's
    raw text, so such a link needs words of its own."""
    return RAW_LINK_TEXT.findall(html)
