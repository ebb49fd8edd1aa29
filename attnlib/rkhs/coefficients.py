"""Coefficients of linear attention on the cubic features, and the way back to heads.

The book's p(Theta) (:func:`parameter_map`), the matrix view of a coefficient
vector, the SVD back to at most d^2 heads, and the distance between two layers
measured on their coefficients (chapters 3-4).
"""

from __future__ import annotations

import numpy as np

from .._arguments import Kind, arguments
from .._validation import as_float_array, describe
from ..heads import Heads
from . import _normal_equations as _ne
from .features import n_features

__all__ = ["coefficient_matrix", "heads_from_coef", "parameter_distance", "parameter_map"]


@arguments(heads="heads")
def parameter_map(heads: Heads) -> np.ndarray:
    """The coefficients p(Theta) of a linear attention layer on the cubic features.

    Parameters
    ----------
    heads : Heads

    Returns
    -------
    coef : ndarray of shape (psi, d)
        ``coef[:, a]`` is the paper's ``p_a(Theta)``, so that
        ``cubic_features(X) @ coef`` is the last-token output for every X.

    Notes
    -----
    For the pair (j, k) and feature index l (Cor. A.4, in the book's row
    convention): ``sum_i Theta_i[l, j] W_i[k, a] + Theta_i[l, k] W_i[j, a]`` if
    j < k, and ``sum_i Theta_i[l, j] W_i[j, a]`` on the diagonal. Two layers
    compute the same function exactly when their coefficients agree.

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features, parameter_map
    >>> heads = random_heads(2, 3, rng=0)
    >>> X = gaussian_inputs(4, 6, 3, rng=1)
    >>> bool(np.allclose(cubic_features(X) @ parameter_map(heads), attention(X, heads, kind="linear")[:, -1]))
    True
    """
    d = heads.d
    with np.errstate(over="ignore", invalid="ignore"):
        T = np.einsum("ilj,ika->jkla", heads.Theta, heads.W)  # T[j, k, l, a] = sum_i Theta_i[l, j] W_i[k, a]
    J, K = _ne.gram_pairs(d)
    with np.errstate(over="ignore", invalid="ignore"):
        C = T[J, K] + T[K, J]  # (P, d, d) indexed (pair, l, a)
    diag = J == K
    C[diag] = T[J[diag], J[diag]]
    if not np.isfinite(C).all():
        raise ValueError("the coefficients of heads overflow float64 (products of Theta and W entries); "
                         "rescale the heads")
    return C.reshape(-1, d)


@arguments(coef="array")
def coefficient_matrix(coef) -> np.ndarray:
    """The d^2 x d^2 matrix M of a coefficient vector, whose SVD gives the heads.

    Parameters
    ----------
    coef : array_like of shape (psi, d)

    Returns
    -------
    M : ndarray of shape (d * d, d * d)
        ``M[l * d + j, k * d + a]``: the pair coefficient (j < k) sits on (l, j), (k, a)
        and nothing on (l, k), (j, a); the diagonal ones on (l, j), (j, a). Then the
        last-token output is ``sum x_l G_jk M[(l, j), (k, a)]``, and a layer with
        heads ``(Theta_i, W_i)`` gives ``sum_i vec(Theta_i) vec(W_i)^T`` in this form
        whenever that matrix happens to vanish below the pair diagonal.

    Examples
    --------
    >>> from attnlib.rkhs import coefficient_matrix
    >>> coefficient_matrix(np.ones((18, 3))).shape
    (9, 9)
    """
    if coef.ndim != 2:
        raise ValueError(f"coef must have shape (psi, d); received shape {coef.shape}")
    d = coef.shape[1]
    psi = n_features(d)
    if coef.shape != (psi, d):
        raise ValueError(f"coef must have shape (psi, d) = ({psi}, {d}) for d={d}; received shape {coef.shape}")
    J, K = _ne.gram_pairs(d)
    M4 = np.zeros((d, d, d, d))  # (l, j, k, a)
    M4[:, J, K, :] = coef.reshape(-1, d, d).transpose(1, 0, 2)
    return M4.reshape(d * d, d * d)


