"""The layout of every chapter page as a reader sees it, measured in Chromium (issue 18).

For each chapter of the table of contents, at a 1280 x 900 window (the fixtures of
``tests/_browser.py``), after MathJax has typeset the page and with every dropdown open
(solutions, asides, the hidden setup cell: a reader can open them), the test fails on

- a code or output block wider than its box (``scrollWidth > clientWidth``): the reader does
  not see the end of the line, which is often the result;
- a table wider than the text column;
- one cell's printed output split into several boxes (streams not merged: ``nb_merge_streams``);
- a doubled label, such as "Proposition Proposition 1.3" (a word before a reference that
  already renders the word);
- test-harness text on the page (``NBVAL``, ``noqa``, ``nbval-``): nbval reads cell tags;
- raw ``$`` or a raw role (``{doc}``, ``{ref}``...) inside a blockquote: a line of a paragraph
  that began with ``>`` and turned into a quotation of unrendered source.

For each chapter it saves ``_build/screenshots/layout-<chapter>.png``, the window at the
first code cell with output, and, when a block is clipped, ``layout-<chapter>-clipped.png`` of
the first such block.

Every page of the table of contents is also opened at a 390 x 844 phone viewport: the page must
not be wider than the screen (a table, a display equation or a code block scrolls inside its own
box; nothing pushes the page sideways), and it, like the desktop page, offers exactly one search
box. ``_build/screenshots/phone/<page>.png`` is the top of each page at phone width. The source-side
check of the same rule (lines of at most 79 characters) is ``tests/test_book_layout.py``.

Skipped with a message when the book is not built or Chromium is missing, except under
``BOOK_HTML_TESTS=required`` (``.ci/run``).
"""

from __future__ import annotations

import re

import pytest
from _browser import ORPHANED_PUNCTUATION, SCROLL_CUES, SHOTS, Visit, scroll_cue_problems
from _site import is_chapter, toc_docnames

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHAPTERS = [d for d in toc_docnames() if is_chapter(d)]
LABELS = (r"Proposition|Lemma|Theorem|Definition|Corollary|Algorithm|Exercise|Solution|Figure|Table|Section|Remark"
          r"|Example")
DOUBLED = re.compile(rf"\b({LABELS})\s+\1\b", re.I)
HARNESS = re.compile(r"NBVAL|nbval-|#\s*noqa\b")
RAW_IN_QUOTE = re.compile(r"\$|\{(?:doc|ref|numref|prf:ref|cite(?::\w+)?|eq|math|term)\}`")

# Open what a reader can open (solutions, asides, the hidden setup cell), so their code is measured too.
OPEN_ALL = r"""() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  document.querySelectorAll(".toggle-hidden").forEach(e => e.classList.remove("toggle-hidden"));
}"""

MEASURE = r"""() => {
  const column = document.querySelector("main article") || document.querySelector("main");
  const width = column.getBoundingClientRect().width;
  const visible = e => e.clientWidth > 0 && e.getBoundingClientRect().height > 0 &&
    e.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
  const blocks = [...column.querySelectorAll("div.cell pre, div.highlight pre")].filter(visible);
  // The Colab install line of the setup cell, and its download of book/bookkit.py, name the
  // repository URL in one piece (test_book.py checks them); the cell is collapsed until the reader
  // opens it. Measure its block without them.
  const pinned = l => l.includes("%pip install") || l.includes("/book/bookkit.py");
  const wider = p => {
    if (p.scrollWidth <= p.clientWidth + 1) return false;
    if (!p.textContent.split("\n").some(pinned)) return true;
    const copy = p.cloneNode(true);
    copy.textContent = p.textContent.split("\n").filter(l => !pinned(l)).join("\n");
    p.parentElement.appendChild(copy);
    const still = copy.scrollWidth > copy.clientWidth + 1;
    copy.remove();
    return still;
  };
  const clipped = blocks.filter(wider);
  clipped.forEach((p, k) => p.setAttribute("data-layout-clipped", k));
  const plain = e => {
    const c = e.cloneNode(true);
    c.querySelectorAll("mjx-container, script, style").forEach(x => x.remove());
    return c.textContent;
  };
  return {
    column: width,
    blocks: blocks.length,
    clipped: clipped.map(p => ({
      where: p.closest(".cell_output") ? "output" : "code",
      over: p.scrollWidth - p.clientWidth,
      line: p.textContent.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "").slice(0, 90),
    })),
    tables: [...column.querySelectorAll("table")].filter(visible)
      .filter(t => t.getBoundingClientRect().width > width + 1 || t.scrollWidth > t.clientWidth + 1)
      .map(t => `${Math.round(t.getBoundingClientRect().width)}px: ` + t.textContent.trim().slice(0, 60)),
    split: [...column.querySelectorAll("div.cell_output")]
      .filter(o => o.querySelectorAll(":scope > div.output.stream, :scope > div.output.stderr").length > 1)
      .map(o => o.textContent.trim().slice(0, 60)),
    text: plain(column),
    quotes: [...column.querySelectorAll("blockquote")].map(plain),
  };
}"""


