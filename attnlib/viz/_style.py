"""The book's figure style, shared by every module of :mod:`attnlib.viz`."""

from __future__ import annotations

import functools

import matplotlib.pyplot as plt

STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "legend.frameon": False,
    "image.cmap": "viridis",
}

COLORS = ["#1b6ca8", "#d1495b", "#edae49", "#66a182", "#8d6cab", "#00798c", "#555555", "#e07a5f"]


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
    """``plt.subplots`` with panels of the book's size; ``axes`` is always 2-D."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kwargs)
    return fig, axes
