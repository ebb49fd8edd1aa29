"""What every explorer shares: a control panel that redraws a figure of :mod:`attnlib.viz`."""

from __future__ import annotations

import ipywidgets as widgets
from IPython.display import display


def interactive(draw, **controls):
    """An ``ipywidgets.interactive`` that displays the figure ``draw(**values)`` returns."""

    def show(**values):
        display(draw(**values))

    return widgets.interactive(show, **controls)
