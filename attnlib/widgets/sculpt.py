"""Interactive explorers for Part III, built on :mod:`attnlib.viz.sculpt`.

Each builder returns a widget whose frames are drawn by the same function that
draws the chapter's static figure (see ``attnlib.widgets._core.explorer``);
``live=True`` returns the kernel-driven ``interactive`` instead. ipywidgets is imported here,
not by ``import attnlib``.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._arguments import arguments
from ..attention import attention
from ..heads import Heads, random_heads
from ..inputs import boolean_inputs
from ..sculpt import SculptError, SculptReport, learn, min_norm_proxy, planted_instance, sculpt_body
from ..sculpt.diagnostics import phase_diagnostics, single_head_curve, slice_threshold_data
from ..viz import sculpt as viz
from ._core import explorer, slider


def _slider(value, lo, hi, step, description, integer=False):
    cls = widgets.IntSlider if integer else widgets.FloatSlider
    return cls(value=value, min=lo, max=hi, step=step, description=description, continuous_update=False)


@arguments(d="size", n="size", rng="rng", live="flag")
def single_head_explorer(*, d: int = 6, n: int = 4, rng=None, live: bool = False):
    """Recovery error of :func:`attnlib.sculpt.learn_single_head` against the number of examples.

    Controls: d and the sharpness of the head (frames: d in 4, 6, 8 x four
    sharpnesses, n and the largest N fixed); live, also n (kept <= d) and the
    largest N. The picture is :func:`attnlib.viz.sculpt.plot_recovery`.
    """
    seed = int(rng.integers(2**31))

    def draw(d, n, scale, largest):
        g = np.random.default_rng(seed)
        n = min(n, d)
        head = random_heads(1, d, scale=scale, rng=g)
        X = boolean_inputs(largest, n, d, rng=g)
        Y = attention(X, head)
        Ns = np.unique(np.geomspace(2, largest, 12).astype(int))
        err_W, err_T = single_head_curve(X, Y, head, Ns)
        return viz.plot_recovery(Ns, {"W": err_W, "Theta": err_T}, threshold=d * d / n,
                                        threshold_label=r"$d^2/n$", xscale="log", title=f"one head, d={d}, n={n}")

    ds = tuple(sorted({4, 6, 8, d}))
    return explorer(draw, {
        "d": slider("d", ds, d, note="the token dimension: the counting bound d²/n moves right",
                    live=lambda: _slider(d, 2, 8, 1, "d", integer=True)),
        "n": slider("n (≤ d)", (n,), n, live=lambda: _slider(n, 2, 8, 1, "n (≤ d)", integer=True)),
        "scale": slider("‖Θ‖", (1.0, 2.0, 4.0, 8.0), 2.0, note="the head's sharpness: the drop past d²/n stays",
                        live=lambda: _slider(2.0, 0.5, 8.0, 0.5, "‖Θ‖")),
        "largest": slider("largest N", (200,), 200, live=lambda: _slider(200, 20, 400, 20, "largest N", integer=True)),
    }, live=live)


@arguments(X="cube", Y="array", heads="heads", sum_W="array", live="flag")
def body_explorer(X, Y, heads: Heads, sum_W, *, live: bool = False):
    """The slice of the sculpted body through the plane of the first two heads, as examples arrive.

    Controls: the number of examples used to certify rows (frames: 14 sizes
    from 50 to N on a geometric grid). The picture is
    :func:`attnlib.viz.sculpt.plot_body_slices`.
    """
    if X.ndim != 3 or 0 in X.shape:
        raise ValueError(f"X must be a batch of shape (N, n, d); received shape {X.shape}")
    if Y.shape != X.shape:
        raise ValueError(f"Y must hold the layer's output at every position, shape {X.shape} like X; "
                         f"received shape {Y.shape}")
    d = X.shape[-1]
    if heads.d != d:
        raise ValueError(f"heads must have tokens of dimension d={d} like X; received heads of d={heads.d}")
    if sum_W.shape != (d, d):
        raise ValueError(f"sum_W must be a square matrix of shape ({d}, {d}); received shape {sum_W.shape}")
    N = X.shape[0]
    if N < 100:
        raise ValueError(f"X must hold at least 100 examples: the explorer shows the body at sizes from 50 to N; "
                         f"received N = {N}")

    def draw(examples):
        body = sculpt_body(X[:examples], Y[:examples], sum_W)
        return viz.plot_body_slices([body], heads, proxies=[min_norm_proxy(body)],
                                    titles=[f"N = {examples}:\n{body.n_constraints} halfspaces"])

    sizes = tuple(int(v) for v in np.unique(np.geomspace(min(50, N), N, 14).round(-1).astype(int).clip(1, N)))
    start = min(sizes, key=lambda v: abs(v - 1000))
    return explorer(draw, {"examples": slider("examples", sizes, start, note="certify rows in the first N examples: "
                                              "more halfspaces, a slice that shrinks towards the heads",
                                              live=lambda: _slider(min(N, 1000), 50, N, 50, "examples",
                                                                   integer=True))},
                    live=live)


@arguments(d="size", n="size", N="size", rng="rng", live="flag")
def slice_explorer(*, d: int = 4, n: int = 3, N: int = 3000, rng=None, live: bool = False):
    """Error of the phase-3 estimate of sum_i W_i against the slice size, as attention sharpens.

    Controls: the sharpness ``||Theta_i||_F`` and the shared component of the
    planted heads (frames: five sharpnesses x three shared components). Each
    frame draws fresh data, sculpts a body, and compares
    slices cut by the sculpted proxy and by the true Theta_star with the crude
    estimate. The picture is :func:`attnlib.viz.sculpt.plot_slice_threshold`.
    """
    seed = int(rng.integers(2**31))
    quantiles = np.geomspace(0.003, 0.5, 10)

    def draw(scale, shared):
        curves = slice_threshold_data(scale, shared, d=d, n=n, N=N, quantiles=quantiles, rng=seed)
        return viz.plot_slice_threshold(quantiles, curves, title=f"‖Θᵢ‖ = {scale:g}, shared = {shared:g}")

    return explorer(draw, {
        "scale": slider("‖Θᵢ‖", (0.5, 1.0, 2.0, 4.0, 8.0), 2.0, note="the heads' sharpness: sharper heads, better "
                        "slices, a worse crude estimate",
                        live=lambda: _slider(4.0, 0.5, 10.0, 0.5, "‖Θᵢ‖")),
        "shared": slider("shared", (0.0, 0.4, 0.8), 0.8, note="the component the heads share",
                         live=lambda: _slider(0.8, 0.0, 0.95, 0.05, "shared")),
    }, live=live)


@arguments(d="size", n="size", m="size", rng="rng", live="flag")
def report_explorer(*, d: int = 4, n: int = 3, m: int = 2, rng=None, live: bool = False):
    """Per-phase diagnostics of one run of :func:`attnlib.sculpt.learn` on a fresh planted instance.

    Controls: the sharpness, the shared component, the number of examples and
    the seed (frames: no shared component or a large one x few or many examples, the rest
    fixed; every frame is a whole run, so the grid is kept to four frames, about 1 s each). The
    picture is :func:`attnlib.viz.sculpt.plot_phase_report`.
    """
    base = int(rng.integers(2**31))

    def draw(scale, shared, examples, seed):
        g = np.random.default_rng([base, seed])
        teacher = planted_instance(m, d, scale=scale, shared=shared, check=False, rng=g)
        X = boolean_inputs(examples, n, d, rng=g)
        X_test = boolean_inputs(2000, n, d, rng=g)
        try:
            report = learn(X, attention(X, teacher), m, rng=g, tol=1e9).report
            title = f"‖Θᵢ‖ = {scale:g}, shared = {shared:g}, N = {examples}"
        except SculptError as err:
            report = err.report or SculptReport()
            title = f"failed in {err.phase}"
        diag = phase_diagnostics(report, teacher, X_test, attention(X_test, teacher))
        return viz.plot_phase_report(diag, title=title)

    return explorer(draw, {
        "scale": slider("‖Θᵢ‖", (4.0,), 4.0, live=lambda: _slider(4.0, 1.0, 10.0, 0.5, "‖Θᵢ‖")),
        "shared": slider("shared", (0.0, 0.6), 0.6, note="the component the heads share: the face is harder "
                         "to find",
                         live=lambda: _slider(0.6, 0.0, 0.95, 0.05, "shared")),
        "examples": slider("examples", (500, 3000), 3000, note="the examples learn sees: each frame is a "
                           "whole run",
                           live=lambda: _slider(3000, 500, 6000, 500, "examples", integer=True)),
        "seed": slider("seed", (0,), 0, live=lambda: _slider(0, 0, 20, 1, "seed", integer=True)),
    }, live=live)
