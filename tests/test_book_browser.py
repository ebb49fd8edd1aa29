"""The built book in a real browser, the way a reader meets it.

Python Playwright drives Debian's Chromium (``/usr/bin/chromium``, or the path in
``$CHROMIUM``; ``bash scripts/install_chromium.sh`` installs it). The test serves
``_build/html`` on localhost, blocks every request to another host (so each page
is also checked as an offline reader sees it), visits every page of the table of
contents, and fails on

- a JavaScript error, other than the few known requests to outside hosts
  (``OUTSIDE`` below, listed in CONTRIBUTING.md under "Reading offline");
- a broken internal link or anchor, or an image that does not load;
- raw MyST or directive text on the page (``{prf:``, ``{exercise}``, ``:::`` ...);
- a chapter page showing fewer figures than its notebook has (e.g. a build whose
  kernels did not use the inline backend);
- math that MathJax (served with the book) did not typeset, or typeset with errors;
- a widget output without the note that stands in for its live controls.

It also types a query into the search box and switches to the dark theme. A
full-page screenshot of every page lands in ``_build/screenshots/`` (git-ignored),
with ``report.txt`` listing per page the blocked outside requests and any display
math too wide for the text column (a warning, not a failure).

Skipped with a message when the book is not built or Chromium is missing, except
under ``BOOK_HTML_TESTS=required`` (``.ci/run``), where both are failures.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from _browser import (
    ORPHANED_PUNCTUATION,
    OUTSIDE,
    SCROLL_CUES,
    SHOTS,
    PlaywrightTimeout,
    Visit,
    screenshot,
    scroll_cue_problems,
    wait_for_math,
)
from _site import CONFIG, HTML, element_ids, image_outputs, is_chapter, toc_docnames

pytestmark = [pytest.mark.slow, pytest.mark.browser]

DOCNAMES = toc_docnames()
RAW_MARKUP = re.compile(
    r"\{(?:prf:\w+|exercise|solution|cite(?::\w+)?|ref|numref|eq|doc|term|math|py:\w+|glue(?::\w+)?"
    r"|admonition|note|warning|tip|figure|image|code-cell|dropdown|bibliography|eval-rst)\}"
    r"|:::|```|\\begin\{|\$\$",
    re.M,
)
RAW_INLINE_MATH = re.compile(r"(?<![\w\\])\$[^$\s][^$\n]{0,80}?\$(?!\w)")


@pytest.fixture(scope="session")
def report():
    """Collects what each page did; written to _build/screenshots/report.{json,txt} at the end."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages: dict[str, dict] = {}
    yield pages
    (SHOTS / "report.json").write_text(json.dumps(pages, indent=1, sort_keys=True))
    lines = []
    for name, info in pages.items():
        outside = sorted(set(info.get("outside", [])))
        lines.append(f"{name}: {info.get('seconds', 0):.1f} s, {len(outside)} outside request(s) blocked")
        lines += [f"    {url}" for url in outside]
        lines += [f"    display math wider than the text column (scrolls sideways): {w}"
                  for w in info.get("wide_math", [])]
    (SHOTS / "report.txt").write_text("\n".join(lines) + "\n")


INSPECT = r"""() => {
  const main = document.querySelector("main") || document.body;
  const clone = main.cloneNode(true);
  clone.querySelectorAll("pre, code, script, style, textarea, mjx-container, .math, .highlight")
       .forEach(e => e.remove());
  const math = [...document.querySelectorAll("span.math, div.math")];
  return {
    images: [...document.images].map(i => ({
      src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0,
      output: !!i.closest(".cell_output, .output")})),
    links: [...document.querySelectorAll("a[href]")].map(a => a.href),
    ids: [...document.querySelectorAll("[id]")].map(e => e.id),
    text: clone.textContent,
    math: math.length,
    untypeset: math.filter(m => !m.querySelector("mjx-container")).map(m => m.textContent.slice(0, 60)),
    matherrors: [...document.querySelectorAll("mjx-merror, [data-mjx-error]")]
                 .map(e => e.getAttribute("data-mjx-error") || e.textContent.slice(0, 60))
                 .concat([...document.querySelectorAll('mjx-assistive-mml mtext[mathcolor="red"]')]
                   .map(e => e.textContent).filter(t => t.startsWith("\\"))
                   .map(t => `undefined macro ${t}`)),
    wide: [...document.querySelectorAll('mjx-container[display="true"]')]
          .filter(m => m.scrollWidth > m.clientWidth + 1)
          .map(m => `${m.scrollWidth}px in ${m.clientWidth}px: ` +
               (m.closest(".math") || m).textContent.replace(/\s+/g, " ").trim().slice(0, 50)),
    widgets: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
    widgetnotes: document.querySelectorAll("p.widget-note").length,
  };
}"""


def pdf_edition() -> Path:
    """Where ``scripts/book_pdf.py`` puts the PDF edition, which every page's download menu links."""
    name = CONFIG.get("sphinx", {}).get("config", {}).get("book_pdf_name", "learning-attention-provably.pdf")
    return HTML / name


