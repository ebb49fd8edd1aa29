"""The chapter figures as a reader sees them in the browser (issues 14 and 18).

On every chapter page, at a 1280 x 900 window, every image of a cell output must

- sit in a ``<figure>`` whose caption starts with its number, "Figure N.k", N the chapter;
- carry alt text that describes it (``tests/_figures.py``: a sentence, not a file name or hash);
- be cited in the text: a link "Figure N.k" to the figure's anchor ({numref});
- be shown at its natural size, not shrunk into the column, so that text drawn at the book's
  smallest figure font (``attnlib.viz._style.MIN_PT`` at ``DPI``) is at least as large on the
  page as the body text: ``MIN_PT * DPI / 72 * (shown width / natural width)`` px.

The rendered sizes go to ``_build/screenshots/figures.txt``, and a screenshot of each figure
to ``_build/screenshots/figures/``. Skipped like ``test_book_browser.py`` when the book is not
built or Chromium is missing, except under ``BOOK_HTML_TESTS=required``.
"""

from __future__ import annotations

import re

import pytest
from _browser import SHOTS, Visit, browser, site  # noqa: F401 (fixtures)
from _figures import alt_problem
from _site import is_chapter, toc_docnames

from attnlib.viz._style import DPI, MIN_PT

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHAPTERS = [d for d in toc_docnames() if is_chapter(d)]

MEASURE = r"""() => {
  const body = parseFloat(getComputedStyle(document.querySelector("main p") || document.body).fontSize);
  // a widget's frames are not chapter figures: the static figure above it is (its frames carry
  // their own alt text, and tests/test_book_browser_widgets.py checks them)
  const images = [...document.querySelectorAll(".cell_output img")]
    .filter(img => !img.closest(".jupyter-widgets") && !img.src.startsWith("blob:"));
  return {body, images: images.map((img, k) => {
    const figure = img.closest("figure");
    const caption = figure ? figure.querySelector("figcaption") : null;
    const column = img.closest(".cell_output").getBoundingClientRect().width;
    const id = figure ? figure.id : "";
    const cited = id ? [...document.querySelectorAll(`a[href="#${id}"]`)]
                        .filter(a => !a.closest("figure")).map(a => a.textContent.trim()) : [];
    return {k, src: img.getAttribute("src"), alt: img.getAttribute("alt"), natural: img.naturalWidth,
            shown: img.getBoundingClientRect().width, column, id, cited,
            caption: caption ? caption.textContent.replace(/\s+/g, " ").trim() : null};
  })};
}"""


@pytest.fixture(scope="module")
def sizes():
    rows: list[str] = []
    yield rows
    SHOTS.mkdir(parents=True, exist_ok=True)
    header = (f"chapter figures at a 1280 px window: natural and shown width (px), column width, and the size "
              f"on the page of {MIN_PT} pt figure text at {DPI} dpi")
    (SHOTS / "figures.txt").write_text("\n".join([header, *rows]) + "\n")


@pytest.mark.parametrize("docname", CHAPTERS)
def test_chapter_figures_are_numbered_described_cited_and_legible(docname, site, browser, sizes):  # noqa: F811 (fixtures)
    chapter = int(re.search(r"ch(\d\d)", docname).group(1))
    visit = Visit(browser, f"{site}{docname}.html")
    page = visit.page
    try:
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for_timeout(300)
        info = page.evaluate(MEASURE)
        figures = page.locator(".cell_output figure")
        for k in range(figures.count()):
            figures.nth(k).screenshot(path=str(SHOTS / "figures" / f"{docname.split('/')[-1]}-{k + 1}.png"))
    finally:
        visit.close()
    problems = []
    for image in info["images"]:
        scale = image["shown"] / max(image["natural"], 1)
        px = MIN_PT * DPI / 72 * scale
        label = (image["caption"] or "")[:12]
        sizes.append(f"{docname.split('/')[-1]:22} {label:12} natural {image['natural']:4d}  shown "
                     f"{image['shown']:6.1f}  column {image['column']:6.1f}  {MIN_PT} pt -> {px:4.1f} px")
        where = f"image {image['k'] + 1} ({image['src']})"
        number = re.match(rf"Figure ({chapter}\.\d+)\.? \S", image["caption"] or "")
        if not number:
            problems.append(f"{where}: not in a figure captioned 'Figure {chapter}.k ...': {image['caption']!r}")
        elif f"Figure {number.group(1)}" not in image["cited"]:
            problems.append(f"{where}: the text never cites Figure {number.group(1)} (links: {image['cited']})")
        if problem := alt_problem(image["alt"]):
            problems.append(f"{where}: {problem}")
        if image["shown"] < image["natural"] - 0.5:
            problems.append(f"{where}: {image['natural']} px wide, shown at {image['shown']:.0f} px in a "
                            f"{image['column']:.0f} px column: shrunk to {scale:.2f}, its smallest text is {px:.1f} px")
        elif px < info["body"] - 0.5:
            problems.append(f"{where}: figure text renders at {px:.1f} px, below the body's {info['body']:.0f} px")
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)
