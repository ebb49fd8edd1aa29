"""Random input sequences: the Boolean hypercube and the standard Gaussian."""

from __future__ import annotations

import numpy as np

from ._arguments import arguments


@arguments(N="size", n="size", d="size", rng="rng")
def boolean_inputs(N: int, n: int, d: int, *, rng=None) -> np.ndarray:
    """Draw N sequences of n tokens, uniform on the hypercube {-1, +1}^(n x d).

    Parameters
    ----------
    N, n, d : int
        Examples, tokens per sequence, token dimension.
    rng : int, numpy.random.Generator or None
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (N, n, d)
        Float entries, each +1 or -1 with probability 1/2, all independent.

    Examples
    --------
    >>> X = boolean_inputs(5, 3, 4, rng=0)
    >>> X.shape, sorted(set(X.ravel().tolist()))
    ((5, 3, 4), [-1.0, 1.0])
    """
    return 2.0 * rng.integers(0, 2, size=(N, n, d)) - 1.0


@arguments(N="size", n="size", d="size", rng="rng")
def gaussian_inputs(N: int, n: int, d: int, *, rng=None) -> np.ndarray:
    """Draw N sequences of n tokens with i.i.d. standard normal entries.

    Parameters
    ----------
    N, n, d : int
        Examples, tokens per sequence, token dimension.
    rng : int, numpy.random.Generator or None
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (N, n, d)

    Examples
    --------
    >>> gaussian_inputs(5, 3, 4, rng=0).shape
    (5, 3, 4)
    """
    return rng.standard_normal((N, n, d))
