"""The loss along lines in parameter space, and the symmetries that shape it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._arguments import arguments, choice
from ._validation import targets_shape
from .attention import KINDS
from .heads import Heads
from .training import loss_and_gradient_arrays


@arguments(start="heads", end="heads", t="real")
def interpolate(start: Heads, end: Heads, t: float) -> Heads:
    """The point ``(1 - t) * start + t * end`` of the segment between two layers.

    Examples
    --------
    >>> a = Heads(np.zeros((1, 2, 2)), np.zeros((1, 2, 2)))
    >>> b = Heads(np.ones((1, 2, 2)), np.ones((1, 2, 2)))
    >>> float(interpolate(a, b, 0.25).Theta[0, 0, 0])
    0.25
    """
    if start.Theta.shape != end.Theta.shape:
        raise ValueError(
            f"the two endpoints must have the same (m, d); received {start!r} and {end!r}"
        )
    return Heads((1 - t) * start.Theta + t * end.Theta, (1 - t) * start.W + t * end.W)


@arguments(X="array", Y="array", start="heads", end="heads", ts="array", kind=choice(*KINDS), causal="flag")
def loss_along_line(X, Y, start: Heads, end: Heads, ts, *, kind: str = "softmax", causal: bool = False) -> np.ndarray:
    """Squared loss at ``interpolate(start, end, t)`` for every t in ``ts``.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    Y : array_like of shape (N, n, d) or (N, d)
    start, end : Heads
        Endpoints with the same number of heads and dimension.
    ts : array_like of shape (T,)
        Positions on the line; 0 is ``start`` and 1 is ``end``.

    Returns
    -------
    ndarray of shape (T,)

    Notes
    -----
    A convex function satisfies L((1-t)a + tb) <= (1-t)L(a) + tL(b). Two
    zero-loss endpoints with positive loss between them therefore prove that the
    loss is not convex (chapter 2).

    Examples
    --------
    >>> heads = random_heads(2, 3, rng=0)
    >>> X = gaussian_inputs(8, 4, 3, rng=1)
    >>> swapped = heads[[1, 0]]
    >>> L = loss_along_line(X, attention(X, heads), heads, swapped, [0.0, 0.5, 1.0])
    >>> bool(L[0] < 1e-25 and L[2] < 1e-25 and L[1] > 1e-3)
    True
    """
    if ts.ndim != 1:
        raise ValueError(f"ts must be a 1-D array of positions; received shape {ts.shape}")
    if start.Theta.shape != end.Theta.shape:
        raise ValueError(f"the two endpoints must have the same (m, d); received {start!r} and {end!r}")
    X, Y, last = targets_shape(X, Y, start.d)
    losses = []
    for t in ts:
        h = interpolate(start, end, t)
        losses.append(loss_and_gradient_arrays(X, Y, last, h.Theta, h.W, kind, causal, need_grad=False)[0])
    return np.array(losses)


@dataclass(frozen=True, eq=False)
class Partners:
    """Other parameter points to draw lines to from a layer (:func:`partners`).

    Attributes
    ----------
    permuted : Heads or None
        The heads cyclically shifted: the same function (None for one head).
    gauge : Heads or None
        Every head ``(-Theta_i, -W_i)``: the same function for linear attention (None for softmax).
    random : Heads
        A random layer of the same size and norms, for contrast.
    """

    permuted: Heads | None
    gauge: Heads | None
    random: Heads

    def named(self) -> tuple[tuple[str, Heads], ...]:
        """The partners that exist, as ``(name, heads)`` with name ``"permuted"``, ``"gauge"`` or ``"random"``."""
        return tuple((name, getattr(self, name)) for name in ("permuted", "gauge", "random")
                     if getattr(self, name) is not None)

    def __repr__(self) -> str:
        return f"Partners({', '.join(name for name, _ in self.named())})"


@arguments(heads="heads", kind=choice(*KINDS), rng="rng")
def partners(heads: Heads, *, kind: str = "softmax", rng=None) -> Partners:
    """Other parameter points to draw lines to from ``heads``.

    Returns
    -------
    Partners
        ``permuted`` (cyclic shift of the heads; needs m >= 2) and, for linear
        attention, ``gauge`` (every head ``(-Theta_i, -W_i)``): both compute
        exactly the same function as ``heads``. ``random`` is a random layer of
        the same size and norms, for contrast.

    Examples
    --------
    >>> partners(random_heads(2, 3, rng=0), kind="linear", rng=1)
    Partners(permuted, gauge, random)
    """
    permuted = heads[np.roll(np.arange(heads.m), 1)] if heads.m >= 2 else None
    gauge = Heads(-heads.Theta, -heads.W) if kind == "linear" else None
    Theta = rng.standard_normal(heads.Theta.shape)
    W = rng.standard_normal(heads.W.shape)
    Theta *= np.linalg.norm(heads.Theta) / np.linalg.norm(Theta)
    W *= np.linalg.norm(heads.W) / np.linalg.norm(W)
    return Partners(permuted, gauge, Heads(Theta, W))
