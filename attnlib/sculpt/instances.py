"""Planted instances for the sculpting reconstruction, and the conditions it needs.

Chen and Li prove their guarantee under "certain non-degeneracy conditions" that
were not available to us. The conditions below are the book's inference from the
structure of its reconstruction (chapter 8), each with a numeric threshold of our
own choosing. :func:`measure_conditions` measures them; :func:`planted_instance`
draws heads that satisfy them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, interval, structure
from .._validation import check_positive_float, wrap_fields
from ..heads import Heads

# Default thresholds of the conditions (the book's choices, see measure_conditions).
MAX_SUM_W_CONDITION = 10.0
NORM_WINDOW = (2.0, 12.0)
MIN_NORM_RATIO = 0.3
MIN_SEPARATION = 0.2
MAX_GRAM_CONDITION = 1e6


@arguments(Theta="array")
def min_norm_point(Theta) -> tuple[np.ndarray, np.ndarray]:
    """The point of smallest Frobenius norm on the affine hull of Theta_1, ..., Theta_m.

    Parameters
    ----------
    Theta : array_like of shape (m, d, d)

    Returns
    -------
    Theta_star : ndarray of shape (d, d)
    lam : ndarray of shape (m,)
        Affine weights, ``Theta_star = sum_i lam[i] Theta[i]`` with ``sum(lam) = 1``.
        All positive means Theta_star lies inside the convex hull.

    Notes
    -----
    Solve ``G lam = 1`` with ``G[i, j] = <Theta_i, Theta_j>`` and normalise lam to
    sum to one. Then ``<Theta_star, Theta_j> = ||Theta_star||^2`` for every j
    (chapter 8, the min-norm lemma): every head has the same component along
    Theta_star.

    Examples
    --------
    >>> from attnlib.sculpt import min_norm_point
    >>> star, lam = min_norm_point(np.stack([np.diag([1.0, 0.0]), np.diag([0.0, 1.0])]))
    >>> star.round(2), lam.round(2)
    (array([[0.5, 0. ],
           [0. , 0.5]]), array([0.5, 0.5]))
    """
    if Theta.ndim == 2:
        Theta = Theta[None]
    if Theta.ndim != 3 or Theta.shape[1] != Theta.shape[2] or 0 in Theta.shape:
        raise ValueError(f"Theta must have shape (m, d, d) with m, d >= 1; received shape {Theta.shape}")
    m = Theta.shape[0]
    G = np.einsum("ipq,jpq->ij", Theta, Theta)  # Gram matrix (m, m)
    lam = np.linalg.lstsq(G, np.ones(m), rcond=None)[0]
    if abs(lam.sum()) < 1e-12 * np.abs(lam).max(initial=1.0):
        raise ValueError("the origin lies on the affine hull of the Theta_i: the min-norm point is 0")
    lam = lam / lam.sum()
    return np.einsum("i,ipq->pq", lam, Theta), lam


@dataclass(frozen=True, eq=False)
class Conditions:
    """The non-degeneracy conditions of the book's reconstruction, measured on a layer.

    Attributes
    ----------
    sum_W_condition : float
        Condition number of ``sum_i W_i`` (a: phases 1 and 3 estimate this sum).
    theta_norms : ndarray of shape (m,)
        ``||Theta_i||_F`` (b: a norm window; too small and attention is never hard).
    min_norm_ratio : float
        ``||Theta_star||_F / max_i ||Theta_i||_F`` (c: the affine hull stays away from 0).
    weights : ndarray of shape (m,)
        Affine weights of Theta_star; all positive means it lies inside the convex hull (c).
    separation : float
        ``min_{i != j} ||Theta_i - Theta_j|| / max_i ||Theta_i||`` (d: distinct heads).
        With one head there is no pair: the minimum over no pairs is ``inf``, and
        condition (d) holds vacuously (the repr says "one head").
    gram_condition : float
        Condition number of the Gram matrix of the Theta_i (d: linearly independent).
    failures : tuple of str
        The conditions that fail; empty when all hold.
    """

    sum_W_condition: float
    theta_norms: np.ndarray
    min_norm_ratio: float
    weights: np.ndarray
    separation: float
    gram_condition: float
    failures: tuple

    @property
    def ok(self) -> bool:
        """True when every condition holds."""
        return not self.failures

    def __repr__(self) -> str:
        status = "all hold" if self.ok else "fail: " + "; ".join(self.failures)
        separation = "n/a (one head)" if len(self.theta_norms) == 1 else f"{self.separation:.3g}"
        return wrap_fields("Conditions", [
            f"cond(sum W)={self.sum_W_condition:.3g}",
            f"|Theta_i| in [{self.theta_norms.min():.3g}, {self.theta_norms.max():.3g}]",
            f"|Theta*|/max|Theta_i|={self.min_norm_ratio:.3g}", f"min weight={self.weights.min():.3g}",
            f"separation={separation}; {status}",
        ])


@arguments(heads="heads", max_sum_W_condition="tol", norm_window=structure("a pair (low, high)"),
           min_norm_ratio="tol", min_separation="tol", max_gram_condition="tol")
def measure_conditions(
    heads: Heads,
    *,
    max_sum_W_condition: float = MAX_SUM_W_CONDITION,
    norm_window: tuple[float, float] = NORM_WINDOW,
    min_norm_ratio: float = MIN_NORM_RATIO,
    min_separation: float = MIN_SEPARATION,
    max_gram_condition: float = MAX_GRAM_CONDITION,
) -> Conditions:
    """Measure the conditions the book's reconstruction needs on a layer.

    Parameters
    ----------
    heads : Heads
    max_sum_W_condition : float, default 10
        (a) ``cond(sum_i W_i)`` at most this.
    norm_window : (float, float), default (2, 12)
        (b) every ``||Theta_i||_F`` in this interval.
    min_norm_ratio : float, default 0.3
        (c) ``||Theta_star|| >= min_norm_ratio * max_i ||Theta_i||`` and Theta_star
        inside the convex hull of the Theta_i (all affine weights positive).
    min_separation : float, default 0.2
        (d) ``||Theta_i - Theta_j|| >= min_separation * max_i ||Theta_i||`` for i != j.
    max_gram_condition : float, default 1e6
        (d) the Theta_i linearly independent: their Gram matrix has at most this
        condition number.

    Returns
    -------
    Conditions

    Notes
    -----
    These are the book's inferences (digest of Chen and Li, section 1.3), not the
    paper's assumptions, which were not available to us. Chapter 8 shows where
    each one is used.

    Examples
    --------
    >>> from attnlib.sculpt import measure_conditions, planted_instance
    >>> measure_conditions(planted_instance(2, 4, rng=0)).ok
    True
    """
    if not isinstance(norm_window, (tuple, list)) or len(norm_window) != 2:
        raise ValueError(f"norm_window must be a pair (low, high) of positive numbers; received {norm_window!r}")
    lo, hi = (check_positive_float("norm_window", v) for v in norm_window)
    if lo >= hi:
        raise ValueError(f"norm_window must be a pair (low, high) with low < high; received {norm_window!r}")
    S = heads.W.sum(axis=0)
    sum_cond = float(np.linalg.cond(S))
    norms = np.linalg.norm(heads.Theta, axis=(1, 2))
    star, lam = min_norm_point(heads.Theta)
    ratio = float(np.linalg.norm(star) / norms.max())
    m = heads.m
    diffs = [np.linalg.norm(heads.Theta[i] - heads.Theta[j]) for i in range(m) for j in range(i + 1, m)]
    separation = float(min(diffs) / norms.max()) if diffs else float("inf")
    G = np.einsum("ipq,jpq->ij", heads.Theta, heads.Theta)
    gram_cond = float(np.linalg.cond(G))
    failures = []
    if not sum_cond <= max_sum_W_condition:
        failures.append(f"(a) cond(sum W_i) = {sum_cond:.3g} > {max_sum_W_condition:g}")
    if norms.min() < lo or norms.max() > hi:
        failures.append(f"(b) ||Theta_i|| in [{norms.min():.3g}, {norms.max():.3g}], outside [{lo:g}, {hi:g}]")
    if ratio < min_norm_ratio:
        failures.append(f"(c) ||Theta*|| / max ||Theta_i|| = {ratio:.3g} < {min_norm_ratio:g}")
    if lam.min() <= 0:
        failures.append(f"(c) Theta* is outside the convex hull of the heads (weight {lam.min():.3g})")
    if separation < min_separation:
        failures.append(f"(d) heads closer than {min_separation:g} (separation {separation:.3g})")
    if gram_cond > max_gram_condition:
        failures.append(f"(d) Theta_i nearly dependent (Gram condition number {gram_cond:.3g})")
    return Conditions(sum_cond, norms, ratio, lam, separation, gram_cond, tuple(failures))


@arguments(m="size", d="size", scale="tol", shared=interval(0.0, 1.0, high_open=True), check="flag", rng="rng")
def planted_instance(m: int, d: int, *, scale: float = 4.0, shared: float = 0.6, check: bool = True,
                     rng=None) -> Heads:
    """Heads with a shared attention component, built to satisfy the reconstruction's conditions.

    Parameters
    ----------
    m, d : int
        Heads and token dimension; ``m + 1 <= d**2``.
    scale : float, default 4.0
        ``||Theta_i||_F`` of every head: the typical size of a logit gap, so the
        sharpness of attention.
    shared : float in [0, 1), default 0.6
        Cosine between any two heads: ``Theta_i = scale (sqrt(shared) C +
        sqrt(1 - shared) D_i)`` with C, D_1, ..., D_m orthonormal (Frobenius).
    check : bool, default True
        Raise if the drawn heads fail :func:`measure_conditions`; pass False to
        study instances outside the conditions (chapter 9 does, on purpose).
    rng : int, numpy.random.Generator or None

    Returns
    -------
    Heads

    Notes
    -----
    The conditions (:func:`measure_conditions`, defaults) and how the construction meets them:

    (a) ``cond(sum_i W_i) <= 10``: W_i has i.i.d. N(0, 1/d) entries, redrawn until it holds.
    (b) ``2 <= ||Theta_i||_F <= 12``: holds when ``scale`` does.
    (c) ``||Theta_star|| >= 0.3 max ||Theta_i||`` with Theta_star inside the convex
        hull: here ``Theta_star = scale (sqrt(shared) C + sqrt(1 - shared) mean_i D_i)``,
        so the ratio is ``sqrt(shared + (1 - shared) / m)`` and every affine weight is 1/m.
    (d) distinct, independent heads: ``||Theta_i - Theta_j|| = scale sqrt(2 (1 - shared))``
        and the Gram matrix has condition number ``1 + m shared / (1 - shared)``.

    Examples
    --------
    >>> from attnlib.sculpt import planted_instance
    >>> heads = planted_instance(2, 4, rng=0)
    >>> heads, np.linalg.norm(heads.Theta, axis=(1, 2)).round(3)
    (Heads(m=2, d=4), array([4., 4.]))
    """
    if m + 1 > d * d:
        raise ValueError(f"need m + 1 <= d^2 orthonormal directions; received m={m}, d={d}")
    Q, _ = np.linalg.qr(rng.standard_normal((d * d, m + 1)))  # orthonormal columns
    C = Q[:, 0].reshape(d, d)
    D = Q[:, 1:].T.reshape(m, d, d)
    Theta = scale * (np.sqrt(shared) * C + np.sqrt(1.0 - shared) * D)
    for _ in range(1000):
        W = rng.normal(0.0, 1.0 / np.sqrt(d), size=(m, d, d))
        if np.linalg.cond(W.sum(axis=0)) <= MAX_SUM_W_CONDITION:
            break
    else:  # pragma: no cover - probability far below 1e-100
        raise RuntimeError("could not draw projections with a well-conditioned sum")
    heads = Heads(Theta, W)
    if check:
        conditions = measure_conditions(heads)
        if not conditions.ok:
            raise ValueError(
                "the planted heads fail the reconstruction's conditions: " + "; ".join(conditions.failures)
                + " (pass check=False to draw them anyway)"
            )
    return heads