def problems_on(info: dict) -> list[str]:
    """Everything the reader would see wrong on one page, from the measurements of MEASURE."""
    found = [f"{c['where']} block {c['over']}px wider than its box: {c['line']!r}" for c in info["clipped"]]
    found += [f"table wider than the {info['column']:.0f}px column: {t}" for t in info["tables"]]
    found += [f"one cell's printed output split into several boxes: {t!r}" for t in info.get("split", [])]
    text = re.sub(r"\s+", " ", info["text"])
    found += [f"doubled label: ...{text[max(0, m.start() - 30):m.end() + 20]}..." for m in DOUBLED.finditer(text)]
    found += [f"harness text on the page: ...{text[max(0, m.start() - 40):m.end() + 20]}..."
              for m in HARNESS.finditer(text)]
    for quote in info["quotes"]:
        if RAW_IN_QUOTE.search(quote):
            found.append(f"raw math or role in a blockquote: {quote.strip()[:80]!r}")
    return found


@pytest.mark.parametrize("docname", CHAPTERS)
def test_chapter_fits_the_column(docname, pages):
    page = pages.visit(docname).page
    name = docname.split("/")[-1]
    page.evaluate(OPEN_ALL)
    page.wait_for_timeout(300)
    info = page.evaluate(MEASURE)
    SHOTS.mkdir(parents=True, exist_ok=True)
    first = page.locator("div.cell:has(div.cell_output pre)").first
    if first.count():
        first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"layout-{name}.png"))
    if info["clipped"]:  # a picture of the first clipped block, for the report; not a check
        try:
            page.locator('[data-layout-clipped="0"]').screenshot(
                path=str(SHOTS / f"layout-{name}-clipped.png"), timeout=5_000)
        except Exception:  # noqa: BLE001
            pass
    assert info["blocks"] > 0, f"{docname}: no code blocks found; has the page structure changed?"
    problems = problems_on(info)
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)


def test_the_checks_find_what_they_look_for():
    """Each check fails on an example of what it exists to catch, and passes clean text."""
    clean = {"column": 700, "clipped": [], "tables": [], "text": "By Proposition 1.3 and exercise 2.1",
             "quotes": ["a quoted sentence"]}
    assert problems_on({**clean, "text": "fine: Proposition 1.3 and exercise 2"}) == []
    assert problems_on({**clean, "clipped": [{"where": "output", "over": 40, "line": "x"}]})
    assert problems_on({**clean, "tables": ["720px: | a | b |"]})
    assert problems_on({**clean, "split": ["d  psi  N"]})
    assert any("doubled" in p for p in problems_on({**clean, "text": "see Proposition Proposition 1.3"}))
    assert any("doubled" in p for p in problems_on({**clean, "text": "exercise Exercise 1.5"}))
    assert any("harness" in p for p in problems_on({**clean, "text": "# NBVAL_IGNORE_OUTPUT x = 1"}))
    assert any("harness" in p for p in problems_on({**clean, "text": "f = lambda: 0  # noqa: E731"}))
    assert any("blockquote" in p for p in problems_on({**clean, "quotes": ["0$, {doc}`chapter 5 <ch05>`"]}))


# --------------------------------------------------------------------------- a phone, and the search box

PAGES = toc_docnames()

# What makes the page wider than the viewport: the innermost elements that reach past its right edge,
# outside any box that scrolls or clips its own content.
TOO_WIDE = r"""() => {
  const view = document.documentElement.clientWidth;
  const clipped = e => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden" || o === "clip") return true;
    }
    return false;
  };
  const out = [...document.querySelectorAll("body *")].filter(e => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.right > view + 1 && getComputedStyle(e).position !== "fixed" && !clipped(e);
  });
  const innermost = out.filter(e => !out.some(o => o !== e && e.contains(o)));
  return {view, page: document.documentElement.scrollWidth,
          wide: innermost.slice(0, 5).map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join(".")} ` +
            `(${Math.round(e.getBoundingClientRect().right)}px): ${(e.textContent || "").trim().slice(0, 50)}`)};
}"""

SEARCH = r"""() => [...document.querySelectorAll(".search-button__button, .bd-search input, form[role=search] input")]
  .filter(e => e.offsetParent !== null && e.getBoundingClientRect().width > 0 &&
               getComputedStyle(e).visibility !== "hidden").length"""


def width_problems(info: dict) -> list[str]:
    if info["page"] <= info["view"] + 1:
        return []
    return [f"the page is {info['page']} px wide in a {info['view']} px viewport; widest: {info['wide']}"]


@pytest.mark.parametrize("docname", PAGES)
def test_page_fits_a_phone_and_has_one_search_box(docname, pages):
    page = pages.visit(docname, phone=True).page
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(300)
    info = page.evaluate(TOO_WIDE)
    searches = page.evaluate(SEARCH)
    cues = page.evaluate(SCROLL_CUES)
    orphans = page.evaluate(ORPHANED_PUNCTUATION)
    folder = SHOTS / "phone"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{docname.replace('/', '-')}.png"))
    problems = width_problems(info) + scroll_cue_problems(cues, phone=True)
    problems += [f"punctuation after inline math starts a line: {o!r}" for o in orphans]
    if searches != 1:
        problems.append(f"{searches} search boxes on the phone page; one is enough")
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("docname", [PAGES[0], PAGES[1]])
def test_the_desktop_page_has_one_search_box(docname, site, browser):
    visit = Visit(browser, f"{site}{docname}.html")
    try:
        searches = visit.page.evaluate(SEARCH)
    finally:
        visit.close()
    assert searches == 1, f"{docname}: {searches} search boxes; one is enough"


def test_the_width_check_can_fail():
    assert width_problems({"page": 390, "view": 390, "wide": []}) == []
    assert width_problems({"page": 612, "view": 390, "wide": ["code.literal (612px): book/_build/..."]})
