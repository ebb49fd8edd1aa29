"""The plane of two heads (attnlib.sculpt.geometry), against small cases computed by hand.

The hand case: d = 2, Theta_1 = diag(2, 0), Theta_2 = diag(0, 2). The min-norm point of the
segment is Theta_star = I, so the plane's basis is I / sqrt(2) (along Theta_star) and
diag(1, -1) / sqrt(2), and the heads sit at (sqrt 2, sqrt 2) and (sqrt 2, -sqrt 2), Theta_star at
(sqrt 2, 0). The body is the one halfspace <I, Theta> >= 1, i.e. s >= 1 / sqrt 2 in the plane;
its min-norm point is P = I / 2, at (1 / sqrt 2, 0); with eps = 0.2 the slab
<P, Theta> <= 1.2 ||P||^2 = 0.6 is s <= 0.6 sqrt 2.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnlib import Heads
from attnlib.sculpt import Body, Span
from attnlib.sculpt.geometry import FaceGeometry, clip_edges, face_geometry, head_plane, plane_coordinates

R2 = np.sqrt(2.0)
HEADS = Heads(np.stack([np.diag([2.0, 0.0]), np.diag([0.0, 2.0])]), np.ones((2, 2, 2)))
BODY = Body(np.eye(2)[None], gamma=1.0, bound=None, certified=1)
BASIS = np.stack([np.eye(2), np.diag([1.0, -1.0])]) / R2
SPAN = Span(BASIS, HEADS.Theta.copy(), "by hand")  # the span of the plane; its points are the two heads


def _same_vertices(poly, expected):
    """The same vertices, in any order."""
    assert len(poly) == len(expected)
    np.testing.assert_allclose(np.array(sorted(map(tuple, poly))), np.array(sorted(map(tuple, expected))),
                               atol=1e-12)


def _rectangle(s_lo, s_hi, t_lo, t_hi):
    return np.array([[s_lo, t_lo], [s_hi, t_lo], [s_hi, t_hi], [s_lo, t_hi]])


def test_head_plane_is_the_hand_basis():
    np.testing.assert_allclose(head_plane(HEADS), BASIS, atol=1e-12)


def test_plane_coordinates_of_the_heads_and_of_a_matrix_off_the_plane():
    q, off = plane_coordinates(HEADS.Theta[0], BASIS)
    np.testing.assert_allclose(q, [R2, R2], atol=1e-12)
    assert off == pytest.approx(0.0, abs=1e-12)
    q, off = plane_coordinates(np.array([[0.0, 3.0], [0.0, 0.0]]), BASIS)  # orthogonal to both diagonals
    np.testing.assert_allclose(q, [0.0, 0.0], atol=1e-12)
    assert off == pytest.approx(3.0)


def test_clip_edges_finds_the_edges_on_the_frame():
    square = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    assert clip_edges(square, 1.0).all()
    wedge = np.array([[0.5, 0.0], [1.0, -0.8], [1.0, 0.8]])
    np.testing.assert_array_equal(clip_edges(wedge, 1.0), [False, True, False])


def test_face_geometry_of_the_body_is_the_hand_case():
    geo = face_geometry(HEADS, BODY, SPAN, proxy=np.eye(2) / 2, eps=0.2)
    assert isinstance(geo, FaceGeometry)
    np.testing.assert_allclose(geo.heads, [[R2, R2], [R2, -R2]], atol=1e-12)
    np.testing.assert_allclose(geo.star, [R2, 0.0], atol=1e-12)
    np.testing.assert_allclose(geo.proxy, [1 / R2, 0.0], atol=1e-12)
    np.testing.assert_allclose(geo.slab, (1 / R2, 0.0, 0.6), atol=1e-12)
    # view: s from -0.13 sqrt 2 to 1.3 sqrt 2; t within 1.25 sqrt 2 (1.25 times the heads' reach, > 0.715 sqrt 2)
    np.testing.assert_allclose(geo.view, (-0.13 * R2, 1.3 * R2, -1.25 * R2, 1.25 * R2), atol=1e-12)
    _same_vertices(geo.slice, _rectangle(1 / R2, 1.3 * R2, -1.25 * R2, 1.25 * R2))
    _same_vertices(geo.cap, _rectangle(1 / R2, 0.6 * R2, -1.25 * R2, 1.25 * R2))
    np.testing.assert_allclose(geo.points, geo.heads, atol=1e-12)
    assert geo.face is None
    assert geo.offsets == pytest.approx(1.0)  # the span holds the whole plane, so every offset


def test_face_geometry_with_kappa_draws_the_idealised_face():
    geo = face_geometry(HEADS, BODY, SPAN, proxy=np.eye(2) / 2, kappa=0.5)
    np.testing.assert_allclose(geo.face, [[R2 / 2, R2 / 2], [R2 / 2, -R2 / 2]], atol=1e-12)
    # the idealised body kappa (conv + cone), clipped to the view: the face, then the two rays to the view's edge
    _same_vertices(geo.slice, [[R2 / 2, R2 / 2], [R2 / 2, -R2 / 2], [1.25 * R2, -1.25 * R2], [1.25 * R2, 1.25 * R2],
                               [1.3 * R2, 1.25 * R2], [1.3 * R2, -1.25 * R2]])
    ring = [geo.slice, np.roll(geo.slice, -1, 0), np.roll(geo.slice, -2, 0)]
    turns = [(b - a)[0] * (c - b)[1] - (b - a)[1] * (c - b)[0] for a, b, c in zip(*ring, strict=True)]
    assert all(t > 0 for t in turns)  # counter-clockwise, as body_slice returns its polygons


def test_face_geometry_computes_the_proxy_when_none_is_given():
    given = face_geometry(HEADS, BODY, SPAN, proxy=np.eye(2) / 2)
    computed = face_geometry(HEADS, BODY, SPAN)
    np.testing.assert_allclose(computed.proxy, given.proxy, atol=1e-6)


def test_relations_between_arguments_are_named():
    with pytest.raises(ValueError, match="m >= 2 heads"):
        face_geometry(Heads(np.eye(2), np.eye(2)), BODY, SPAN)
    with pytest.raises(ValueError, match=r"proxy must be a \(2, 2\) matrix; received shape \(3, 3\)"):
        face_geometry(HEADS, BODY, SPAN, proxy=np.eye(3))
    with pytest.raises(ValueError, match="heads must have m >= 2 heads"):
        head_plane(Heads(np.eye(2), np.eye(2)))
    with pytest.raises(ValueError, match=r"poly must be .* shape \(V, 2\); received shape \(3,\)"):
        clip_edges(np.zeros(3), 1.0)
    with pytest.raises(ValueError, match=r"received shapes \(3, 3\) and \(2, 4, 4\)"):
        plane_coordinates(np.eye(3), np.zeros((2, 4, 4)))

