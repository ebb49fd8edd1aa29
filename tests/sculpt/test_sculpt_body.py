"""Tests for attnlib.sculpt.body: certification, halfspaces, LPs over the body, and their failures."""

import numpy as np
import pytest
from scipy.optimize import linprog

from attnlib import attention, boolean_inputs
from attnlib.sculpt import (
    Body,
    SculptError,
    body_slice,
    certify,
    feasible_point,
    halfspaces,
    planted_instance,
    prune,
    sculpt_body,
    support,
)
from attnlib.sculpt import body as body_module


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    heads = planted_instance(2, 4, scale=5.0, shared=0.8, rng=rng)
    X = boolean_inputs(2000, 3, 4, rng=rng)
    return heads, X, attention(X, heads)


# --- shape -------------------------------------------------------------------


def test_body_shapes(data):
    heads, X, Y = data
    body = sculpt_body(X, Y, heads.W.sum(0))
    assert body.Z.ndim == 3 and body.Z.shape[1:] == (4, 4)
    assert body.slack(heads.Theta).shape == (2, body.n_constraints)
    assert body.contains(heads.Theta).shape == (2,)
    assert "halfspaces=" in repr(body)


# --- oracle ------------------------------------------------------------------


def test_certified_rows_are_within_tolerance_of_their_atom(data):
    heads, X, Y = data
    S = heads.W.sum(0)
    cert = certify(X, Y, S, delta=0.05)
    assert len(cert) > 50
    for e, a, b, r in zip(cert.example, cert.query, cert.token, cert.residual, strict=True):
        atom = X[e, b] @ S
        assert abs(np.linalg.norm(Y[e, a] - atom) - r) < 1e-12
        assert r <= cert.delta
        # no token with a different value fits within twice the tolerance
        for c in range(3):
            if np.any(X[e, c] != X[e, b]):
                assert np.linalg.norm(Y[e, a] - X[e, c] @ S) > 2 * cert.delta


def test_halfspaces_are_the_gap_features_of_certified_rows(data):
    heads, X, Y = data
    cert = certify(X, Y, heads.W.sum(0))
    Z = halfspaces(X, cert)
    expected = set()
    for e, a, b in zip(cert.example, cert.query, cert.token, strict=True):
        for c in range(3):
            if np.any(X[e, c] != X[e, b]):
                expected.add(tuple(np.outer(X[e, a], X[e, b] - X[e, c]).ravel()))
    assert {tuple(z.ravel()) for z in Z} == expected


def test_support_matches_closed_form_on_a_box():
    # halfspaces Theta[p, q] >= gamma for every entry, box |Theta[p, q]| <= B
    d, gamma, B = 2, 0.5, 3.0
    Z = np.array([np.outer(np.eye(d)[p], np.eye(d)[q]) for p in range(d) for q in range(d)])
    body = Body(Z, gamma, B, certified=4)
    U = np.array([[1.0, -2.0], [0.5, -0.1]])
    value, Theta = support(body, U)
    expected = sum(u * (B if u > 0 else gamma) for u in U.ravel())
    assert value == pytest.approx(expected)
    assert body.contains(Theta)


def test_cutting_planes_agree_with_one_big_lp(monkeypatch):
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(400, 3, 3))
    Z = Z[np.einsum("kpq,pq->k", Z, np.eye(3)) > 0.5]  # the identity is feasible with gap 0.5
    body = Body(Z, 0.5, 4.0, certified=len(Z))
    U = rng.normal(size=(3, 3))
    direct = linprog(-U.ravel(), A_ub=-Z.reshape(len(Z), -1), b_ub=-0.5 * np.ones(len(Z)),
                     bounds=[(-4.0, 4.0)] * 9, method="highs")
    monkeypatch.setattr(body_module, "_CUTTING_PLANE_ABOVE", 10)
    value, _ = support(body, U)
    assert value == pytest.approx(-direct.fun, rel=1e-7)


