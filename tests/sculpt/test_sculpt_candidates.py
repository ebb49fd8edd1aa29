"""Tests for attnlib.sculpt.candidates: least squares for the W_i, nets and scale search."""

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs, random_heads
from attnlib.sculpt import Span, best_scale, certify_candidates, fit_W, net_candidates


def naive_design(X, Theta):
    """[A_1 X | ... | A_m X] row by row with explicit softmax, written in the test."""
    N, n, d = X.shape
    rows = []
    for e in range(N):
        for a in range(n):
            blocks = []
            for T in Theta:
                logits = np.array([X[e, a] @ T @ X[e, b] for b in range(n)])
                w = np.exp(logits - logits.max())
                w /= w.sum()
                blocks.append(w @ X[e])
            rows.append(np.concatenate(blocks))
    return np.array(rows)


def test_fit_W_matches_naive_least_squares():
    rng = np.random.default_rng(0)
    heads = random_heads(2, 3, scale=2.0, rng=rng)
    X = boolean_inputs(30, 3, 3, rng=rng)
    Y = rng.normal(size=(30, 3, 3))  # not realisable: a genuine least-squares problem
    W, res = fit_W(X, Y, heads.Theta)
    D = naive_design(X, heads.Theta)
    W_naive = np.linalg.lstsq(D, Y.reshape(-1, 3), rcond=None)[0]
    np.testing.assert_allclose(W.reshape(6, 3), W_naive, atol=1e-10)
    expected = np.linalg.norm(D @ W_naive - Y.reshape(-1, 3)) / np.linalg.norm(Y)
    assert res == pytest.approx(expected, rel=1e-10)


def test_fit_W_recovers_planted_projections_exactly():
    rng = np.random.default_rng(1)
    heads = random_heads(3, 4, scale=3.0, rng=rng)
    X = boolean_inputs(200, 3, 4, rng=rng)
    W, res = fit_W(X, attention(X, heads), heads.Theta)
    np.testing.assert_allclose(W, heads.W, atol=1e-9)
    assert res < 1e-10


def test_best_scale_finds_the_missing_factor():
    rng = np.random.default_rng(2)
    heads = random_heads(2, 4, scale=4.0, rng=rng)
    X = boolean_inputs(500, 3, 4, rng=rng)
    found, res, c = best_scale(X, attention(X, heads), heads.Theta / 2.5)
    assert c == pytest.approx(2.5, rel=1e-3) and res < 1e-4


def test_net_size_and_ordering():
    basis = np.eye(9)[:2].reshape(2, 3, 3)
    span = Span(basis, np.zeros((0, 3, 3)), "test")
    net = net_candidates(span, 2, steps=5)
    assert net.shape == (10, 2, 3, 3)  # 5 * 4 / 2 unordered pairs
    np.testing.assert_allclose(net[:, :, 0, 0], 1.0)  # all heads share the proxy component
    span3 = Span(np.eye(9)[:3].reshape(3, 3, 3), np.zeros((0, 3, 3)), "test")
    assert net_candidates(span3, 3, steps=5, budget=50, rng=0).shape == (50, 3, 3, 3)
    with pytest.raises(ValueError, match="m must be at most the span's dimension 2"):
        net_candidates(span, 3, steps=5, budget=50, rng=0)  # was a silent net in too few directions


def test_certify_candidates_picks_the_true_tuple():
    rng = np.random.default_rng(3)
    heads = random_heads(2, 3, scale=3.0, rng=rng)
    X = boolean_inputs(300, 3, 3, rng=rng)
    wrong = random_heads(2, 3, scale=3.0, rng=rng).Theta
    cands = np.stack([wrong, heads.Theta, -heads.Theta])
    found, res, scored = certify_candidates(X, attention(X, heads), cands, scales=[1.0])
    assert res < 1e-8 and scored == 3
    assert isinstance(found, Heads)


def test_errors():
    X = boolean_inputs(10, 3, 4, rng=0)
    with pytest.raises(ValueError, match=r"shape \(m, 4, 4\)"):
        fit_W(X, X, np.ones((2, 3, 3)))


def test_refine_in_span_recovers_heads_inside_the_true_span():
    from attnlib.sculpt import refine_in_span

    rng = np.random.default_rng(4)
    heads = random_heads(2, 3, scale=3.0, rng=rng)
    X = boolean_inputs(400, 3, 3, rng=rng)
    Q, _ = np.linalg.qr(heads.Theta.reshape(2, -1).T)
    span = Span(Q.T.reshape(2, 3, 3), np.zeros((0, 3, 3)), "true")
    start = Heads(heads.Theta * 1.1 + 0.1 * np.roll(heads.Theta, 1, axis=0), heads.W)
    found, res = refine_in_span(X, attention(X, heads), start, span)
    assert res < 1e-6


def test_design_matrix_matches_a_naive_loop_and_loses_rank_as_prop_09_linear_says():
    from attnlib import softmax
    from attnlib.sculpt import design_matrix

    rng = np.random.default_rng(11)
    heads = random_heads(2, 3, scale=2.0, rng=rng)
    X = boolean_inputs(30, 4, 3, rng=rng)
    D = design_matrix(X, heads.Theta)
    for k in range(30):
        for a in range(4):
            row = []
            for T in heads.Theta:
                weights = softmax(np.array([X[k, a] @ T @ X[k, b] for b in range(4)]))
                row.extend(weights @ X[k])
            np.testing.assert_allclose(D[k * 4 + a], row, atol=1e-12)
    assert np.linalg.matrix_rank(D) == 6
    twin = design_matrix(X, np.stack([heads.Theta[0], heads.Theta[0]]))
    assert np.linalg.matrix_rank(twin) == 3  # a combination with v_2 = -v_1 vanishes on every example
    with pytest.raises(ValueError, match="Theta must have shape"):
        design_matrix(X, np.ones((2, 4, 4)))
    with pytest.raises(ValueError, match="X must be a batch"):
        design_matrix(X[0], heads.Theta)
