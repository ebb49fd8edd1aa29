"""The book's figure style, shared by every module of :mod:`attnlib.viz`.

One place fixes what every figure of the book looks like:

* **Size.** A figure is at most ``COLUMN_IN`` inches wide at ``DPI`` dots per inch, so its PNG
  fits the text column of the HTML book (a figure's box is 672 CSS px in a 1280 px wide window,
  wider in wider ones) and is shown at its natural size, never shrunk.
* **Text.** No text is smaller than ``MIN_PT`` points, which at ``DPI`` is ``MIN_PT * DPI / 72``
  = 16 px on the page: the size of the body text.
* **Colour.** ``COLORS`` is the Okabe-Ito palette, distinguishable under the common forms of
  colour-vision deficiency; neutral elements are grey. Series are told apart by marker and line
  style as well (:func:`series`), so a figure also reads in grey. Heat maps use the perceptually
  uniform ``SEQUENTIAL`` map, or ``DIVERGING`` (ColorBrewer's RdBu, colour-blind safe) where the
  sign matters.
"""

from __future__ import annotations

import functools

import matplotlib.pyplot as plt
from cycler import cycler

#: dots per inch of every figure: one figure pixel is one CSS pixel of the page
DPI = 100
#: widest figure in inches: with the 0.1 in padding of a tight bounding box, 660 px wide at most; the HTML
#: text column is 688 px at a 1280 px window, and a figure's content box 672 px (8 px padding a side)
COLUMN_IN = 6.4
#: smallest font size in points; at DPI it is 16 px, the body text of the book's pages
MIN_PT = 11.5

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
    "savefig.dpi": DPI,
    "font.size": 12,
    "axes.titlesize": 12,
    "axes.labelsize": 12,
    "xtick.labelsize": MIN_PT,
    "ytick.labelsize": MIN_PT,
    "legend.fontsize": MIN_PT,
    "legend.title_fontsize": MIN_PT,
    "figure.titlesize": 12.5,
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