@arguments(coef="array", max_heads="optsize", rtol="opttol")
def heads_from_coef(coef, *, max_heads: int | None = None, rtol: float | None = None) -> Heads:
    """Fold coefficients on the cubic features back into at most d^2 heads.

    Parameters
    ----------
    coef : array_like of shape (psi, d)
        As returned by :func:`parameter_map` or ``LinearFit.coef``.
    max_heads : int, optional
        Keep at most this many heads (the largest singular values): the best
        approximation with that many heads in the Frobenius norm of M.
    rtol : float, optional
        Singular values below ``rtol`` times the largest are dropped; default
        ``d^2 * machine epsilon`` (the numerical rank).

    Returns
    -------
    Heads
        m = rank <= d^2 heads (one zero head if coef is zero) with
        ``parameter_map(heads) == coef`` up to rounding.

    Notes
    -----
    The coefficient of pair (j, k), j < k, is placed on ``M[(l, j), (k, a)]``,
    the diagonal ones on ``M[(l, j), (j, a)]``, so that the output is
    ``sum x_l G_jk M[(l, j), (k, a)]``. Then ``M = sum_h s_h u_h v_h^T`` (SVD) and
    head h is ``Theta_h = sqrt(s_h) u_h``, ``W_h = sqrt(s_h) v_h``, each folded to
    d x d (Algorithm 1, steps 6-7).

    Examples
    --------
    >>> from attnlib.rkhs import heads_from_coef, parameter_map
    >>> heads = random_heads(3, 2, rng=0)
    >>> folded = heads_from_coef(parameter_map(heads))
    >>> folded.m <= 4, bool(np.allclose(parameter_map(folded), parameter_map(heads)))
    (True, True)
    """
    from scipy.linalg import svd  # scipy's LAPACK, as the fit's Cholesky: its threads are awake (numpy's
    # may be asleep after a fit, and waking them costs 0.1 s on two threads, five times this SVD at d = 16)

    M = coefficient_matrix(coef)
    d = int(round(np.sqrt(M.shape[0])))
    U, s, Vt = svd(M, check_finite=False)
    tol = (d * d * np.finfo(float).eps if rtol is None else rtol) * s[0]
    keep = max(int(np.sum(s > tol)), 1)
    if max_heads is not None:
        keep = min(keep, max_heads)
    root = np.sqrt(s[:keep])
    Theta = (U[:, :keep] * root).T.reshape(keep, d, d)
    W = (Vt[:keep].T * root).T.reshape(keep, d, d)
    return Heads(Theta, W)


def as_coef(p, *, name: str = "coefficients", check: bool = True) -> np.ndarray:
    """The coefficients (psi, d) of a layer given as Heads, a ``LinearFit`` or an array.

    With ``check=False`` an array's entries are taken as they are (a declared argument, checked already).

    Examples
    --------
    >>> from attnlib.rkhs.coefficients import as_coef
    >>> as_coef(random_heads(2, 3, rng=0)).shape
    (18, 3)
    """
    if isinstance(p, Heads):
        return parameter_map(p)
    if hasattr(p, "coef") and hasattr(p, "predict"):  # a LinearFit
        return p.coef
    if not isinstance(p, (np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be Heads, a LinearFit or an array of shape (psi, d); received {describe(p)}")
    coef = as_float_array(name, p) if check else np.asarray(p, dtype=np.float64)
    if coef.ndim != 2:
        raise ValueError(
            f"{name} must be Heads, a LinearFit or an array of shape (psi, d); received shape {coef.shape}"
        )
    return coef


#: a layer: Heads, a LinearFit or coefficients of shape (psi, d); the body gets the coefficients
LAYER = Kind("array", lambda name, value: as_coef(value, name=name), convert=lambda value: as_coef(value, check=False))
#: the same, or None
OPTLAYER = Kind("array", LAYER.check, optional=True, convert=LAYER.convert)


@arguments(heads_a=LAYER, heads_b=LAYER)
def parameter_distance(heads_a, heads_b) -> float:
    """The distance ``||p(Theta) - p(Theta')||_F`` between two linear attention layers.

    Parameters
    ----------
    heads_a, heads_b : Heads, LinearFit or ndarray of shape (psi, d)
        Layers, fits, or their coefficients (:func:`parameter_map`).

    Returns
    -------
    float
        0 exactly when the two layers compute the same function on every input
        of every length (Cor. 2.4 / A.4 of Yau et al. 2025; the y-axis of their
        Fig. 2). Head count, order and the factorisation gauge do not matter.

    Examples
    --------
    >>> from attnlib.rkhs import parameter_distance
    >>> heads = random_heads(2, 3, rng=0)
    >>> swapped = Heads(2.0 * heads.Theta[::-1], 0.5 * heads.W[::-1])
    >>> round(parameter_distance(heads, swapped), 12)
    0.0
    """
    a, b = heads_a, heads_b
    if a.shape != b.shape:
        raise ValueError(f"the two layers heads_a and heads_b have coefficient shapes {a.shape} and {b.shape}; "
                         "they need the same d")
    return float(np.linalg.norm(a - b))
