"""Tests for attnlib.sculpt.sum_w and .proxy: the estimates of sum W_i, the min-norm proxy and the slices."""

import itertools

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs, random_heads
from attnlib.sculpt import (
    Body,
    SculptError,
    atom_residuals,
    atom_score,
    carve,
    constant_sum_W,
    crude_sum_W,
    estimate_sum_W,
    min_norm_point,
    min_norm_proxy,
    planted_instance,
    proxy_margins,
    refine_sum_W,
    slice_curve,
    trimmed_sum_W,
)
from attnlib.sculpt.diagnostics import cosine


def rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def brute_min_norm(Z, gamma):
    """Enumerate active sets: the min-norm point of {theta : Z theta >= gamma} for tiny problems."""
    K = len(Z)
    best = None
    for r in range(1, K + 1):
        for active in itertools.combinations(range(K), r):
            A = Z[list(active)]
            lam = np.linalg.lstsq(A @ A.T, gamma * np.ones(r), rcond=None)[0]
            theta = A.T @ lam
            if np.all(lam >= -1e-12) and np.all(Z @ theta >= gamma - 1e-9):
                if best is None or np.linalg.norm(theta) < np.linalg.norm(best) - 1e-12:
                    best = theta
    return best


# --- shape -------------------------------------------------------------------


def test_shapes():
    heads = planted_instance(2, 4, rng=0)
    X = boolean_inputs(300, 3, 4, rng=1)
    Y = attention(X, heads)
    assert crude_sum_W(X, Y).shape == (4, 4)
    b, r = atom_residuals(X, Y, heads.W.sum(0))
    assert b.shape == r.shape == (300, 3)
    b, margin = proxy_margins(X, heads.Theta[0])
    assert b.shape == margin.shape == (300, 3)


# --- oracle ------------------------------------------------------------------


def test_crude_estimate_is_unbiased_at_zero_attention():
    rng = np.random.default_rng(0)
    heads = Heads(np.zeros((2, 4, 4)), random_heads(2, 4, rng=rng).W)
    X = boolean_inputs(40000, 3, 4, rng=rng)
    assert rel(crude_sum_W(X, attention(X, heads)), heads.W.sum(0)) < 0.03


def test_constant_sequences_give_the_exact_sum():
    heads = planted_instance(2, 4, rng=2)
    X = boolean_inputs(4000, 3, 4, rng=3)
    assert rel(constant_sum_W(X, attention(X, heads)), heads.W.sum(0)) < 1e-12


def test_min_norm_proxy_matches_active_set_enumeration():
    rng = np.random.default_rng(4)
    for _ in range(5):
        Z = rng.normal(size=(5, 2, 2))
        Z = Z[np.einsum("kpq,pq->k", Z, np.eye(2)) > 0]  # feasible: a multiple of I
        if len(Z) == 0:
            continue
        body = Body(Z, 1.0, None, len(Z))
        expected = brute_min_norm(Z.reshape(len(Z), 4), 1.0)
        np.testing.assert_allclose(min_norm_proxy(body).ravel(), expected, atol=1e-8)


def test_proxy_margins_match_a_loop():
    X = boolean_inputs(20, 3, 4, rng=5)
    P = np.random.default_rng(6).normal(size=(4, 4))
    b, margin = proxy_margins(X, P)
    for e, a in itertools.product(range(20), range(3)):
        logits = [X[e, a] @ P @ X[e, c] for c in range(3)]
        assert b[e, a] == int(np.argmax(logits))
        gaps = [logits[b[e, a]] - logits[c] for c in range(3) if np.any(X[e, c] != X[e, b[e, a]])]
        assert margin[e, a] == pytest.approx(min(gaps) if gaps else np.inf, rel=1e-12)


# --- property ----------------------------------------------------------------


