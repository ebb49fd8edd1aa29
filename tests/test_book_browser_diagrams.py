"""The diagrams as a reader sees them: numbered, captioned, described, and drawn large enough.

Each diagram of ``attnlib.viz.diagrams`` sits in a chapter as a figure with a number, a caption
and alt text, and the prose refers to it by number. Like every figure, a diagram is at most
``COLUMN_IN`` wide with text of ``MIN_PT`` or more (16 px at 100 dpi), so the page shows it at its
natural size, never shrunk, and its smallest text at the body text's 16 px.
A screenshot of each figure goes to _build/screenshots/.
"""

from __future__ import annotations

import re

import pytest
from _browser import SHOTS, Visit

from attnlib.viz._style import DPI, MIN_PT

DIAGRAMS = {
    "ch01_attention": ["fig-ch01-head"],
    "ch03_linear_model": ["fig-ch03-lift"],
    "ch06_expressivity": ["fig-ch06-lookup"],
    "ch07_hypercube": ["fig-ch07-gap"],
    "ch08_sculpting": ["fig-ch08-phases", "fig-ch08-halfspaces"],
    "ch09_heads": ["fig-ch09-face"],
    "ch11_two_roads": ["fig-ch11-roads"],
}


@pytest.mark.parametrize("chapter", sorted(DIAGRAMS))
def test_diagrams_are_numbered_captioned_described_and_legible(chapter, site, browser):  # noqa: F811
    visit = Visit(browser, f"{site}book/{chapter}.html")
    try:
        page = visit.page
        for name in DIAGRAMS[chapter]:
            figure = page.locator(f"figure#{name}")
            assert figure.count() == 1, f"{chapter}: no figure with id {name}"
            info = figure.evaluate("""f => {
                const img = f.querySelector('img');
                const cap = f.querySelector('figcaption');
                return {alt: img ? img.getAttribute('alt') : null,
                        natural: img ? img.naturalWidth : 0, shown: img ? img.getBoundingClientRect().width : 0,
                        caption: cap ? cap.innerText : '',
                        refs: document.querySelectorAll(`a[href="#${f.id}"]`).length};
            }""")
            assert info["alt"] and len(info["alt"]) > 80, f"{name}: alt text missing or too short: {info['alt']!r}"
            assert re.match(r"Fig(\.|ure) \d+\.\d+", info["caption"]), (  # numfig_format may spell it either way
                f"{name}: caption is not numbered: {info['caption'][:60]!r}")
            assert info["refs"] >= 1, f"{name}: no reference to the figure in the text"
            smallest = MIN_PT / 72 * DPI * info["shown"] / max(info["natural"], 1)  # px of the smallest text
            assert info["shown"] >= info["natural"] - 0.5, (
                f"{name}: shrunk to {info['shown']:.0f} px of its {info['natural']} px: "
                f"{MIN_PT} pt text at {smallest:.1f} px")
            SHOTS.mkdir(parents=True, exist_ok=True)
            figure.scroll_into_view_if_needed()
            figure.screenshot(path=str(SHOTS / f"diagram-{name}.png"))
    finally:
        visit.close()
