"""Phase 4 of the book's reconstruction: the span of the attention matrices.

Three estimates of ``span{Theta_1, ..., Theta_m}``, each an orthonormal basis
whose first element is the direction of the min-norm proxy:

* :func:`face_span` reads it off the *face* of the body that minimises
  ``<proxy, Theta>``: ideally that face is the convex hull of the heads.
* :func:`spectral_span` finds the directions in which the gap features of rows
  where the heads *disagree* have excess variance.
* :func:`random_span` is the baseline: random directions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, choice, instance
from ._common import (
    SculptError,
    check_data,
    check_m,
    check_matrix,
    check_proxy,
    distinct_from,
    gap_features,
    gather_tokens,
)
from .body import Body, support
from .proxy import Sculpted, proxy_margins

SPAN_METHODS = ("face", "spectral", "random")


@dataclass(frozen=True, eq=False)
class Span:
    """An estimate of the span of the Theta_i.

    Attributes
    ----------
    basis : ndarray of shape (m, d, d)
        Orthonormal in the Frobenius inner product; ``basis[0]`` is the proxy's direction.
    points : ndarray of shape (k, d, d)
        The extreme points of the face it was computed from (empty for other methods).
    method : str
        How it was found: one of :data:`SPAN_METHODS`, or a name of the caller's.
    """

    basis: np.ndarray
    points: np.ndarray
    method: str

    def __post_init__(self):
        B, P = self.basis, self.points
        if B.ndim != 3 or B.shape[0] == 0 or B.shape[1] != B.shape[2] or B.shape[1] == 0:
            raise ValueError(f"basis must have shape (m, d, d) with m, d >= 1; received shape {B.shape}")
        if P.ndim != 3 or P.shape[1:] != B.shape[1:]:
            raise ValueError(f"points must have shape (k, {B.shape[1]}, {B.shape[1]}) like the basis; "
                             f"received shape {P.shape}")

    @property
    def dim(self) -> int:
        """The number of directions (m)."""
        return self.basis.shape[0]

    @arguments(Theta="array")
    def project(self, Theta) -> np.ndarray:
        """Orthogonal projection of Theta (shape (..., d, d)) onto the span."""
        d = self.basis.shape[1]
        if Theta.ndim < 2 or Theta.shape[-2:] != (d, d):
            raise ValueError(f"Theta must have shape (..., {d}, {d}); received shape {Theta.shape}")
        coef = np.einsum("...pq,jpq->...j", Theta, self.basis)
        return np.einsum("...j,jpq->...pq", coef, self.basis)

    def __repr__(self) -> str:
        return f"Span(m={self.basis.shape[0]}, d={self.basis.shape[1]}, method={self.method!r})"


def _orthonormal_to(P: np.ndarray, vectors: np.ndarray, k: int) -> np.ndarray:
    """Top-k principal directions of ``vectors`` (rows) after removing the unit direction P."""
    V = vectors - np.outer(vectors @ P, P)
    _, _, Vt = np.linalg.svd(V, full_matrices=False)
    return Vt[:k]


def _basis(proxy: np.ndarray, directions: np.ndarray) -> np.ndarray:
    d = proxy.shape[0]
    P = proxy.ravel() / np.linalg.norm(proxy)
    Q, _ = np.linalg.qr(np.column_stack([P, *directions]))
    Q[:, 0] *= np.sign(Q[:, 0] @ P)
    return Q.T.reshape(-1, d, d)


@arguments(body=instance(Body, where="sculpt_body"), proxy="array", m="size", eps="tol", directions="optsize",
           bound="opttol", rng="rng")
def face_span(body: Body, proxy, m: int, *, eps: float = 0.2, directions: int | None = None,
              bound: float | None = None, rng=None) -> Span:
    """Phase 4: principal directions of the face of the body that is closest to the origin.

    Parameters
    ----------
    body : Body
    proxy : array_like of shape (d, d)
        The min-norm point P of the body.
    m : int
        Number of heads.
    eps : float, default 0.2
        The face is ``{Theta in K : <P, Theta> <= (1 + eps) ||P||^2}``.
    directions : int, optional
        Random directions (orthogonal to P) to maximise along; default ``32 m``.
    bound : float, optional
        Box on the entries (the face may be unbounded); default ``2 ||P||_F`` or the body's own.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    Span

    Notes
    -----
    By the min-norm lemma every head has ``<Theta*, Theta_i> = ||Theta*||^2``, and
    the idealised body ``conv{Theta_i} + cone{Theta_i}`` meets that hyperplane
    exactly in ``conv{Theta_i}``. So the thin face of K near its min-norm point
    spans the directions ``Theta_i - Theta*``. The finite body is larger, so the
    face is only an approximation; chapter 9 measures it.

    Examples
    --------
    >>> from attnlib.sculpt import face_span, min_norm_proxy, planted_instance, sculpt_body
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> body = sculpt_body(X, attention(X, heads), heads.W.sum(0))
    >>> face_span(body, min_norm_proxy(body), 2, rng=2).basis.shape
    (2, 4, 4)
    """
    d = body.d
    m = check_m(m, d)
    P = check_proxy(proxy, d)
    k = 32 * m if directions is None else directions
    norm = float(np.linalg.norm(P))
    box = bound if bound is not None else (body.bound if body.bound is not None else 2.0 * norm)
    boxed = body.with_bound(box)
    if m == 1:
        return Span(_basis(P, np.zeros((0, d * d))), np.zeros((0, d, d)), "face")
    Pu = P.ravel() / norm
    cap = (P[None] / norm, np.array([(1.0 + eps) * norm]))  # <P/|P|, Theta> <= (1 + eps) |P|
    points = []
    for _ in range(k):
        U = rng.standard_normal(d * d)
        U -= (U @ Pu) * Pu
        points.append(support(boxed, U.reshape(d, d), extra=cap, phase="phase 4")[1])
    points = np.array(points)
    flat = points.reshape(k, -1)
    dirs = _orthonormal_to(Pu, flat - flat.mean(axis=0), m - 1)
    return Span(_basis(P, dirs), points, "face")


@arguments(X="cube", Y="array", sum_W="array", proxy="array", m="size", quantile="fraction")
def spectral_span(X, Y, sum_W, proxy, m: int, *, quantile: float = 0.3) -> Span:
    """Phase 4, second method: directions of excess variance where the heads disagree.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    sum_W : array_like of shape (d, d)
        Refined estimate of ``sum_i W_i``.
    proxy : array_like of shape (d, d)
    m : int
    quantile : float, default 0.3
        Use the top ``quantile`` of rows by proxy margin.

    Returns
    -------
    Span

    Notes
    -----
    On rows where the proxy is confident, a head leaves the proxy's token only
    if ``<Theta_i - Theta*, Z_perp>`` is very negative for some competitor's gap
    feature Z. Weighting the orthogonal parts Z_perp by the squared distance of
    the label from the atom ``x_b^T S`` and subtracting their plain second
    moment leaves a matrix whose top eigenvectors lean towards the
    directions ``Theta_i - Theta*``.

    Examples
    --------
    >>> from attnlib.sculpt import min_norm_point, planted_instance, spectral_span
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> star = min_norm_point(heads.Theta)[0]
    >>> spectral_span(X, attention(X, heads), heads.W.sum(0), star, 2).basis.shape
    (2, 4, 4)
    """
    X, Y = check_data(X, Y)
    N, n, d = X.shape
    m = check_m(m, d)
    S = check_matrix("sum_W", sum_W, d)
    P = check_proxy(proxy, d)
    Pu = P.ravel() / np.linalg.norm(P)
    if m == 1:
        return Span(_basis(P, np.zeros((0, d * d))), np.zeros((0, d, d)), "spectral")
    b, margin = proxy_margins(X, P)
    finite = np.isfinite(margin)
    if finite.sum() < d * d:
        raise SculptError("phase 4", f"only {int(finite.sum())} rows have a competing token")
    rows = finite & (margin >= np.quantile(margin[finite], 1 - quantile))
    xb = gather_tokens(X, b)
    res2 = np.sum((Y - xb @ S) ** 2, axis=-1)  # (N, a)
    other = distinct_from(X, xb)  # (N, a, c)
    e, a, c = np.nonzero(rows[..., None] & other)
    Z = gap_features(X[e, a], xb[e, a], X[e, c]).reshape(len(e), d * d)
    Z -= np.outer(Z @ Pu, Pu)
    w = res2[e, a]
    if not w.sum() > 0:
        raise SculptError("phase 4", "every label in the slice equals its atom x_b^T S: the heads never disagree "
                                     "there, so no direction has excess variance")
    M = (Z * w[:, None]).T @ Z / w.sum() - Z.T @ Z / len(Z)
    vals, vecs = np.linalg.eigh(M)
    return Span(_basis(P, vecs[:, ::-1][:, : m - 1].T), np.zeros((0, d, d)), "spectral")


@arguments(proxy="array", m="size", rng="rng")
def random_span(proxy, m: int, *, rng=None) -> Span:
    """The baseline for phase 4: the proxy's direction plus m - 1 random directions.

    A ``proxy`` of zero has no direction and is refused.

    Examples
    --------
    >>> from attnlib.sculpt import random_span
    >>> random_span(np.eye(3), 2, rng=0).basis.shape
    (2, 3, 3)
    """
    P = check_proxy(proxy)
    d = P.shape[0]
    m = check_m(m, d)
    return Span(_basis(P, rng.standard_normal((m - 1, d * d))), np.zeros((0, d, d)), "random")


@dataclass(frozen=True, eq=False)
class SpanAlignment:
    """How well a span estimate captures planted heads (:func:`span_alignment`), one entry per head.

    Attributes
    ----------
    heads : ndarray of shape (m,)
        ``||proj Theta_i|| / ||Theta_i||``.
    offsets : ndarray of shape (m,)
        The same for ``Theta_i - Theta*`` with the proxy direction removed, the part
        phase 4 has to find (a random direction scores about ``sqrt((m - 1) / (d^2 - 1))``).
    """

    heads: np.ndarray
    offsets: np.ndarray

    @property
    def mean_offset(self) -> float:
        """The mean of ``offsets``: 1 when the offsets are captured exactly."""
        return float(np.mean(self.offsets))

    def __repr__(self) -> str:
        return f"SpanAlignment(heads={np.round(self.heads, 3).tolist()}, offsets={np.round(self.offsets, 3).tolist()})"


@arguments(span=instance(Span, where="face_span, spectral_span or random_span"), Theta="array")
def span_alignment(span: Span, Theta) -> SpanAlignment:
    """How well a span estimate captures the planted heads.

    Parameters
    ----------
    span : Span
    Theta : array_like of shape (m, d, d)
        The planted attention matrices.

    Returns
    -------
    SpanAlignment

    Examples
    --------
    >>> from attnlib.sculpt import planted_instance, random_span, span_alignment
    >>> from attnlib.sculpt.instances import min_norm_point
    >>> heads = planted_instance(2, 3, rng=0)
    >>> span = random_span(min_norm_point(heads.Theta)[0], 2, rng=1)
    >>> span_alignment(span, heads.Theta).offsets.shape
    (2,)
    """
    from .instances import min_norm_point

    d = span.basis.shape[1]
    if Theta.ndim != 3 or Theta.shape[1:] != (d, d):
        raise ValueError(f"Theta must have shape (m, {d}, {d}) like the span; received shape {Theta.shape}")
    norms = np.linalg.norm(Theta, axis=(1, 2))
    if not np.all(norms > 0):
        raise ValueError(f"Theta must hold nonzero attention matrices; Theta[{int(np.argmin(norms))}] is zero")
    star, _ = min_norm_point(Theta)
    heads = [float(np.linalg.norm(span.project(T)) / np.linalg.norm(T)) for T in Theta]
    P = span.basis[0]
    offsets = []
    for T in Theta:
        D = T - star
        D = D - np.sum(D * P) * P
        nd = np.linalg.norm(D)
        offsets.append(float(np.linalg.norm(span.project(D)) / nd) if nd > 0 else 1.0)
    return SpanAlignment(np.array(heads), np.array(offsets))


@arguments(X="cube", Y="array", sculpted=instance(Sculpted, where="sculpt_rounds or carve"), m="size",
           method=choice(*SPAN_METHODS), rng="rng")
def find_span(X, Y, sculpted: Sculpted, m: int, *, method: str = "face", rng=None) -> Span:
    """Phase 4 by any of its methods, from what phases 2-3 carved: :func:`face_span`, :func:`spectral_span` or
    :func:`random_span`.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
        The examples (read by the spectral method only).
    sculpted : Sculpted
        Phases 2-3: the body, its proxy and the refined ``sum_i W_i``.
    m : int
    method : {"face", "spectral", "random"}, default "face"
    rng : int, numpy.random.Generator or None
        The random directions of the face and random methods.

    Returns
    -------
    Span

    Examples
    --------
    >>> from attnlib.sculpt import carve, find_span, planted_instance
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> Y = attention(X, teacher)
    >>> find_span(X, Y, carve(X, Y).sculpted, 2, method="spectral", rng=2)
    Span(m=2, d=4, method='spectral')
    """
    return _SPANS[method](X, Y, sculpted, m, rng)


#: phase 4's methods, each called with (X, Y, sculpted, m, rng)
_SPANS = {
    "face": lambda X, Y, s, m, rng: face_span(s.body, s.proxy, m, rng=rng),
    "spectral": lambda X, Y, s, m, rng: spectral_span(X, Y, s.sum_W, s.proxy, m),
    "random": lambda X, Y, s, m, rng: random_span(s.proxy, m, rng=rng),
}