def broken_links(links: list[str], base: str, here: str, ids_here: set[str]) -> list[str]:
    """Links to the served book that lead nowhere. The PDF edition's link counts only once the PDF is
    built: the README's build command makes the HTML alone, and ``tests/test_book_pdf.py`` checks that
    every page links the PDF where it was built."""
    broken = []
    for href in links:
        url = urlsplit(href)
        if url.scheme not in ("http", "https") or url.netloc != urlsplit(base).netloc:
            continue
        path = unquote(url.path).lstrip("/")
        target = HTML / path
        if path == "" or path.endswith("/"):
            target = target / "index.html"
        if not target.is_file():
            if target.resolve() != pdf_edition().resolve() or pdf_edition().exists():
                broken.append(f"{href} (no such file)")
            continue
        anchor = unquote(url.fragment)
        if anchor and target.suffix == ".html":
            ids = ids_here if target.resolve() == (HTML / here).resolve() else set()
            if anchor not in ids and anchor not in element_ids(target):
                broken.append(f"{href} (no element with id {anchor!r})")
    return broken


def test_the_pdf_link_counts_once_the_pdf_is_built(tmp_path, monkeypatch):
    """Without the PDF (the README's build command), its link is not broken; with it, a wrong link is."""
    monkeypatch.setattr(sys.modules[__name__], "HTML", tmp_path)
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "ch01.html").write_text('<p id="top">')
    base = "http://127.0.0.1:8000/"
    pdf = pdf_edition().name
    links = [f"{base}{pdf}", f"{base}book/ch01.html#top"]
    assert broken_links(links, base, "book/ch01.html", {"top"}) == []
    assert (broken_links([f"{base}missing.html"], base, "book/ch01.html", set())
            == [f"{base}missing.html (no such file)"])
    (tmp_path / pdf).write_bytes(b"%PDF-1.5")          # built: its link resolves
    assert broken_links(links, base, "book/ch01.html", {"top"}) == []
    assert broken_links([f"{base}book/{pdf}"], base, "book/ch01.html", set()) == [f"{base}book/{pdf} (no such file)"]
    (tmp_path / pdf).unlink()
    assert broken_links([f"{base}other.pdf"], base, "book/ch01.html", set()) == [f"{base}other.pdf (no such file)"]


# --------------------------------------------------------------------------- the pages


@pytest.mark.parametrize("docname", DOCNAMES)
def test_page_reads_well(docname, site, pages, report):
    start = time.perf_counter()
    visit = pages.visit(docname)
    page = visit.page
    mathjax = wait_for_math(page)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_load_state("networkidle", timeout=60_000)  # a loaded machine needs more than 20 s
    info = page.evaluate(INSPECT)
    cues = page.evaluate(SCROLL_CUES)
    orphans = page.evaluate(ORPHANED_PUNCTUATION)
    screenshot(page, SHOTS / f"{docname}.png")
    report[docname] = {"seconds": time.perf_counter() - start, "outside": visit.outside,
                       "outside_errors": visit.outside_errors, "wide_math": info["wide"]}

    problems = [f"console: {e}" for e in visit.errors]
    unknown = sorted({u for u in visit.outside if not any(p.fullmatch(u) for p in OUTSIDE)})
    problems += [f"request to an outside host that an offline reader cannot reach: {u}" for u in unknown]
    problems += [f"broken link: {b}" for b in broken_links(info["links"], site, f"{docname}.html", set(info["ids"]))]
    problems += [f"image does not load: {i['src']}" for i in info["images"] if not i["ok"]]
    problems += [f"raw markup on the page: ...{m.string[max(0, m.start() - 40):m.end() + 40]!r}..."
                 for m in [*RAW_MARKUP.finditer(info["text"]), *RAW_INLINE_MATH.finditer(info["text"])]]
    if info["math"]:
        if not mathjax:
            problems.append(f"{info['math']} formulas but MathJax did not load")
        problems += [f"math not typeset: {t!r}" for t in info["untypeset"]]
        problems += [f"MathJax error: {t!r}" for t in info["matherrors"]]
    if is_chapter(docname):
        want = image_outputs(docname)
        shown = sum(1 for i in info["images"] if i["output"] and i["ok"])
        if shown < want:
            problems.append(f"chapter shows {shown} figures; its notebook has {want}")
    problems += scroll_cue_problems(cues, phone=False)
    problems += [f"punctuation after inline math starts a line: {o!r}" for o in orphans]
    if info["widgets"] != info["widgetnotes"]:
        problems.append(f"{info['widgets']} widget outputs but {info['widgetnotes']} notes for their controls")
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)


