"""Every chapter figure has a number, a caption and alt text, and the prose refers to it by number.

In the notebooks (always) and in the built HTML (when ``_build/html`` is built and fresh; see
``tests/_site.py``): each image a chapter shows is a cell with myst-nb figure metadata, whose
alt text describes the figure (``tests/_figures.py``), and which the chapter's markdown cites
with ``{numref}`fig-chNN-slug```. The browser test ``test_book_browser_figures.py`` checks
the same in the rendered page, plus the figure's size against the text column.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from _figures import NAME, alt_problem
from _site import ROOT, build_problem, built, is_chapter, source, toc_docnames

CHAPTERS = [d for d in toc_docnames() if is_chapter(d)]


def figure_cells(docname: str):
    cells = json.loads(source(docname).read_text())["cells"]
    for index, cell in enumerate(cells):
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell["cell_type"] != "code" or {"remove-output", "remove-cell"} & tags:
            continue
        if any(k in o.get("data", {}) for o in cell.get("outputs", []) for k in ("image/png", "image/jpeg",
                                                                                  "image/svg+xml")):
            yield index, cell


def test_alt_text_rules_can_fail():
    assert alt_problem(None) == "no alt text"
    assert "hash" in alt_problem("../_images/3de93d767cb57c65a2b968f84bc1cea016a6691a5162965fce315571a8c08aad.png")
    assert "file name" in alt_problem("ch04_learning_curve.png")
    assert "generic" in alt_problem("Figure")
    assert "shorter than a sentence" in alt_problem("Loss curves.")
    assert alt_problem("Loss against epochs for Adam and for regression; regression reaches 1e-12 in one step, "
                       "Adam plateaus at 1e-3.") is None


@pytest.mark.parametrize("docname", CHAPTERS)
def test_every_figure_is_numbered_captioned_described_and_cited(docname):
    chapter = re.search(r"ch(\d\d)", docname).group(1)
    cells = json.loads(source(docname).read_text())["cells"]
    prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    problems, names = [], []
    for index, cell in figure_cells(docname):
        meta = cell.get("metadata", {}).get("mystnb", {})
        name = meta.get("figure", {}).get("name", "")
        caption = meta.get("figure", {}).get("caption", "")
        where = f"cell {index} ({name or 'no name'})"
        if not NAME.fullmatch(name) or NAME.fullmatch(name).group(1) != chapter:
            problems.append(f"{where}: figure name must be fig-ch{chapter}-<slug>")
        if len(caption.split()) < 5:
            problems.append(f"{where}: no caption (mystnb.figure.caption)")
        if problem := alt_problem(meta.get("image", {}).get("alt")):
            problems.append(f"{where}: {problem} (mystnb.image.alt)")
        if name and f"{{numref}}`{name}`" not in prose:
            problems.append(f"{where}: the prose never refers to it with {{numref}}`{name}`")
        names.append(name)
    if len(set(names)) != len(names):
        problems.append(f"figure names repeat: {names}")
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)


class _Figures(HTMLParser):
    """The images of a page's cell outputs: alt text, enclosing figure, its caption text."""

    def __init__(self, text: str):
        super().__init__()
        self.stack: list[tuple[str, dict]] = []
        self.images: list[dict] = []
        self._caption: dict | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        if tag == "img":
            output = any("cell_output" in a.get("class", "") for _, a in self.stack)
            figure = next((i for i, (t, _) in enumerate(self.stack) if t == "figure"), None)
            image = {"alt": attrs.get("alt"), "src": attrs.get("src", ""), "output": output,
                     "figure": figure is not None, "caption": ""}
            self.images.append(image)
            if figure is not None:
                self.stack[figure][1].setdefault("_images", []).append(image)
            return
        if tag in ("br", "hr", "meta", "link", "input", "source", "col", "wbr"):
            return
        self.stack.append((tag, attrs))
        if tag == "figcaption":
            self._caption = attrs

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                closed = self.stack[i:]
                del self.stack[i:]
                for t, a in closed:
                    if t == "figure":
                        for image in a.get("_images", []):
                            image["caption"] = a.get("_caption", "")
                    if t == "figcaption":
                        figure = next((x for x in reversed(self.stack) if x[0] == "figure"), None)
                        if figure is not None:
                            figure[1]["_caption"] = a.get("_text", "")
                        self._caption = None
                return

    def handle_data(self, data):
        if self._caption is not None:
            self._caption["_text"] = self._caption.get("_text", "") + data


@pytest.mark.parametrize("docname", CHAPTERS)
def test_built_page_shows_every_figure_numbered_with_alt_text(docname):
    if build_problem():
        pytest.skip(f"the HTML half needs a fresh build: {build_problem()}")
    page = _Figures(built(docname).read_text(errors="replace"))
    chapter = int(re.search(r"ch(\d\d)", docname).group(1))
    shown = [i for i in page.images if i["output"]]
    assert len(shown) == len(list(figure_cells(docname))), f"{docname}: images in the page and the notebook differ"
    problems = []
    for image in shown:
        caption = " ".join(image["caption"].split())
        if not image["figure"] or not re.match(rf"Figure {chapter}\.\d+ \S", caption):
            problems.append(f"{image['src']}: not in a figure captioned 'Figure {chapter}.k ...' ({caption[:40]!r})")
        if problem := alt_problem(image["alt"]):
            problems.append(f"{image['src']}: {problem}")
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)


def test_the_notebooks_are_where_the_tests_look():
    assert CHAPTERS and all((ROOT / f"{d}.ipynb").exists() for d in CHAPTERS)