def test_body_slice_of_a_square():
    # Theta = s B1 + t B2 with halfspaces s >= 1, t >= 1 and box 3: square [1, 3]^2, area 4
    B1, B2 = np.diag([1.0, 0.0]), np.diag([0.0, 1.0])
    Z = np.stack([B1, B2])
    poly = body_slice(Body(Z, 1.0, None, 2), np.zeros((2, 2)), np.stack([B1, B2]), box=3.0)
    x, y = poly[:, 0], poly[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
    assert area == pytest.approx(4.0)


# --- property ----------------------------------------------------------------


def test_planted_heads_lie_in_the_body_sculpted_with_the_true_sum(data):
    heads, X, Y = data
    body = sculpt_body(X, Y, heads.W.sum(0), delta=0.02)
    # the true heads' logit gaps on certified rows are large: at gap 1 no halfspace is violated
    assert body.contains(heads.Theta).all()


def test_prune_removes_only_contradictions():
    Z = np.stack([np.eye(2), np.diag([1.0, 2.0]), -np.eye(2)])
    pruned, dropped = prune(Body(Z, 1.0, None, 3))
    assert dropped == 1 and pruned.n_constraints == 2
    feasible_point(pruned)
    same, none = prune(pruned)
    assert none == 0 and same.n_constraints == 2


# --- errors ------------------------------------------------------------------


def test_unbounded_lp_is_reported_with_phase_and_count():
    body = Body(np.eye(2)[None], 1.0, None, certified=1)
    with pytest.raises(SculptError, match=r"phase 2: .*unbounded.*1 halfspace constraints") as info:
        support(body, np.eye(2))
    assert info.value.phase == "phase 2" and info.value.n_constraints == 1


def test_infeasible_lp_is_reported_with_phase_and_count():
    body = Body(np.stack([np.eye(2), -np.eye(2)]), 1.0, 5.0, certified=2)
    with pytest.raises(SculptError, match=r"phase 4: .*infeasible.*2 halfspace constraints"):
        support(body, np.eye(2), phase="phase 4")
    with pytest.raises(SculptError, match="infeasible"):
        feasible_point(body)


def test_bad_inputs(data):
    heads, X, Y = data
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        certify(X * 0.5, Y, heads.W.sum(0))
    with pytest.raises(ValueError, match="every position"):
        certify(X, Y[:, -1], heads.W.sum(0))
    with pytest.raises(ValueError, match=r"shape \(4, 4\)"):
        sculpt_body(X, Y, np.eye(3))
    with pytest.raises(ValueError, match="positive"):
        sculpt_body(X, Y, heads.W.sum(0), gamma=0.0)
    with pytest.raises(ValueError, match="basis"):
        body_slice(Body(np.eye(2)[None], 1.0, None, 1), np.zeros((2, 2)), np.zeros((3, 2, 2)))


def _area(P):
    s, t = P[:, 0], P[:, 1]
    return 0.5 * abs(np.dot(s, np.roll(t, -1)) - np.dot(t, np.roll(s, -1)))


def test_clip_polygon_against_grid_counting():
    """The clipped square's area against a count of grid points in both the square and the half-plane."""
    from attnlib.sculpt import clip_polygon

    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    grid = (np.arange(400) + 0.5) / 400
    S, T = np.meshgrid(grid, grid)
    for u, v, c in [(1.0, 0.0, 0.5), (1.0, 1.0, 1.0), (-1.0, 2.0, 0.3), (0.3, -0.7, -0.2)]:
        clipped = clip_polygon(square, u, v, c)
        inside = np.mean(u * S + v * T >= c)
        assert abs(_area(clipped) - inside) < 5e-3, (u, v, c)
        assert np.all(clipped @ np.array([u, v]) >= c - 1e-12)
    assert clip_polygon(square, 1.0, 0.0, 2.0).shape == (0, 2)
    assert np.array_equal(clip_polygon(square, 1.0, 0.0, -1.0), square)
    assert clip_polygon(np.zeros((0, 2)), 1.0, 0.0, 0.0).shape == (0, 2)
    with pytest.raises(ValueError, match="polygon"):
        clip_polygon(np.zeros((3, 3)), 1.0, 0.0, 0.0)
    with pytest.raises((ValueError, TypeError), match="u"):
        clip_polygon(square, float("nan"), 0.0, 0.0)
