"""The drawing primitives every diagram shares: a canvas in inches, boxes, arrows, matrices."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from .._style import COLORS, COLUMN_IN, MIN_PT

FONT = 12  # pt: titles of a diagram
SMALL = MIN_PT  # pt: the smallest text drawn (at 100 dpi, 16 px: the page's body text)
WIDTH = COLUMN_IN  # in: every canvas; its tight bounding box is at most WIDTH + 0.2 in (660 px)


# --------------------------------------------------------------------------- drawing primitives


def canvas(width: float, height: float):
    """A figure whose single axes has data units of inches, origin bottom left, no frame."""
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return fig, ax


def tint(index: int, alpha: float = 0.16):
    """A light fill of palette colour ``index``."""
    from matplotlib.colors import to_rgba

    return to_rgba(COLORS[index % len(COLORS)], alpha)


def draw_box(ax, x, y, w, h, text="", *, color=0, size=FONT, fill=True, hatch=None, ls="-", weight="normal",
         align="center"):
    """A rounded box with its lower-left corner at (x, y); returns (x, y, w, h) for arrows."""
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=0.06",
                                facecolor=tint(color) if fill else "none",
                                edgecolor=COLORS[color % len(COLORS)], lw=1.2, hatch=hatch, ls=ls))
    if text:
        tx = x + w / 2 if align == "center" else x + 0.1
        ax.text(tx, y + h / 2, text, ha=align, va="center", fontsize=size, weight=weight,
                linespacing=1.35)
    return (x, y, w, h)


def side_of(box, side):
    """Midpoint of a side ('left', 'right', 'top', 'bottom') of a box (x, y, w, h)."""
    x, y, w, h = box
    return {"left": (x, y + h / 2), "right": (x + w, y + h / 2),
            "top": (x + w / 2, y + h), "bottom": (x + w / 2, y)}[side]


def draw_arrow(ax, start, end, *, color="0.25", ls="-", rad=0.0, lw=1.3):
    """An arrow whose tip ends exactly at ``end`` (no shrinking)."""
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=13, color=color, lw=lw,
                                 ls=ls, shrinkA=0, shrinkB=0, connectionstyle=f"arc3,rad={rad}"))


def short_number(value: float, digits: int = 1) -> str:
    """A number short enough for a matrix cell: ``digits`` decimals, none at 10 and above."""
    value = float(value)
    if abs(value) >= 10:
        text = f"{value:.0f}"
    else:
        text = f"{value:.{digits}f}"
    if text in ("-0", "-0.0", "-0.00"):
        text = text[1:]
    return text  # ASCII '-': narrower than the minus sign, so four characters fit a cell


def draw_matrix(ax, x, y, M, *, cell=0.4, digits=1, shade=None, color=0, size=SMALL, row=None):
    """A grid of numbers, row 0 at the top; ``shade`` in [0, 1] per entry tints the cells.

    ``row`` outlines one row with a thick dashed frame. Returns the box (x, y, w, h).
    """
    M = np.atleast_2d(M)
    r, c = M.shape
    for i in range(r):
        for j in range(c):
            cx, cy = x + j * cell, y + (r - 1 - i) * cell
            face = tint(color, 0.08 + 0.6 * float(shade[i, j])) if shade is not None else "white"
            ax.add_patch(Rectangle((cx, cy), cell, cell, facecolor=face, edgecolor="0.55", lw=0.6))
            ax.text(cx + cell / 2, cy + cell / 2, short_number(M[i, j], digits), ha="center", va="center",
                    fontsize=size)
    if row is not None:
        ax.add_patch(Rectangle((x - 0.03, y + (r - 1 - row) * cell - 0.03), c * cell + 0.06, cell + 0.06,
                               facecolor="none", edgecolor="black", lw=1.8, ls="--"))
    return (x, y, c * cell, r * cell)


def edge_on(poly: np.ndarray, u: float, v: float, gamma: float) -> np.ndarray:
    """The two extreme vertices of ``poly`` on the line ``u s + v t = gamma`` (the face it carries).

    Empty, of shape (0, 2), when no vertex lies on the line (the polygon does not reach it).
    """
    on = poly[np.abs(poly @ [u, v] - gamma) <= 1e-6 * max(abs(gamma), np.hypot(u, v))]
    if not len(on):
        return np.zeros((0, 2))
    along = np.array([-v, u]) / np.hypot(u, v)
    return on[[int(np.argmin(on @ along)), int(np.argmax(on @ along))]]
