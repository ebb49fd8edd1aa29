"""Tests for attnlib.sculpt.hypercube: the facts chapter 7 states, against enumeration and closed forms."""

import itertools
import math

import numpy as np
import pytest

from attnlib import Heads, attention, attention_weights, boolean_inputs, random_heads
from attnlib.sculpt import (
    all_tokens,
    constant_sequences,
    fourth_moment,
    gap_feature,
    gap_feature_rank,
    logit_gaps,
)

# --- shape -------------------------------------------------------------------


def test_all_tokens_is_the_whole_cube():
    T = all_tokens(4)
    assert T.shape == (16, 4)
    assert len({tuple(t) for t in T}) == 16
    assert set(np.unique(T)) == {-1.0, 1.0}


def test_shapes():
    X = boolean_inputs(3, 4, 5, rng=0)
    assert logit_gaps(X, np.eye(5)).shape == (3, 4, 4, 4)
    assert logit_gaps(X[0], np.eye(5)).shape == (4, 4, 4)
    assert gap_feature(X[:, 0], X[:, 1], X[:, 2]).shape == (3, 5, 5)
    assert constant_sequences(X).shape == (3,)


# --- oracle ------------------------------------------------------------------


def test_logit_gaps_equal_log_ratios_of_softmax_weights():
    rng = np.random.default_rng(1)
    head = random_heads(1, 4, scale=3.0, rng=rng)
    X = boolean_inputs(5, 3, 4, rng=rng)
    G = logit_gaps(X, head.Theta[0])
    A = attention_weights(X, head)[:, 0]  # (N, n, n)
    for e, a, b, c in itertools.product(range(5), range(3), range(3), range(3)):
        expected = math.log(A[e, a, b]) - math.log(A[e, a, c])
        assert abs(G[e, a, b, c] - expected) < 1e-10
        Z = gap_feature(X[e, a], X[e, b], X[e, c])
        assert abs(np.sum(head.Theta[0] * Z) - expected) < 1e-10


@pytest.mark.parametrize("d", [2, 3])
def test_gap_features_span_all_matrices(d):
    # identifiability of one head: no nonzero Delta is orthogonal to every x (y - z)^T
    assert gap_feature_rank(d) == d * d
    assert gap_feature_rank(5, samples=400, rng=0) == 25


def test_fourth_moment_matches_closed_form_and_differs_from_gaussian():
    rng = np.random.default_rng(2)
    for _ in range(5):
        u = rng.normal(size=5)
        closed = 3 * np.sum(u**2) ** 2 - 2 * np.sum(u**4)
        assert abs(fourth_moment(u) - closed) < 1e-9
    # rotation invariance fails: equal-norm directions give different moments
    assert fourth_moment([1.0, 0, 0, 0]) == pytest.approx(1.0)
    assert fourth_moment([0.5, 0.5, 0.5, 0.5]) == pytest.approx(2.5)


def test_constant_sequences_reveal_the_sum_of_projections():
    rng = np.random.default_rng(3)
    heads = random_heads(3, 4, scale=5.0, rng=rng)
    x = np.array([1.0, -1.0, -1.0, 1.0])
    X = np.tile(x, (1, 4, 1))
    assert constant_sequences(X).tolist() == [True]
    F = attention(X, heads)[0]
    np.testing.assert_allclose(F, np.tile(x @ heads.W.sum(0), (4, 1)), atol=1e-12)
    # any Theta: the output does not change
    other = Heads(rng.normal(size=(3, 4, 4)) * 10, heads.W)
    np.testing.assert_allclose(attention(X, other), attention(X, heads), atol=1e-12)


# --- property ----------------------------------------------------------------


def test_diagonal_enters_self_logits_only_through_the_trace():
    rng = np.random.default_rng(4)
    T = all_tokens(4)
    D = np.diag(rng.normal(size=4))
    np.testing.assert_allclose(np.einsum("tp,pq,tq->t", T, D, T), np.trace(D))


# --- errors ------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match="at most 16"):
        all_tokens(17)
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        constant_sequences(np.full((2, 3, 4), 0.5))
    with pytest.raises(ValueError, match="shape \\(d,\\)"):
        fourth_moment(np.ones((2, 2)))
    with pytest.raises(ValueError, match="square matrix"):
        logit_gaps(boolean_inputs(2, 3, 4, rng=0), np.eye(3))
    with pytest.raises(ValueError, match="too many"):
        gap_feature_rank(7)
