"""Figures for Part II (chapters 3-5): spectra, learning curves, the certificate's landscape and its sweep.

Same conventions as :mod:`attnlib.viz`: each function draws one static figure
from arrays or results and returns the ``matplotlib.figure.Figure``; the
widgets in :mod:`attnlib.widgets.rkhs` call these same functions.

Two private modules hold them: ``_regression`` (chapters 3 and 4: head spectra, heads against
regression, learning curves, spectra) and ``_certificate`` (chapter 5: identifiability, the
bounds against what runs show, the certificate's landscape).
"""

from __future__ import annotations

from ._certificate import (  # noqa: F401  (RATIO_FLOOR and certificate_descent: used by the chapters)
    RATIO_FLOOR,
    certificate_descent,
    plot_bound_check,
    plot_certificate_landscape,
    plot_identifiability,
    plot_noise_bound,
)
from ._regression import (  # noqa: F401  (ROUNDING_FLOOR: the floor the chapters quote)
    ROUNDING_FLOOR,
    plot_head_spectrum,
    plot_heads_vs_regression,
    plot_learning_curve,
    plot_spectra,
)

__all__ = [
    "plot_bound_check",
    "plot_certificate_landscape",
    "plot_head_spectrum",
    "plot_heads_vs_regression",
    "plot_identifiability",
    "plot_learning_curve",
    "plot_noise_bound",
    "plot_spectra",
]
