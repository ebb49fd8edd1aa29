"""The book's figure style, shared by every module of :mod:`attnlib.viz`.

One place fixes what every figure of the book looks like:

* **Vector.** In a notebook of the book a figure is stored as SVG, which the web page shows, and
  as PDF, which the printed book typesets (:func:`svg_text`, :func:`pdf_bytes`; the book's own
  ``book/bookkit.py`` hands them to IPython, this module changes no global state): crisp on every
  screen and in print. One inch of a figure is ``DPI`` = 96 CSS px, the size a browser gives an
  SVG. The frames of a widget are PNGs drawn at ``FRAME_DPI``, twice that, and shown at half
  their pixel width, so they are as sharp on a high-density screen.
* **Size.** A figure is at most ``COLUMN_IN`` inches wide (``DPI * COLUMN_IN`` = 576 CSS px), so
  the page shows it at its natural size in the text column of a desktop window (a figure's box
  is 672 CSS px in a 1280 px wide window) and shrinks it to the column on a phone.
* **Text.** No text is smaller than ``MIN_PT`` points: 16 CSS px at its natural size, the body
  text of the page, and at least ``PHONE_MIN_PX`` = 9 CSS px when a figure ``COLUMN_IN`` wide
  shrinks into the ``PHONE_COLUMN_PX`` column of a 390 px phone (:func:`text_px`).
* **Colour.** ``COLORS`` is the Okabe-Ito palette, distinguishable under the common forms of
  colour-vision deficiency; neutral elements are grey. Series are told apart by marker and line
  style as well (:func:`series`), so a figure also reads in grey. Heat maps use the perceptually
  uniform ``SEQUENTIAL`` map, or ``DIVERGING`` (ColorBrewer's RdBu, colour-blind safe) where the
  sign matters.
"""

from __future__ import annotations

import functools
import io

import matplotlib.pyplot as plt
from cycler import cycler

#: CSS px per inch of a figure on the page: the size a browser gives an SVG (1 pt = 4/3 px)
DPI = 96
#: dots per inch of a widget's frames: twice DPI, shown at half their pixel width (sharp at 2x)
FRAME_DPI = 2 * DPI
#: widest figure in inches (576 CSS px); with the PAD_IN padding of the tight bounding box the saved
#: figure is at most 6.1 in. The HTML text column is 688 px at a 1280 px window, a figure's box 672 px
COLUMN_IN = 6.0
#: padding of the tight bounding box a figure is saved with, in inches
PAD_IN = 0.05
#: smallest font size in points; 16 CSS px at DPI, the body text of the book's pages
MIN_PT = 12
#: the width of a figure's box on a phone: the text column at a 390 CSS px viewport
PHONE_COLUMN_PX = 342
#: smallest figure text allowed on that phone, in CSS px
PHONE_MIN_PX = 9.0

#: Okabe & Ito (2008), "Color Universal Design": blue, vermillion, bluish green, orange,
#: reddish purple, sky blue, yellow, black. Yellow is pale on white: it comes last but one.
COLORS = ["#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
#: neutral greys for references, grids and context (any grey is allowed; these are the usual ones)
GREYS = {"dark": "0.3", "mid": "0.5", "light": "0.7", "faint": "0.88"}
#: one marker and one line style per series, so that series differ without colour
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (1, 3)), (0, (3, 1, 1, 1))]
#: heat maps: perceptually uniform, or diverging and colour-blind safe where the sign matters
SEQUENTIAL = "viridis"
DIVERGING = "RdBu_r"

STYLE = {
    "figure.dpi": DPI,
    "savefig.dpi": FRAME_DPI,
    "font.size": 12.5,
    "axes.titlesize": 12.5,
    "axes.labelsize": 12.5,
    "xtick.labelsize": MIN_PT,
    "ytick.labelsize": MIN_PT,
    "legend.fontsize": MIN_PT,
    "legend.title_fontsize": MIN_PT,
    "figure.titlesize": 13,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "axes.prop_cycle": cycler(color=COLORS),
    "legend.frameon": False,
    "lines.linewidth": 1.8,
    "lines.markersize": 6,
    "image.cmap": SEQUENTIAL,
}


def series(j: int, *, marker: bool = True, line: bool = True) -> dict:
    """Colour, marker and line style of the j-th series, as keyword arguments of ``ax.plot``."""
    style = {"color": COLORS[j % len(COLORS)]}
    if marker:
        style["marker"] = MARKERS[j % len(MARKERS)]
    style["ls"] = LINESTYLES[j % len(LINESTYLES)] if line else "none"
    return style


def styled(func):
    """Draw with the book's rc settings and hand back a closed figure.

    Only the keys of STYLE are restored afterwards: ``plt.rc_context`` would also
    restore ``interactive``, which the notebook backend switches on when it draws
    its first figure. The figure is closed in pyplot, so a notebook shows it
    exactly once, as the value of the cell, and never again at the end of the
    cell; ``fig.savefig`` still works.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        saved = {key: plt.rcParams[key] for key in STYLE}
        plt.rcParams.update(STYLE)
        try:
            fig = func(*args, **kwargs)
        finally:
            plt.rcParams.update(saved)
        plt.close(fig)
        return fig

    return wrapper


def subplots(nrows=1, ncols=1, *, width=3.2, height=2.8, **kwargs):
    """``plt.subplots`` with panels of the book's size; ``axes`` is always 2-D.

    ``width`` and ``height`` are per panel, in inches; the whole figure is never wider than
    ``COLUMN_IN`` (the panels narrow to fit), so it is shown unshrunk in the text column.
    """
    total = min(width * ncols, COLUMN_IN)
    fig, axes = plt.subplots(nrows, ncols, figsize=(total, height * nrows), squeeze=False, **kwargs)
    return fig, axes


def legend_below(fig, ax=None, *, ncol: int = 1, **kwargs):
    """One legend under the panels, centred, with the handles of ``ax`` (default the first axes).

    The figure grows by the legend's height, so the panels keep their size.
    """
    ax = fig.axes[0] if ax is None else ax
    handles, labels = ax.get_legend_handles_labels()
    rows = -(-len(labels) // max(ncol, 1))
    fig.set_figheight(fig.get_figheight() + 0.27 * rows)
    return fig.legend(handles, labels, loc="outside lower center", ncol=ncol, **kwargs)


def text_px(width_in: float, pt: float = MIN_PT, column_px: float = PHONE_COLUMN_PX) -> float:
    """CSS px of ``pt``-point text in a figure ``width_in`` inches wide, shown in a ``column_px`` column.

    The page shows a figure at its natural size (``DPI`` px per inch) or, where the column is
    narrower, shrunk to the column's width.
    """
    shown = min(width_in * DPI, column_px)
    return pt / 72 * DPI * shown / (width_in * DPI)


#: a fixed salt for the ids matplotlib writes into an SVG, so a figure drawn twice is the same text
SVG_SALT = "attnlib"


def svg_text(figure) -> str:
    """The figure as SVG text, as a notebook stores it: tight bounding box, no date, stable ids."""
    saved = plt.rcParams["svg.hashsalt"]
    plt.rcParams["svg.hashsalt"] = SVG_SALT
    try:
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", bbox_inches="tight", pad_inches=PAD_IN, metadata={"Date": None})
    finally:
        plt.rcParams["svg.hashsalt"] = saved
    return buffer.getvalue().decode("utf-8")


def pdf_bytes(figure) -> bytes:
    """The figure as PDF, as the printed book typesets it: tight bounding box, no creation date."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="pdf", bbox_inches="tight", pad_inches=PAD_IN, metadata={"CreationDate": None})
    return buffer.getvalue()
