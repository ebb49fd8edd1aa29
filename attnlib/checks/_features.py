"""What the checks of chapters 3-5 share about the cubic features: their count and their groups."""

from __future__ import annotations

import numpy as np


def lazy_rkhs():
    """:mod:`attnlib.rkhs`, imported on first use (scipy is imported with it)."""
    from .. import rkhs

    return rkhs


def psi(d: int) -> int:
    """The number of cubic features of tokens of dimension ``d``: d^2 (d + 1) / 2."""
    return d * d * (d + 1) // 2


def pair_groups(d: int, *axes: tuple[int, str]):
    """The named index groups of the features (Algorithm 2's order) along each ``(axis, noun)`` of ``axes``:
    ``"pair rows (j < k)"`` and ``"diagonal rows (j = k)"``."""
    split = d * d * (d - 1) // 2
    return tuple((axis, ((f"pair {noun} (j < k)", np.arange(split)), (f"diagonal {noun} (j = k)",
                                                                      np.arange(split, psi(d)))))
                 for axis, noun in axes)
