"""Interactive explorers for chapter 10, built on :mod:`attnlib.viz.lower_bounds`.

ipywidgets is imported here, not by ``import attnlib``.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._arguments import arguments
from ..lower_bounds import fourier_spectrum, parity_instance
from ..viz import lower_bounds as viz
from ._core import explorer, slider

#: largest token dimension offered: 2 * 8 = 16 Boolean variables, 65536 inputs to enumerate.
MAX_D = 8
#: the token dimensions of the frames (s is held at d - 1 where it would exceed it)
DS = (4, 5, 6, 7)


@arguments(d="size", s="size", rng="rng", live="flag")
def spectrum_explorer(d: int = 6, s: int = 2, *, rng=None, live: bool = False):
    """The exact Fourier spectrum of a parity instance, with d and s on sliders.

    Parameters
    ----------
    d, s : int
        Token dimension and starting s; d <= 8 so that the 4**d inputs can be enumerated.
    rng : int, numpy.random.Generator or None
        Seed for the hidden set (the same seed is reused at every redraw).
    live : bool, default False
        False: one frame per d in ``DS`` and s = 1, ..., 6 (held at d - 1 where
        larger), switched in the browser. True: redraw through the kernel.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
        The picture is :func:`attnlib.viz.lower_bounds.plot_fourier_spectrum`
        of entry (0, 0) of the output; the title gives S and sum |c_i|, the
        weights that grow with s.
    """
    if not (s + 1 <= d <= MAX_D):
        raise ValueError(f"need s + 1 <= d <= {MAX_D}; received d={d}, s={s}")
    seed = int(rng.integers(2**31))

    def draw(d, s):
        s = min(s, d - 1)
        inst = parity_instance(d, s, rng=seed)
        title = f"d = {d}, s = {s}, S = {inst.support}, Σ|cᵢ| = {np.abs(inst.coefficients).sum():.3g}"
        return viz.plot_fourier_spectrum(fourier_spectrum(inst.heads), title=title)

    return explorer(draw, {
        "d": slider("d", tuple(sorted({*DS, d})), d, note="the token dimension: the spectrum spans degrees 0 to 2d",
                    live=lambda: widgets.IntSlider(value=d, min=2, max=MAX_D, description="d",
                                                   continuous_update=False)),
        "s": slider("s", tuple(range(1, max(*DS, d))), s, note="the hidden parity's size (s ≤ d − 1): "
                    "the low-degree error stays until degree 2s + 1",
                    live=lambda: widgets.IntSlider(value=s, min=1, max=MAX_D - 1, description="s (≤ d − 1)",
                                                   continuous_update=False, style={"description_width": "initial"})),
    }, live=live)
