"""Learning parities from examples: Gaussian elimination over GF(2), and exhaustive search.

A parity of a hidden set S of coordinates labels a sign vector z by
``chi_S(z) = prod_{j in S} z_j``. Without noise the labels are linear equations
over GF(2) and elimination finds S in polynomial time; with noisy labels the
equations become inconsistent, and the simple robust method is to try every
set of size s, in time about K^s. Chapter 10 of the book uses both to show the
gap between statistical-query hardness and computational hardness.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from .._arguments import arguments

__all__ = ["parity_by_elimination", "parity_by_enumeration"]


@arguments(Z="cube", chi="cube")
def parity_by_elimination(Z, chi):
    """Find S with ``chi_S(z) = chi`` on every example by Gaussian elimination over GF(2).

    Parameters
    ----------
    Z : array_like of shape (M, K)
        Sign vectors.
    chi : array_like of shape (M,)
        Their labels, +-1.

    Returns
    -------
    tuple of int or None
        A set S consistent with every example (the smallest-index solution if
        several are), or None if no parity fits all the examples.

    Notes
    -----
    With bits ``a = (1 - z) / 2`` and ``b = (1 - chi) / 2``, ``chi_S(z) = chi``
    reads ``sum_{j in S} a_j = b (mod 2)``: a linear system over GF(2), solved
    in O(M K^2) bit operations. This is not a statistical-query algorithm;
    it needs exact labels, and one flipped label makes the system inconsistent.

    Examples
    --------
    >>> Z = boolean_inputs(30, 1, 6, rng=0)[:, 0]
    >>> parity_by_elimination(Z, Z[:, 1] * Z[:, 4])
    (1, 4)
    """
    if Z.ndim != 2 or chi.shape != (Z.shape[0],):
        raise ValueError(f"Z must have shape (M, K) and chi shape (M,); received {Z.shape} and {chi.shape}")
    A = np.concatenate([(Z < 0), (chi < 0)[:, None]], axis=1).astype(np.uint8)  # (M, K + 1) augmented bits
    M, K = Z.shape
    pivots, row = [], 0
    for col in range(K):
        hits = np.flatnonzero(A[row:, col]) + row
        if hits.size == 0:
            continue
        A[[row, hits[0]]] = A[[hits[0], row]]
        others = np.flatnonzero(A[:, col])
        others = others[others != row]
        A[others] ^= A[row]
        pivots.append(col)
        row += 1
        if row == M:
            break
    if A[row:, K].any():
        return None  # a row 0 = 1: no parity fits every example
    solution = np.zeros(K, dtype=np.uint8)
    for r, col in enumerate(pivots):
        solution[col] = A[r, K]
    return tuple(int(j) for j in np.flatnonzero(solution))


@arguments(Z="cube", chi="cube", s="size")
def parity_by_enumeration(Z, chi, s: int):
    """The s-subset S whose parity agrees with the most labels, by trying all C(K, s) of them.

    Parameters
    ----------
    Z : array_like of shape (M, K)
    chi : array_like of shape (M,)
    s : int

    Returns
    -------
    support : tuple of int
    agreement : float
        Fraction of examples with ``chi_S(z) = chi``.

    Notes
    -----
    Tolerates label noise below 1/2 given enough examples, at a cost of
    ``C(K, s) M`` operations: ``K^s`` up to a constant, the time the
    statistical-query bound says cannot be beaten by statistical algorithms.

    Examples
    --------
    >>> Z = boolean_inputs(200, 1, 8, rng=0)[:, 0]
    >>> chi = Z[:, 2] * Z[:, 5] * np.where(np.arange(200) % 10 == 0, -1, 1)  # 10% of labels flipped
    >>> parity_by_enumeration(Z, chi, 2)
    ((2, 5), 0.9)
    """
    if Z.ndim != 2 or chi.shape != (Z.shape[0],) or s > Z.shape[1]:
        raise ValueError(f"Z must have shape (M, K) with K >= s={s} and chi shape (M,); "
                         f"received {Z.shape} and {chi.shape}")
    best, best_agree = None, -1.0
    for S in combinations(range(Z.shape[1]), s):
        agree = float(np.mean(np.prod(Z[:, list(S)], axis=1) == chi))
        if agree > best_agree:
            best, best_agree = S, agree
    return tuple(int(j) for j in best), best_agree
