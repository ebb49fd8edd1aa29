"""Interactive explorers for Part II (chapters 3-5), built on :mod:`attnlib.viz.rkhs`.

Each builder returns a widget whose frames are drawn by the same function that
draws the static figure in the book (see ``attnlib.widgets._core.explorer``).
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._arguments import arguments
from ..heads import random_heads
from ..rkhs import n_features
from ..rkhs.experiments import learning_curve
from ..viz import rkhs as viz
from ._core import explorer, slider

__all__ = ["head_spectrum_explorer", "identifiability_explorer", "sample_size_explorer"]

#: the gradient-step budgets of the identifiability explorer's frames
STEPS = (10, 30, 100, 300, 1000, 3000)


@arguments(rng="rng", live="flag")
def head_spectrum_explorer(*, rng=None, live: bool = False):
    """Singular values of the coefficient matrix of a random m-head layer, as d and m vary.

    ``live=False`` (default) precomputes d = 2..6 x m in (1, 2, 4, 8, 16) and
    switches frames in the browser; ``live=True`` redraws through the kernel.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
        Controls: the token dimension d and the teacher's head count m. The
        picture is :func:`attnlib.viz.rkhs.plot_head_spectrum` for the teacher and
        for a random coefficient vector of the same d.
    """
    seed = rng.integers(2**32)

    def draw(d, m):
        gen = np.random.default_rng(seed)
        teacher = random_heads(m, d, rng=gen)
        generic = gen.standard_normal((n_features(d), d))
        return viz.plot_head_spectrum({f"{m}-head layer": teacher, "random coefficients": generic},
                                    title=f"$d = {d}$: at most $d^2 = {d * d}$ heads")

    return explorer(draw, {
        "d": slider("d", (2, 3, 4, 5, 6), 3, note="the token dimension: at most d² singular values are not zero"),
        "m": slider("heads m", (1, 2, 4, 8, 16), 1, note="the heads of the random layer: one non-zero value per head, "
                    "up to d²",
                    live=lambda: widgets.IntSlider(value=1, min=1, max=16, description="heads m",
                                                   continuous_update=False)),
    }, live=live)


@arguments(rng="rng", live="flag")
def sample_size_explorer(*, rng=None, live: bool = False):
    """Learning curves of regression as the label noise and d change.

    ``live=False`` (default) precomputes d = 2..4 x four noise levels and
    switches frames in the browser; ``live=True`` redraws through the kernel.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
        Controls: d and the noise level. The picture is
        :func:`attnlib.viz.rkhs.plot_learning_curve`.
    """
    seed = rng.integers(2**32)

    def draw(d, noise):
        Ns, errors = learning_curve(d, noise, rng=seed)
        return viz.plot_learning_curve(Ns, {f"noise {noise:g}" if noise else "no noise": errors},
                                       psi=n_features(d), noise=noise or None, title=f"d = {d}, ψ = {n_features(d)}")

    return explorer(draw, {
        "d": slider("d", (2, 3, 4), 3, note="the token dimension; the line N = ψ moves with it",
                    live=lambda: widgets.IntSlider(value=3, min=2, max=5, description="d", continuous_update=False)),
        "noise": slider("noise", (0.0, 0.001, 0.01, 0.1), 0.0, note="label noise, relative to the targets: the error "
                        "no longer drops to rounding past N = ψ",
                        live=lambda: widgets.FloatSlider(value=0.0, min=0.0, max=0.2, step=0.001, readout_format=".3f",
                                                         description="noise", continuous_update=False)),
    }, live=live)


@arguments(rng="rng", live="flag")
def identifiability_explorer(*, rng=None, live: bool = False):
    """The associative-memory sweep with the solver's budget and the data size on sliders.

    ``live=False`` (default) precomputes six budgets x two data sizes and
    switches frames in the browser; ``live=True`` redraws through the kernel.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
        Controls: gradient steps of the iterative solver, and the number of
        tables N. The picture is :func:`attnlib.viz.rkhs.plot_identifiability`.
    """
    from ..rkhs.experiments import identifiability_sweep

    seed = rng.integers(2**32)

    def draw(steps, N):
        sweep = identifiability_sweep(np.linspace(0.95, 1.0, 6), N=N, steps=steps, N_test=500, rng=seed)
        return viz.plot_identifiability(sweep)

    return explorer(draw, {
        "steps": slider("gradient steps", STEPS, 3000, note="the budget of the iterative fit: more steps bring it "
                        "nearer the truth, never onto it",
                        live=lambda: widgets.IntSlider(value=3000, min=10, max=30000, step=10,
                                                       description="gradient steps", continuous_update=False)),
        "N": slider("tables N", (1024, 4096), 4096,
                    note="the data sets' size: more tables, a larger smallest eigenvalue",
                    live=lambda: widgets.IntSlider(value=4096, min=512, max=16384, step=512, description="tables N",
                                                   continuous_update=False)),
    }, live=live)
