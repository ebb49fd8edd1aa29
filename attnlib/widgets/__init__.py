"""Interactive explorers for the book, built on :mod:`attnlib.viz`.

One module per part of the book, named as in :mod:`attnlib.viz`:

* ``attention`` -- the attention maps as the logits are scaled (chapter 1)
* ``training`` -- the loss along a line in parameter space (chapter 2)
* ``rkhs`` -- head spectra, sample size, identifiability (chapters 3-5)
* ``tasks`` -- a DFA stepped token by token (chapter 6)
* ``sculpt`` -- the single head, the body, the slices, the phase report (chapters 7-9)
* ``lower_bounds`` -- the Fourier spectrum of the parity family (chapters 10-11)

A chapter imports its explorers one way, ``from attnlib.widgets import rkhs as widgets``.
Each builder draws its figure with the same function that draws the static
figure in the book, at every point of a small grid of control values, and
returns a widget whose controls switch between those frames in the browser, so
it moves on the web page without a kernel (see ``attnlib.widgets._core.explorer``).
``live=True`` returns the kernel-driven ``ipywidgets.interactive`` instead.
ipywidgets is imported here, not by ``import attnlib``.
"""

from __future__ import annotations

import importlib

_SUBMODULES = ("attention", "training", "rkhs", "tasks", "sculpt", "lower_bounds")


def __getattr__(name):
    """The submodules, imported on first use."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