def test_the_scroll_cue_check_can_fail():
    """Each rule of the sideways-scrolling check fails on what it exists to catch and passes a clean page."""
    fits = {"kind": "math", "text": "a = b", "scroll": 300, "box": 600, "painted": False, "masked": False,
            "marked": False, "focusable": False, "wraps": False}
    wide = {**fits, "scroll": 700, "box": 360, "masked": True, "marked": True, "focusable": True}
    output = {**wide, "kind": "output"}
    assert scroll_cue_problems([fits], phone=False) == []
    assert scroll_cue_problems([fits, wide, output], phone=True) == []
    assert scroll_cue_problems([output], phone=False) == []  # the column test measures outputs at desktop width
    assert any("painted" in p for p in scroll_cue_problems([{**fits, "painted": True}], phone=False))
    assert any("that fits" in p for p in scroll_cue_problems([{**fits, "masked": True}], phone=True))
    assert any("desktop width" in p for p in scroll_cue_problems([wide], phone=False))
    assert any("wraps its lines" in p for p in scroll_cue_problems([{**output, "wraps": True}], phone=True))
    for missing in ("masked", "marked", "focusable"):
        assert any("without a visible cue" in p for p in scroll_cue_problems([{**wide, missing: False}], phone=True))


# --------------------------------------------------------------------------- search and dark mode


def test_search_box_finds_the_chapters(site, browser):
    visit = Visit(browser, f"{site}index.html")
    page = visit.page
    try:
        page.wait_for_load_state("networkidle", timeout=60_000)  # a loaded machine needs more than 20 s
        box = page.locator("#pst-search-dialog input[name='q']")
        for attempt in range(3):  # a click before the theme's script is ready does nothing
            page.locator("button.search-button__button:visible").first.click()
            try:
                box.wait_for(state="visible", timeout=5_000)
                break
            except PlaywrightTimeout:
                if attempt == 2:
                    raise
        box.fill("certificate")
        box.press("Enter")
        page.wait_for_url(re.compile(r"search\.html\?q=certificate"), timeout=20_000)
        results = page.locator("#search-results ul.search li")
        results.first.wait_for(timeout=30_000)
        # Sphinx lists the results one by one, API pages (object matches) first: read them when it has
        # listed them all and says so
        page.locator("#search-results p.search-summary", has_text="Search finished").wait_for(timeout=90_000)
        hrefs = results.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
        page.screenshot(path=str(SHOTS / "search.png"), full_page=False)
    finally:
        visit.close()
    assert not visit.errors, visit.errors
    chapters = [d for d in DOCNAMES if is_chapter(d)]
    assert any(any(h.split("?")[0].split("#")[0].endswith(f"{d}.html") for h in hrefs) for d in chapters), hrefs
    assert prose_first(hrefs), (
        f"the API reference is listed before the book's prose (_static/search-scorer.js): {hrefs}")


def prose_first(hrefs: list[str]) -> bool:
    """Every result in the book's prose comes before every result in the API reference. Sphinx lists
    the non-main entries of the index ({index} marks, anchors #index-N) after all the rest, by design:
    they are left out."""
    api = [("/api/" in h or h.startswith("api/")) for h in hrefs if not re.search(r"#index-\d+$", h)]
    return api == sorted(api)


def test_the_search_order_check_can_fail():
    assert prose_first(["ch05_certificate.html#x", "intro.html", "api/rkhs.html#attnlib.rkhs.Certificate"])
    assert not prose_first(["api/rkhs.html#attnlib.rkhs.Certificate", "ch05_certificate.html#x"])
    assert prose_first(["ch05_certificate.html", "api/rkhs.html#attnlib.rkhs.Certificate",
                        "ch05_certificate.html#index-1"])


def test_live_code_explains_itself_offline(site, browser):
    """Thebe needs the internet; offline, the Live Code button says so instead of spinning."""
    chapter = next(d for d in DOCNAMES if is_chapter(d))
    visit = Visit(browser, f"{site}{chapter}.html")
    page = visit.page
    try:
        page.evaluate("() => initThebeSBT()")
        button = page.locator("button.thebe-launch-button.thebe-offline")
        button.wait_for(timeout=20_000)
        text = button.inner_text()
    finally:
        visit.close()
    assert "needs an internet connection" in text
    assert any("thebe" in url for url in visit.outside), visit.outside
    assert not visit.errors, visit.errors


def _background_luminance(page) -> float:
    rgb = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    r, g, b = (int(v) for v in re.findall(r"\d+", rgb)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_theme_switches_to_dark_and_stays(site, browser):
    chapter = next(d for d in DOCNAMES if is_chapter(d))
    visit = Visit(browser, f"{site}{chapter}.html")
    page = visit.page
    try:
        assert _background_luminance(page) > 0.8, "the light theme should be light"
        for _ in range(3):
            if page.evaluate("() => document.documentElement.dataset.theme") == "dark":
                break
            page.locator("button.theme-switch-button").first.click()
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
        page.wait_for_timeout(300)  # the theme's colour transition
        assert _background_luminance(page) < 0.2, "the dark theme did not darken the page"
        page.reload(wait_until="load")
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark", "dark mode not remembered"
        wait_for_math(page)
        screenshot(page, SHOTS / f"{chapter}-dark.png")
    finally:
        visit.close()
    assert not visit.errors, visit.errors
