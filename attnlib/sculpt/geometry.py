"""The plane of two heads: where the book's pictures of the body are drawn (chapters 8 and 9).

The slices of :func:`attnlib.viz.sculpt.plot_body_slices` and the face of
:func:`attnlib.viz.diagrams.plot_face` live in one plane of the (d, d) matrices: the plane
through 0, ``Theta_1`` and ``Theta_2``, with coordinates ``(s, t)`` along ``Theta_star``, the
min-norm point of the two heads, and along the part of ``Theta_1 - Theta_star`` orthogonal to
it. This module computes that plane and what a picture needs from it; it draws nothing.

* :func:`head_plane` -- an orthonormal basis of the plane
* :func:`plane_coordinates` -- a matrix's coordinates in a plane and its distance from it
* :func:`clip_edges` -- which edges of a clipped slice are the clip, not faces of the body
* :func:`face_geometry` -- everything :func:`attnlib.viz.diagrams.plot_face` draws for one body,
  as a :class:`FaceGeometry`
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance
from ..heads import Heads
from .body import Body, body_slice, clip_polygon
from .instances import min_norm_point
from .proxy import min_norm_proxy
from .span import Span, span_alignment

__all__ = ["FaceGeometry", "clip_edges", "face_geometry", "head_plane", "plane_coordinates"]


@arguments(heads="heads")
def head_plane(heads: Heads) -> np.ndarray:
    """Orthonormal basis (2, d, d) of the plane of Theta_1 and Theta_2; the first along Theta_star.

    Examples
    --------
    >>> B = head_plane(Heads(np.stack([np.diag([2.0, 0.0]), np.diag([0.0, 2.0])]), np.ones((2, 2, 2))))
    >>> np.round(B * np.sqrt(2), 6)  # along Theta_star = I, then along Theta_1 - Theta_star
    array([[[ 1.,  0.],
            [ 0.,  1.]],
    <BLANKLINE>
           [[ 1.,  0.],
            [ 0., -1.]]])
    """
    if heads.m < 2:
        raise ValueError(f"heads must have m >= 2 heads to span a plane; received m = {heads.m}")
    star, _ = min_norm_point(heads.Theta[:2])
    other = heads.Theta[0] - star
    B1 = star / np.linalg.norm(star)
    B2 = other - np.sum(other * B1) * B1
    return np.stack([B1, B2 / np.linalg.norm(B2)])


@arguments(poly="array", half="tol", tol="tol")
def clip_edges(poly: np.ndarray, half: float, tol: float = 1e-9) -> np.ndarray:
    """For each edge ``poly[k] -> poly[k + 1]`` of a slice clipped to ``|s|, |t| <= half``: True if it is the clip.

    An edge on the square's boundary is where the drawing stops, not a face of the body.

    Examples
    --------
    >>> clip_edges([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]], 1.0)  # the edge x = 1 lies on the square's side
    array([False,  True, False])
    """
    if poly.ndim != 2 or poly.shape[1] != 2:
        raise ValueError(f"poly must be the vertices of a polygon, shape (V, 2); received shape {poly.shape}")
    ends = np.roll(poly, -1, axis=0)
    on = [(np.abs(poly[:, i] - side * half) <= tol * half) & (np.abs(ends[:, i] - side * half) <= tol * half)
          for i in (0, 1) for side in (-1, 1)]
    return np.any(on, axis=0)


@arguments(M="array", basis="array")
def plane_coordinates(M, basis: np.ndarray) -> tuple[np.ndarray, float]:
    """The coordinates of a (d, d) matrix in the plane of ``basis`` and its distance from that plane.

    ``basis`` is orthonormal, of shape (2, d, d), as :func:`attnlib.sculpt.body_slice` takes it.

    Examples
    --------
    >>> q, off = plane_coordinates(np.diag([3.0, 4.0]), np.stack([np.diag([1.0, 0.0]), np.diag([0.0, 1.0])]))
    >>> q, off
    (array([3., 4.]), 0.0)
    """
    if basis.ndim != 3 or basis.shape[0] != 2 or M.shape != basis.shape[1:]:
        raise ValueError(f"M must be (d, d) and basis (2, d, d) of the same d; received shapes {M.shape} and "
                         f"{basis.shape}")
    q = np.einsum("pq,jpq->j", M, basis)
    return q, float(np.linalg.norm(M - np.einsum("j,jpq->pq", q, basis)))


@dataclass(frozen=True)
class FaceGeometry:
    """One body in the plane of ``Theta_1`` and ``Theta_2``: what :func:`attnlib.viz.diagrams.plot_face` draws.

    Every point is in the coordinates ``(s, t)`` of :func:`head_plane`.

    Attributes
    ----------
    heads : ndarray of shape (2, 2)
        ``Theta_1`` and ``Theta_2``.
    star : ndarray of shape (2,)
        ``Theta_star``, the min-norm point of the two heads (on the ``s`` axis).
    proxy : ndarray of shape (2,)
        The body's min-norm point ``P``, projected on the plane.
    slab : tuple of three floats ``(u, v, c)``
        The slab ``<P, Theta> <= (1 + eps) ||P||^2`` of :func:`attnlib.sculpt.face_span`, which is
        ``u s + v t <= c`` in the plane.
    slice : ndarray of shape (V, 2)
        The slice of the body (or of the idealised body, with ``kappa``) inside ``view``,
        counter-clockwise; empty if the slice misses the view.
    cap : ndarray of shape (V', 2)
        The part of ``slice`` inside the slab.
    points : ndarray of shape (k, 2)
        The span's ``points`` (the LP's extreme points), projected on the plane.
    face : ndarray of shape (2, 2) or None
        With ``kappa``: the idealised body's face ``kappa [Theta_1, Theta_2]``; else None.
    view : tuple of four floats ``(s_lo, s_hi, t_lo, t_hi)``
        The rectangle the slice is clipped to.
    offsets : float
        The span's mean alignment with the offsets ``Theta_i - Theta_star``
        (:func:`attnlib.sculpt.span_alignment`).
    """

    heads: np.ndarray
    star: np.ndarray
    proxy: np.ndarray
    slab: tuple
    slice: np.ndarray
    cap: np.ndarray
    points: np.ndarray
    face: np.ndarray | None
    view: tuple
    offsets: float


def _clip_to(poly: np.ndarray, s_lo, s_hi, t_lo, t_hi) -> np.ndarray:
    """Clip a polygon (V, 2) to the rectangle [s_lo, s_hi] x [t_lo, t_hi]."""
    for u, v, c in ((1, 0, s_lo), (-1, 0, -s_hi), (0, 1, t_lo), (0, -1, -t_hi)):
        poly = clip_polygon(poly, u, v, c)
    return poly


@arguments(heads="heads", body=instance(Body, where="sculpt_body"),
           span=instance(Span, where="face_span, spectral_span, random_span or find_span"), proxy="optarray",
           eps="tol", kappa="opttol")
def face_geometry(heads: Heads, body: Body, span: Span, *, proxy=None, eps: float = 0.2,
                  kappa: float | None = None) -> FaceGeometry:
    """What :func:`attnlib.viz.diagrams.plot_face` draws for one body, in the plane of ``Theta_1`` and ``Theta_2``.

    Coordinates ``(s, t)`` are along ``Theta_star / ||Theta_star||`` and along the part of
    ``Theta_1 - Theta_star`` orthogonal to it, where ``Theta_star`` is the min-norm point of the
    first two heads (the plane of :func:`head_plane`).

    Parameters
    ----------
    heads : Heads
        The planted layer (m >= 2).
    body : Body
    span : Span
        ``face_span(body, proxy, m, eps=eps)``: its ``points`` are the LP's extreme points.
    proxy : array_like of shape (d, d), optional
        The min-norm point P of ``body`` (default: computed, one QP).
    eps : float, default 0.2
        The slab of :func:`attnlib.sculpt.face_span`: ``<P, Theta> <= (1 + eps) ||P||^2``.
    kappa : float, optional
        If given, the idealised body ``kappa (conv + cone)`` of the two heads replaces the body's
        own slice (``slice``) and its face ``kappa [Theta_1, Theta_2]`` is returned as ``face``.

    Returns
    -------
    FaceGeometry

    Raises
    ------
    ValueError
        Fewer than two heads, heads of another dimension than the body's, or a proxy of the
        wrong shape.

    Examples
    --------
    >>> from attnlib.sculpt import face_span, planted_instance, sculpt_body
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(2000, 3, 4, rng=1)
    >>> body = sculpt_body(X, attention(X, heads), heads.W.sum(0))
    >>> geo = face_geometry(heads, body, face_span(body, min_norm_proxy(body), 2, rng=2))
    >>> geo.heads.shape, geo.points.shape
    ((2, 2), (64, 2))
    """
    if heads.m < 2 or heads.d != body.d:
        raise ValueError(f"face_geometry needs a layer with m >= 2 heads of dimension d = {body.d}; "
                         f"received m = {heads.m}, d = {heads.d}")
    P = min_norm_proxy(body) if proxy is None else proxy
    if P.shape != (body.d, body.d):
        raise ValueError(f"proxy must be a ({body.d}, {body.d}) matrix; received shape {P.shape}")
    basis = head_plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], basis)
    star = np.einsum("pq,jpq->j", min_norm_point(heads.Theta[:2])[0], basis)
    p = np.einsum("pq,jpq->j", P, basis)
    slab = (float(p[0]), float(p[1]), float((1 + eps) * np.sum(P * P)))
    s_hi = 1.3 * float(pts[:, 0].max())
    s_lo = -0.1 * s_hi
    t_hi = max(0.5 * (s_hi - s_lo), 1.25 * float(np.abs(pts[:, 1]).max()))
    view = (s_lo, s_hi, -t_hi, t_hi)
    far = 10.0 * (s_hi - s_lo)
    if kappa is not None:
        a, b = kappa * pts[0], kappa * pts[1]
        ideal = np.array([a, a + far * pts[0] / np.linalg.norm(pts[0]), b + far * pts[1] / np.linalg.norm(pts[1]),
                          b])
        turn = (ideal[1] - ideal[0]) @ np.array([[0.0, -1.0], [1.0, 0.0]]) @ (ideal[2] - ideal[1])
        if turn > 0:  # counter-clockwise, as body_slice returns its polygons
            ideal = ideal[::-1]
        poly, face = _clip_to(ideal, *view), np.array([a, b])
    else:
        poly = _clip_to(body_slice(body, np.zeros((body.d, body.d)), basis, box=far), *view)
        face = None
    cap = clip_polygon(poly, -slab[0], -slab[1], -slab[2]) if len(poly) else poly
    points = np.einsum("kpq,jpq->kj", span.points, basis) if len(span.points) else np.zeros((0, 2))
    offsets = span_alignment(span, heads.Theta).mean_offset
    return FaceGeometry(heads=pts, star=star, proxy=p, slab=slab, slice=poly, cap=cap, points=points, face=face,
                        view=view, offsets=offsets)
