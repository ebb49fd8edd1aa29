"""Figures for the book. matplotlib is imported here, not by ``import attnlib``.

One module per part of the book, named as the part's library code, its widgets,
its checks and its tests are:

* ``attention`` -- attention maps and sharpness (chapter 1)
* ``training`` -- loss curves, the loss along a line, error bars (chapter 2)
* ``rkhs`` -- linear attention as regression: spectra, learning curves, the certificate (chapters 3-5)
* ``tasks`` -- a DFA step and a Turing-machine run (chapter 6)
* ``sculpt`` -- slices of the body, recovery, the phase report, comparisons (chapters 7-9)
* ``lower_bounds`` -- Fourier spectra, low-degree regression, gradient runs (chapters 10-11)
* ``diagrams`` -- explanatory schematics, one or more per part: a head, the cubic lift, a DFA
  lookup, a logit gap, halfspaces of the body, the phases of Part III, the two roads (chapters 1,
  3, 6, 7, 8, 9, 11)

A chapter imports its views one way, ``from attnlib.viz import rkhs as viz``.
Every function draws one static figure from arrays, ``Heads`` or a result object
and returns the ``matplotlib.figure.Figure``, already closed in pyplot: end a
notebook cell with the call (no semicolon) and the figure is shown once, as the
cell's value. The widgets in :mod:`attnlib.widgets` call these same functions,
so the static page and the live widget show the same picture.

Importing changes no global state: no matplotlib setting, no IPython display formatter (the book
stores its figures as SVG and PDF through its own helpers, ``book/bookkit.py``), no warnings
filter, and it opens no connection (``tests/test_imports.py``).
"""

from __future__ import annotations

import importlib

from ._style import COLORS, FRAME_DPI, STYLE  # noqa: F401  (palette, rc settings, frames)

_SUBMODULES = ("attention", "training", "rkhs", "tasks", "sculpt", "lower_bounds", "diagrams")


def __getattr__(name):
    """The submodules, imported on first use."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
