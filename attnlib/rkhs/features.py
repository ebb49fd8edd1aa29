"""The cubic features phi(X) of linear attention and their kernel (chapter 3).

``phi(X) = vech(X^T X) ⊗ x_n``: the psi = d^2 (d + 1) / 2 distinct products
``G[j, k] x_n[l]`` of the Gram matrix with the last token, in the order of the
paper's Algorithm 2 (see :mod:`attnlib.rkhs`).
"""

from __future__ import annotations

import numpy as np

from .._arguments import arguments
from . import _normal_equations as _ne
from . import _sequences as _seq

n_features = _ne.n_features

__all__ = ["cubic_features", "kernel", "n_features"]


@arguments(X=_seq.SEQUENCES, causal="flag")
def cubic_features(X, *, causal: bool = False):
    """The psi = d^2 (d + 1) / 2 distinct cubic features of linear attention.

    Parameters
    ----------
    X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays
        Sequences; rows are tokens.
    causal : bool, default False
        False: one row per sequence, for the last token. True: one row per
        token t, from the prefix Gram matrix of tokens 1..t.

    Returns
    -------
    Phi : ndarray of shape (N, psi), or (N, n, psi) if causal
        (psi,) or (n, psi) for one sequence; a list of (n_i, psi) arrays for
        ragged causal input. ``Phi[..., p * d + l] = G[j_p, k_p] * x[l]`` with
        ``G = X^T X`` (prefix sums if causal), the pairs (j_p, k_p) in the
        order of Algorithm 2 (j < k row by row, then the diagonal), and x the
        last token (or token t).

    Notes
    -----
    The last-token output of any linear attention layer is ``Phi @ c`` with
    ``c = parameter_map(heads)`` (Yau et al. 2025, Algorithm 2 and Cor. A.4;
    chapter 3 of the book).

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features
    >>> X = gaussian_inputs(5, 7, 3, rng=0)
    >>> cubic_features(X).shape, cubic_features(X, causal=True).shape
    ((5, 18), (5, 7, 18))
    """
    seqs = X
    mode = "causal" if causal else "last"
    psi = n_features(seqs.d)
    _ne.check_memory("cubic_features", 8 * seqs.rows(mode) * psi + 8 * _ne.CHUNK_FLOATS, seqs.d)
    with np.errstate(over="ignore", invalid="ignore"):
        Phi = _ne.map_rows(seqs, mode, _ne.features, psi)
    if not all(np.isfinite(p).all() for p in (Phi if isinstance(Phi, list) else [Phi])):
        raise ValueError("the cubic features of X overflow float64: the entries of X are too large for products "
                         "of three of them; rescale X")
    return Phi


@arguments(X=_seq.SEQUENCES, X2=_seq.SEQUENCES)
def kernel(X, X2):
    """The kernel of the cubic features: ``K[i, j] = <phi(X_i), phi(X2_j)>``.

    Parameters
    ----------
    X, X2 : array_like of shape (n, d) or (N, n, d), or lists of (n_i, d) arrays
        Sequence lengths may differ within and between the two.

    Returns
    -------
    K : ndarray of shape (N, N2)
        A float if both are single sequences, one axis dropped if either is.

    Notes
    -----
    With ``G = X^T X``, ``G' = X2^T X2`` and last tokens x, x',
    ``k(X, X2) = (<G, G'>_F + sum_j G_jj G'_jj) / 2 * <x, x'>``, which never
    forms the features. Without the reduction to distinct entries (every
    ``G[j, k] x[l]``, d^3 of them) the kernel is ``||X X2^T||_F^2 <x, x'>``.

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features, kernel
    >>> X = gaussian_inputs(4, 5, 3, rng=0)
    >>> bool(np.allclose(kernel(X, X), cubic_features(X) @ cubic_features(X).T))
    True
    """
    a, b = X, _seq.check_dimension(X2, X.d, "X2")

    def parts(seqs):
        G = np.empty((seqs.N, seqs.d, seqs.d))
        x = np.empty((seqs.N, seqs.d))
        for idx, X3 in seqs.blocks:
            G[idx] = np.matmul(X3.swapaxes(1, 2), X3)
            x[idx] = X3[:, -1]
        return G.reshape(seqs.N, -1), np.diagonal(G, axis1=1, axis2=2), x

    with np.errstate(over="ignore", invalid="ignore"):
        Ga, Da, xa = parts(a)
        Gb, Db, xb = parts(b)
        K = 0.5 * (Ga @ Gb.T + Da @ Db.T) * (xa @ xb.T)
    if not np.isfinite(K).all():
        raise ValueError("the kernel of X and X2 overflows float64: it is a polynomial of degree 6 in their "
                         "entries; rescale X and X2")
    if a.single and b.single:
        return float(K[0, 0])
    return K[0] if a.single else K[:, 0] if b.single else K