def test_trimmed_regression_recovers_the_sum_when_attention_is_sharp():
    heads = planted_instance(2, 8, scale=6.0, rng=0)
    X = boolean_inputs(4000, 4, 8, rng=1)
    Y = attention(X, heads)
    S0 = crude_sum_W(X, Y)
    S = trimmed_sum_W(X, Y, S0)
    assert rel(S0, heads.W.sum(0)) > 0.5 > 0.05 > rel(S, heads.W.sum(0))
    assert atom_score(X, Y, S) < atom_score(X, Y, S0)


def test_estimate_picks_the_best_candidate_by_atom_score():
    heads = planted_instance(2, 4, rng=7)
    X = boolean_inputs(4000, 3, 4, rng=8)
    Y = attention(X, heads)
    phase1 = estimate_sum_W(X, Y)
    scores = [phase1.scores.get(name) for name in ("crude", "trimmed", "constant")]
    assert phase1.scores.get(phase1.chosen) == min(v for v in scores if v is not None)
    assert phase1.estimate is phase1.candidates.get(phase1.chosen)
    assert rel(phase1.estimate, heads.W.sum(0)) < 1e-4


def test_refine_with_the_true_min_norm_point_is_accurate():
    heads = planted_instance(2, 6, scale=6.0, shared=0.8, rng=9)
    X = boolean_inputs(5000, 3, 6, rng=10)
    star, _ = min_norm_point(heads.Theta)
    fit = refine_sum_W(X, attention(X, heads), star)
    assert rel(fit.estimate, heads.W.sum(0)) < 0.01 and fit.rows >= 30


def test_slice_curve_crude_and_slices_work_in_opposite_regimes():
    errors = {}
    for scale in (2.0, 8.0):
        heads = planted_instance(2, 4, scale=scale, shared=0.8, check=False, rng=11)
        X = boolean_inputs(3000, 3, 4, rng=12)
        Y = attention(X, heads)
        star, _ = min_norm_point(heads.Theta)
        curve = slice_curve(X, Y, star, heads.W.sum(0), [0.02])
        errors[scale] = (rel(crude_sum_W(X, Y), heads.W.sum(0)), curve[0])
    assert errors[2.0][0] < errors[8.0][0]  # crude degrades with sharpness
    assert errors[8.0][1] < errors[2.0][1]  # slices improve with sharpness


@pytest.mark.slow
@pytest.mark.parametrize(("d", "n", "N", "scale", "shared"), [(4, 3, 3000, 6.0, 0.9), (6, 3, 5000, 4.0, 0.8)])
def test_phase_three_done_when_large_shared_component(d, n, N, scale, shared):
    """Refined sum W within 1% and proxy cosine >= 0.9, each in >= 18 of 20 seeds."""
    good_sum, good_cos = 0, 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        heads = planted_instance(2, d, scale=scale, shared=shared, rng=rng)
        X = boolean_inputs(N, n, d, rng=rng)
        out = carve(X, attention(X, heads)).sculpted
        good_sum += rel(out.slice.estimate, heads.W.sum(0)) <= 0.01
        good_cos += cosine(out.proxy, min_norm_point(heads.Theta)[0]) >= 0.9
    assert good_sum >= 18 and good_cos >= 18


# --- errors ------------------------------------------------------------------


def test_errors():
    heads = planted_instance(2, 4, rng=0)
    X = boolean_inputs(50, 3, 4, rng=1)
    Y = attention(X, heads)
    with pytest.raises(SculptError, match="phase 1: .*span"):
        constant_sum_W(X, Y)
    with pytest.raises(SculptError, match="phase 2: no row was certified"):
        min_norm_proxy(Body(np.zeros((0, 4, 4)), 1.0, None, 0))
    with pytest.raises(SculptError, match="phase 3: the body is empty.*2"):
        min_norm_proxy(Body(np.stack([np.eye(2), -np.eye(2)]), 1.0, None, 2))
    with pytest.raises(ValueError, match=r"keep must be a finite number in \(0, 1\]"):
        trimmed_sum_W(X, Y, np.eye(4), keep=2.0)
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        crude_sum_W(X + 0.1, Y)
