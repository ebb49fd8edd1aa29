"""Phase 3 of the book's reconstruction: the min-norm proxy, its slices, and the refined sum_i W_i.

Phase 3 computes the minimum-norm point of the sculpted body (the *proxy*),
keeps the rows on which the proxy's logit gap is largest (a *slice*), where
every head attends to the same token, and regresses the labels on that token to
refine ``S = sum_i W_i``. Phases 2 and 3 repeat (:func:`sculpt_rounds`): a better
estimate of S certifies a better body, whose proxy cuts better slices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance
from .._linalg import lstsq
from .._validation import check_axis_values, sequences_shape
from ._common import (
    SculptError,
    check_data,
    check_finite,
    check_matrix,
    check_nonzero_labels,
    check_proxy,
    distinct_from,
    gather_tokens,
    score_of,
    spanning_prefix,
)
from .body import Body, prune, sculpt_body
from .sum_w import trimmed_sum_W


@dataclass(frozen=True, eq=False)
class SliceFit:
    """Phase 3's slice regression (:func:`refine_sum_W`): the refined estimate of ``sum_i W_i``.

    Attributes
    ----------
    estimate : ndarray of shape (d, d)
        The refined estimate (after the atom step, if it was taken).
    slice_only : ndarray of shape (d, d)
        The estimate from the slice alone, before the atom step.
    rows : int
        Rows in the slice.
    threshold : float
        The proxy margin at the cut, in proxy units.
    """

    estimate: np.ndarray
    slice_only: np.ndarray
    rows: int
    threshold: float

    def __repr__(self) -> str:
        return f"SliceFit(rows={self.rows}, threshold={self.threshold:.3g})"


@arguments(body=instance(Body, where="sculpt_body"), phase="text")
def min_norm_proxy(body: Body, *, phase: str = "phase 3") -> np.ndarray:
    """The point of the body closest to the origin: the minimum-norm proxy.

    Parameters
    ----------
    body : Body

    Returns
    -------
    ndarray of shape (d, d)

    Raises
    ------
    SculptError
        If the body has no halfspaces (phase 2 certified nothing) or is empty.

    Notes
    -----
    Least-distance programming: ``min ||theta|| s.t. Z theta >= gamma`` is solved
    through the non-negative least-squares problem ``min_{u >= 0}
    ||[Z^T; gamma 1^T] u - e||`` (Lawson and Hanson), with scipy's ``nnls``.
    If the halfspaces came from every Z with ``min_i <Theta_i, Z> >= gamma``,
    the body would be ``conv{Theta_i} + cone{Theta_i}``, whose min-norm point is
    the min-norm point of the affine hull when that lies inside the convex hull
    (chapter 8). The box of the body is ignored.

    Examples
    --------
    >>> from attnlib.sculpt import Body, min_norm_proxy
    >>> body = Body(np.stack([np.eye(2), np.diag([1.0, -1.0])]), gamma=1.0, bound=None, certified=2)
    >>> min_norm_proxy(body).round(3) + 0.0
    array([[1., 0.],
           [0., 0.]])
    """
    from scipy.optimize import nnls

    K, d = body.n_constraints, body.d
    if K == 0:
        raise SculptError("phase 2", "no row was certified, so the body has no halfspaces", n_constraints=0)
    G = body.Z.reshape(K, d * d)
    E = np.vstack([G.T, body.gamma * np.ones((1, K))])  # (d^2 + 1, K)
    f = np.zeros(d * d + 1)
    f[-1] = 1.0
    u, _ = nnls(E, f, maxiter=max(50 * K, 1000))
    r = E @ u - f
    if abs(r[-1]) < 1e-10:
        raise SculptError(phase, f"the body is empty: its {K} certified halfspaces contradict each other",
                          n_constraints=K)
    return (-r[:-1] / r[-1]).reshape(d, d)


@arguments(X="array", proxy="array")
def proxy_margins(X, proxy) -> tuple[np.ndarray, np.ndarray]:
    """The token each row attends to under the proxy, and the proxy's logit-gap margin.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    proxy : array_like of shape (d, d)

    Returns
    -------
    b : ndarray of int, shape (N, n)
        ``argmax_b x_a^T P x_b``.
    margin : ndarray of shape (N, n)
        ``min_c x_a^T P (x_b - x_c)`` over tokens c with a different value;
        ``inf`` when all tokens equal x_b.
    """
    X, _ = sequences_shape(X)
    P = check_proxy(proxy, X.shape[-1])
    L = np.einsum("Nap,pq,Nbq->Nab", X, P, X)  # proxy logits (N, a, b)
    b = L.argmax(axis=-1)
    gaps = np.take_along_axis(L, b[..., None], axis=-1) - L  # (N, a, c)
    gaps = np.where(distinct_from(X, gather_tokens(X, b)), gaps, np.inf)
    return b, gaps.min(axis=-1)


@arguments(X="cube", Y="array", proxy="array", quantile="fraction", keep="fraction", iterations="size",
           min_rows="optsize", atoms="flag")
def refine_sum_W(X, Y, proxy, *, quantile: float = 0.05, keep: float = 0.5, iterations: int = 5,
                 min_rows: int | None = None, atoms: bool = True) -> SliceFit:
    """Phase 3: regress labels on the proxy's token over the slice where the proxy's margin is largest.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    proxy : array_like of shape (d, d)
        The min-norm proxy (only its direction matters).
    quantile : float in (0, 1], default 0.05
        The slice is the top ``quantile`` of rows by proxy margin.
    keep : float in (0, 1], default 0.5
        Within the slice, refit on this fraction of rows nearest to the fit, ``iterations`` times.
    iterations : int, default 5
    min_rows : int, optional
        At least this many rows in the slice (default 5 d).
    atoms : bool, default True
        Finish with :func:`trimmed_sum_W` over all rows, started from the slice
        estimate: the slice supplies the start that the crude estimate cannot.

    Returns
    -------
    SliceFit
        ``estimate`` (the refined sum), ``slice_only`` (the estimate before the
        atom step), ``rows`` (slice size) and ``threshold`` (margin at the cut,
        in proxy units).

    Notes
    -----
    Write a gap feature as ``Z = t P / ||P||^2 + Z_perp``. If P is the min-norm
    point of the heads' affine hull, every head's gap is ``t + <Theta_i, Z_perp>``:
    a large proxy margin t makes all heads attend to the same token b, and then
    ``F(X)_a ~ x_b^T sum_i W_i``. Book section 8.4.

    Examples
    --------
    >>> from attnlib.sculpt import min_norm_point, planted_instance, refine_sum_W
    >>> heads = planted_instance(2, 4, scale=6.0, shared=0.8, rng=0)
    >>> X = boolean_inputs(4000, 3, 4, rng=1)
    >>> fit = refine_sum_W(X, attention(X, heads), min_norm_point(heads.Theta)[0])
    >>> bool(np.linalg.norm(fit.estimate - heads.W.sum(0)) < 0.01 * np.linalg.norm(heads.W.sum(0)))
    True
    """
    X, Y = check_data(X, Y)
    check_nonzero_labels("Y", Y)
    N, n, d = X.shape
    min_rows = 5 * d if min_rows is None else min_rows
    b, margin = proxy_margins(X, check_proxy(proxy, d))
    margin, tokens, labels = margin.ravel(), gather_tokens(X, b).reshape(N * n, d), Y.reshape(N * n, d)
    finite = np.flatnonzero(np.isfinite(margin))
    if len(finite) < min_rows:
        raise SculptError("phase 3", f"only {len(finite)} rows have a competing token; need {min_rows}")
    order = finite[np.argsort(-margin[finite], kind="stable")]
    count = max(min_rows, int(np.ceil(quantile * len(finite))))
    rows = spanning_prefix(tokens, order, count, phase="phase 3")
    threshold = margin[rows[-1]]
    A, B = tokens[rows], labels[rows]  # (R, d), (R, d)
    S = lstsq(A, B).x
    for _ in range(iterations):
        r = np.linalg.norm(B - A @ S, axis=-1)
        near = spanning_prefix(A, np.argsort(r), int(np.ceil(keep * len(r))), phase="phase 3")
        S = lstsq(A[near], B[near]).x
    slice_only = check_finite("the slice estimate of sum_i W_i", S, "Y")
    return SliceFit(trimmed_sum_W(X, Y, S, keep=0.05) if atoms else S, slice_only, len(rows), float(threshold))


@arguments(X="cube", Y="array", proxy="array", sum_W_true="array", quantiles="array")
def slice_curve(X, Y, proxy, sum_W_true, quantiles) -> np.ndarray:
    """Relative error of the slice regression of phase 3 at each slice size.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    proxy : array_like of shape (d, d)
    sum_W_true : array_like of shape (d, d)
        The planted ``sum_i W_i``, to measure the error.
    quantiles : array_like of shape (Q,)
        Slice sizes as fractions of the rows.

    Returns
    -------
    ndarray of shape (Q,)
        ``||S_q - sum W|| / ||sum W||`` with no trimming (``keep=1``), so the
        curve shows the slice alone.
    """
    X, Y = check_data(X, Y)
    S_true = check_matrix("sum_W_true", sum_W_true, X.shape[-1])
    if not np.any(S_true):
        raise ValueError("sum_W_true is the zero matrix: a relative error to it is undefined")
    quantiles = check_axis_values("quantiles", quantiles)
    if (quantiles <= 0).any() or (quantiles > 1).any():
        raise ValueError(f"quantiles must lie in (0, 1]; received {quantiles.tolist()}")
    out = []
    for q in quantiles:
        S = refine_sum_W(X, Y, proxy, quantile=float(q), keep=1.0, iterations=1, atoms=False).estimate
        out.append(np.linalg.norm(S - S_true) / np.linalg.norm(S_true))
    return np.array(out)


@dataclass(frozen=True, eq=False)
class Sculpted:
    """Phases 2-3 (:func:`sculpt_rounds`): the body, its min-norm proxy, and the refined estimate of ``sum_i W_i``.

    Attributes
    ----------
    body : Body
        Certified with ``sum_W`` (phase 2) and pruned of contradicting halfspaces.
    proxy : ndarray of shape (d, d)
        The body's min-norm point (phase 3).
    sum_W : ndarray of shape (d, d)
        The estimate with the better atom score: phase 1's, or a slice regression's.
    atom_score : float
        Its :func:`attnlib.sculpt.atom_score`.
    slice : SliceFit
        The last slice regression (phase 3).
    dropped : tuple of int
        Halfspaces :func:`attnlib.sculpt.prune` removed, one count per certification.
    """

    body: Body
    proxy: np.ndarray
    sum_W: np.ndarray
    atom_score: float
    slice: SliceFit
    dropped: tuple

    def __repr__(self) -> str:
        return f"Sculpted({self.body!r}, dropped={self.dropped}, atom_score={self.atom_score:.2g})"


@arguments(X="cube", Y="array", sum_W="array", rounds="size", delta="tol", quantile="fraction")
def sculpt_rounds(X, Y, sum_W, *, rounds: int = 2, delta: float = 0.05, quantile: float = 0.05) -> Sculpted:
    """Phases 2-3, ``rounds`` times: certify a body with the current S, take its proxy, refine S on its slices.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    sum_W : array_like of shape (d, d)
        Phase 1's estimate of ``sum_i W_i``.
    rounds : int, default 2
        Rounds of certification (phase 2) and slice regression (phase 3).
    delta : float, default 0.05
        Smallest relative certification tolerance; a round certifies within
        ``max(delta, 3 * atom_score)`` of the current estimate.
    quantile : float, default 0.05
        Slice size of phase 3 (:func:`refine_sum_W`).

    Returns
    -------
    Sculpted
        The body certified with the final estimate, its proxy, and that estimate: a slice
        regression replaces the current one when its atom score is no worse.

    Raises
    ------
    SculptError
        If nothing is certified (phase 2) or the body is empty (phase 3).

    Examples
    --------
    >>> from attnlib.sculpt import estimate_sum_W, planted_instance, sculpt_rounds
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> Y = attention(X, teacher)
    >>> sculpted = sculpt_rounds(X, Y, estimate_sum_W(X, Y).estimate)
    >>> sculpted.proxy.shape, len(sculpted.dropped)
    ((4, 4), 3)
    """
    X, Y = check_data(X, Y)
    S = check_matrix("sum_W", sum_W, X.shape[-1])
    score = score_of(X, Y, S)
    if not np.isfinite(score):
        raise SculptError("phase 2", "sum_W maps most tokens to zero, so no label matches an atom x_b^T S")
    dropped, fit = [], None
    for _ in range(rounds):
        body, count = prune(sculpt_body(X, Y, S, delta=max(delta, 3.0 * score)))
        dropped.append(count)
        fit = refine_sum_W(X, Y, min_norm_proxy(body), quantile=quantile)
        slice_score = score_of(X, Y, fit.estimate)
        if slice_score <= score:
            S, score = fit.estimate, slice_score
    body, count = prune(sculpt_body(X, Y, S, delta=max(delta, 3.0 * score)))
    return Sculpted(body, min_norm_proxy(body), S, score, fit, (*dropped, count))
