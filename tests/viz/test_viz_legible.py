"""Every figure of attnlib.viz reads at page width and without colour (issues 14 and 18).

Each figure function is drawn once with chapter-like data (``_examples.py``) and checked for:

- width: the SVG the notebook stores (tight bounding box; one inch is ``DPI`` = 96 CSS px) fits the
  672 px box of a figure in the HTML book at a 1280 px window, so it is never shrunk there, and it
  is narrow enough that, shrunk into the 342 px column of a 390 px phone, its smallest text is still
  ``PHONE_MIN_PX`` (9 CSS px);
- text: every visible text is at least ``MIN_PT`` points, 16 CSS px at natural size, the body text;
- colour: every line, marker, patch and text is drawn in the palette ``COLORS``, a grey, black
  or white; every heat map uses viridis/cividis, the diverging RdBu, greys, or a listed map of
  those colours;
- no colour alone: where a legend tells lines apart, their markers or line styles differ too.
"""

from __future__ import annotations

import importlib
import inspect
import re

import numpy as np
import pytest
from _examples import examples
from matplotlib.collections import Collection
from matplotlib.colors import ListedColormap, to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from test_viz_style import VIEWS

from attnlib.viz._style import COLORS, COLUMN_IN, DPI, MIN_PT, PAD_IN, PHONE_COLUMN_PX, PHONE_MIN_PX, svg_text, text_px

COLUMN_PX = 672  # a figure's box in the HTML book at a 1280 px window: the 688 px column less 8 px padding a side
MAPS = {"viridis", "cividis", "RdBu_r", "RdBu", "Greys", "gray", "binary"}
PALETTE = {to_rgba(c)[:3] for c in COLORS}
EXAMPLES = examples()


def _allowed(rgba) -> bool:
    rgba = to_rgba(rgba)
    if rgba[3] == 0:
        return True
    r, g, b = (round(v, 3) for v in rgba[:3])
    return (r == g == b) or any(np.allclose(rgba[:3], p, atol=2e-3) for p in PALETTE)


def _colours(artist):
    if isinstance(artist, Line2D):
        if artist.get_linestyle() not in ("None", "none", " ", ""):
            yield "line", artist.get_color()
        if artist.get_marker() not in ("None", "none", None, "", " "):
            yield "marker face", artist.get_markerfacecolor()
            yield "marker edge", artist.get_markeredgecolor()
    elif isinstance(artist, Patch):
        if artist.get_fill():
            yield "patch face", artist.get_facecolor()
        if artist.get_linewidth() > 0:
            yield "patch edge", artist.get_edgecolor()
    elif isinstance(artist, Collection):
        if artist.get_array() is None:  # a colour-mapped collection (a colour bar) is a heat map: its map is checked
            for c in artist.get_facecolors():
                yield "collection face", c
        for c in artist.get_edgecolors():
            yield "collection edge", c
    elif isinstance(artist, Text) and artist.get_text().strip():
        yield "text", artist.get_color()


def _artists(fig):
    seen = set()
    for artist in fig.findobj():
        if id(artist) in seen or not artist.get_visible():
            continue
        seen.add(id(artist))
        yield artist


def test_every_figure_function_has_an_example():
    names = set()
    for path in VIEWS:
        module = importlib.import_module(path)
        names |= {f"{path.split('.')[-1]}.{n}" for n, f in vars(module).items()
                  if n.startswith("plot_") and inspect.isfunction(f)
                  and (f.__module__ == path or f.__module__.startswith(path + "."))}
    assert names == set(EXAMPLES), f"figures without an example in _examples.py: {sorted(names - set(EXAMPLES))}"


def svg_width_in(svg: str) -> float:
    """The width of a matplotlib SVG in inches (it writes ``width="...pt"``)."""
    return float(re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"', svg).group(1)) / 72


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_figure_fits_the_column_unshrunk_and_reads_on_a_phone(name):
    fig = EXAMPLES[name]()
    width = svg_width_in(svg_text(fig))  # as the notebook stores it (tight bounding box)
    assert fig.dpi == DPI
    assert width * DPI <= COLUMN_PX, f"{name} is {width * DPI:.0f} px wide; the column is {COLUMN_PX} px"
    assert text_px(width) >= PHONE_MIN_PX, (f"{name} is {width:.2f} in wide: on a {PHONE_COLUMN_PX} px phone column "
                                            f"its {MIN_PT} pt text is {text_px(width):.1f} px")


def test_the_phone_rule_can_fail():
    assert text_px(COLUMN_IN + 2 * PAD_IN) >= PHONE_MIN_PX
    assert text_px(6.4) < PHONE_MIN_PX  # the old 6.4 in figures: 8.5 px on a phone
    assert text_px(3.0) == pytest.approx(MIN_PT / 72 * DPI)  # narrower than the column: shown at natural size


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_figure_text_is_body_size(name):
    fig = EXAMPLES[name]()
    fig.canvas.draw()  # tick labels exist only once drawn
    small = sorted({(t.get_text(), t.get_fontsize()) for t in _artists(fig)
                    if isinstance(t, Text) and t.get_text().strip() and t.get_fontsize() < MIN_PT - 1e-9})
    px = MIN_PT * DPI / 72
    assert not small, f"{name}: text below {MIN_PT} pt ({px:.0f} px on the page): {small[:6]}"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_figure_colours_come_from_the_palette(name):
    fig = EXAMPLES[name]()
    fig.canvas.draw()
    bad = set()
    for artist in _artists(fig):
        if artist is fig.patch or artist in [ax.patch for ax in fig.axes]:
            continue
        for what, colour in _colours(artist):
            if isinstance(colour, str) and colour in ("none", "None"):
                continue
            if not _allowed(colour):
                bad.add((what, tuple(round(v, 3) for v in to_rgba(colour))))
    assert not bad, f"{name}: colours outside COLORS and the greys: {sorted(bad)[:6]}"
    for ax in fig.axes:
        mapped = [c for c in ax.collections if c.get_array() is not None]
        for image in [*ax.images, *mapped]:
            cmap = image.get_cmap()
            if isinstance(cmap, ListedColormap) and cmap.name not in MAPS:
                assert all(_allowed(c) for c in cmap.colors), f"{name}: listed map {cmap.name} leaves the palette"
            else:
                assert cmap.name in MAPS, f"{name}: heat map {cmap.name!r}; use viridis/cividis, RdBu or greys"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_lines_told_apart_by_more_than_colour(name):
    fig = EXAMPLES[name]()
    legends = [leg for leg in [*fig.legends, *(ax.get_legend() for ax in fig.axes)] if leg is not None]
    for legend in legends:
        lines = [h for h in legend.legend_handles if isinstance(h, Line2D)]
        looks = [(h.get_marker() if h.get_marker() not in ("None", "", " ", None) else None,
                  str(h.get_linestyle()), h.get_markerfacecolor() == "white") for h in lines]
        assert len(set(looks)) == len(looks), (
            f"{name}: legend entries {[t.get_text() for t in legend.get_texts()]} differ only in colour: {looks}")


def test_the_palette_is_okabe_ito_and_distinct():
    assert len(COLORS) == len(set(COLORS)) == 8
    assert {c.upper() for c in COLORS} == {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2",
                                           "#D55E00", "#CC79A7"}


def test_a_colour_outside_the_palette_is_caught():
    """The colour check can fail: a figure drawn in matplotlib's default red is refused."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], color="tab:red")
    (line,) = ax.get_lines()
    assert not all(_allowed(c) for _, c in _colours(line))
    assert _allowed("0.5") and _allowed(COLORS[3]) and _allowed("white")
