"""The statistical-query count on the parity family (chapter 10)."""

from __future__ import annotations

import math

import numpy as np

from .._arguments import arguments, interval
from .fourier import walsh_hadamard

__all__ = ["sq_correlations", "sq_dimension", "sq_query_lower_bound"]


@arguments(d="size", s="size")
def sq_dimension(d: int, s: int) -> int:
    """Number of pairwise orthogonal parity parts in the family with read-out r fixed: C(d - 1, s).

    Examples
    --------
    >>> sq_dimension(6, 2), sq_dimension(100, 3)
    (10, 156849)
    """
    if d < s + 1:
        raise ValueError(f"d={d} is too small for s={s}: d must be at least s + 1 = {s + 1}")
    return math.comb(d - 1, s)


@arguments(d="size", s="size", tolerance=interval(0.0, 1.0, low_open=True))
def sq_query_lower_bound(d: int, s: int, tolerance: float) -> int:
    """Correlational statistical queries needed to single out the hidden set S.

    Parameters
    ----------
    d, s : int
    tolerance : float
        The accuracy tau of each answer, in (0, 1].

    Returns
    -------
    int
        ``ceil((D - 1) tau^2 / 2)`` with D = :func:`sq_dimension`.

    Notes
    -----
    A query g with E[g^2] <= 1 asks for E[g(X) y]. The label is
    ``y = 2 x_{2,r} + sqrt(2) psi_S(X)`` with orthonormal parity parts psi_S, so
    an adversary who answers E[g(X) 2 x_{2,r}] is within tau of the truth
    unless ``|<g, psi_S>| > tau / sqrt(2)``. By Bessel's inequality
    ``sum_S <g, psi_S>^2 <= 1``, that happens for at most ``2 / tau^2`` sets S.
    So q queries rule out at most ``2 q / tau^2`` of the D candidates, and
    identifying S needs ``q >= (D - 1) tau^2 / 2``. Section 10.5 of the book.

    Examples
    --------
    >>> sq_query_lower_bound(100, 3, 0.01)
    8
    >>> sq_query_lower_bound(100, 3, 0.1)
    785
    """
    D = sq_dimension(d, s)
    return math.ceil((D - 1) * tolerance**2 / 2)


@arguments(values="array", d="size", s="size")
def sq_correlations(values, d: int, s: int) -> np.ndarray:
    """Correlations ``<g, psi_S>`` of a query with every normalised parity part of the family.

    Parameters
    ----------
    values : array_like of shape (2**(2 d),)
        The query g on :func:`boolean_cube` (2, d).
    d, s : int

    Returns
    -------
    ndarray of shape (C(d - 1, s),)
        One entry per hidden set S (in ``itertools.combinations`` order), where
        ``psi_S = (x_{1,r} - x_{2,r}) chi_S(x_1) chi_S(x_2) / sqrt(2)``, r = d - 1.

    Examples
    --------
    >>> from attnlib.lower_bounds import boolean_cube
    >>> X = boolean_cube(2, 4)
    >>> g = X[:, 0, 3] * X[:, 0, 1] * X[:, 1, 1]
    >>> (sq_correlations(g, 4, 1) ** 2).round(3)
    array([0. , 0.5, 0. ])
    """
    from itertools import combinations

    D = sq_dimension(d, s)
    coefficients = walsh_hadamard(values)
    if coefficients.size != 4**d:
        raise ValueError(f"values must hold the query on all 2**(2*d) = {4**d} inputs; received {coefficients.size}")
    r = d - 1
    out = np.empty(D)
    for q, S in enumerate(combinations(range(d - 1), s)):
        both = sum((1 << j) | (1 << (d + j)) for j in S)
        out[q] = (coefficients[both | (1 << r)] - coefficients[both | (1 << (d + r))]) / np.sqrt(2.0)
    return out


