"""Parameters of a multi-head attention layer, and random draws of them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._arguments import arguments

__all__ = ["Heads", "random_heads"]


@dataclass(frozen=True, eq=False)
class Heads:
    """The parameters of an m-head attention layer on tokens of dimension d.

    Parameters
    ----------
    Theta : array_like of shape (m, d, d)
        Attention matrices; ``Theta[i]`` is the fused query-key matrix of head i,
        so the logit of query token a on key token b is ``x_a @ Theta[i] @ x_b``.
        A single (d, d) matrix is read as one head.
    W : array_like of shape (m, d, d)
        Projections; ``W[i]`` is the fused value-output matrix of head i.

    Notes
    -----
    The layer computes ``F(X) = sum_i A_i(X) @ X @ W[i]`` with
    ``A_i(X) = softmax(X @ Theta[i] @ X.T)`` row by row (or without the softmax
    for linear attention); see :func:`attnlib.attention`. The arrays are copied
    and made read-only, so a ``Heads`` never changes after it is made.

    Examples
    --------
    >>> import numpy as np
    >>> heads = Heads(np.zeros((2, 3, 3)), np.ones((2, 3, 3)))
    >>> heads
    Heads(m=2, d=3)
    >>> heads[1].Theta.shape
    (1, 3, 3)
    """

    Theta: np.ndarray
    W: np.ndarray

    def __post_init__(self):  # the constructor's arguments are declared below: they arrive as float arrays
        Theta = _as_head_stack("Theta", self.Theta)
        W = _as_head_stack("W", self.W)
        if Theta.shape != W.shape:
            raise ValueError(
                f"Theta and W must have the same shape (m, d, d); received Theta {Theta.shape} and W {W.shape}"
            )
        for name, arr in (("Theta", Theta), ("W", W)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def m(self) -> int:
        """Number of heads."""
        return self.Theta.shape[0]

    @property
    def d(self) -> int:
        """Token dimension."""
        return self.Theta.shape[1]

    def __len__(self) -> int:
        return self.m

    def __getitem__(self, index) -> Heads:
        """Select heads by an int, a slice or an index array; always returns ``Heads``."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Heads(self.Theta[index], self.W[index])

    def __repr__(self) -> str:
        return f"Heads(m={self.m}, d={self.d})"


def as_heads(heads, d: int | None = None, *, name: str = "heads") -> Heads:
    """``heads`` itself, after checking that it is a :class:`Heads` (of token dimension ``d``).

    The one check that every function taking a layer makes at its boundary.

    Parameters
    ----------
    heads : Heads
    d : int, optional
        The token dimension of the data the heads will be applied to.
    name : str, default "heads"
        The argument's name, for the error message.

    Raises
    ------
    TypeError
        If ``heads`` is not a ``Heads``.
    ValueError
        If ``d`` is given and differs from ``heads.d``.

    Examples
    --------
    >>> from attnlib.heads import as_heads
    >>> as_heads(random_heads(2, 3, rng=0), d=3)
    Heads(m=2, d=3)
    """
    if not isinstance(heads, Heads):
        raise TypeError(f"{name} must be an attnlib.Heads; received {type(heads).__name__}")
    if d is not None and heads.d != d:
        raise ValueError(f"{name} has d={heads.d} but the data have token dimension d={d}")
    return heads


def _as_head_stack(name: str, A) -> np.ndarray:
    """A copy of ``A`` (already a checked float array) as a stack (m, d, d); the shape is checked here."""
    arr = np.asarray(A, dtype=np.float64)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2] or 0 in arr.shape:
        raise ValueError(f"{name} must have shape (m, d, d) or (d, d) with m, d >= 1; received shape {arr.shape}")
    return arr.copy()


arguments(Theta="array", W="array")(Heads)


@arguments(m="size", d="size", scale="tol", rng="rng")
def random_heads(m: int, d: int, *, scale: float = 1.0, rng=None) -> Heads:
    """Draw m heads with Gaussian entries.

    Parameters
    ----------
    m, d : int
        Number of heads and token dimension.
    scale : float, default 1.0
        Typical size of a logit. ``Theta`` has i.i.d. N(0, scale**2 / d**2)
        entries, so ``||Theta[i]||_F`` is about ``scale`` and the logit
        ``x_a @ Theta[i] @ x_b`` of two tokens of norm sqrt(d) (a ±1 token, or a
        standard Gaussian one) has standard deviation about ``scale``.
    rng : int, numpy.random.Generator or None
        Seed or generator (SPEC 7).

    Returns
    -------
    Heads
        ``W`` has i.i.d. N(0, 1/d) entries, so ``x @ W[i]`` has unit-variance
        coordinates for a token of norm sqrt(d).

    Examples
    --------
    >>> heads = random_heads(2, 4, scale=3.0, rng=0)
    >>> heads
    Heads(m=2, d=4)
    >>> bool(2.0 < np.linalg.norm(heads.Theta[0]) < 4.5)
    True
    """
    Theta = rng.normal(0.0, scale / d, size=(m, d, d))
    W = rng.normal(0.0, 1.0 / np.sqrt(d), size=(m, d, d))
    return Heads(Theta, W)
