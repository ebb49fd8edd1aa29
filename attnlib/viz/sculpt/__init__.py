"""Figures for Part III (the sculpting reconstruction). matplotlib is imported here, not by ``import attnlib``.

Every function draws one static figure from numbers the chapter computed with
:mod:`attnlib.sculpt` and returns the closed ``matplotlib.figure.Figure``, with
the book's style (the same as :mod:`attnlib.viz`). The explorers in
:mod:`attnlib.widgets.sculpt` call the same functions.

Two private modules hold them: ``_slices`` (chapters 7 and 8: recovery, slices of the body,
the slice threshold) and ``_phases`` (chapter 9: the phase report, the comparison with local
optimisation, sweeps and their tables). The plane of the slices (``head_plane``,
``plane_coordinates``, ``clip_edges``) is geometry: :mod:`attnlib.sculpt.geometry`.
"""

from __future__ import annotations

from ._phases import (  # noqa: F401  (ROUNDING: the floor the chapters quote)
    ROUNDING,
    comparison_table,
    plot_method_comparison,
    plot_phase_report,
    plot_sweep,
    rate_text,
    single_start_table,
    sweep_failure_table,
)
from ._slices import (  # noqa: F401  (the labels and ranges the chapters quote)
    ERROR_RANGE,
    SLICE_LABELS,
    TYPESET,
    plot_body_slices,
    plot_recovery,
    plot_slice_threshold,
)

__all__ = [
    "comparison_table",
    "plot_body_slices",
    "plot_method_comparison",
    "plot_phase_report",
    "plot_recovery",
    "plot_slice_threshold",
    "plot_sweep",
    "rate_text",
    "single_start_table",
    "sweep_failure_table",
]
