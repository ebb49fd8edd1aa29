"""Tests for attnlib.sculpt.single_head: exact recovery, and every checked condition."""

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs, random_heads
from attnlib.sculpt import SculptError, learn_single_head


def rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


# --- property: the done-when criterion ---------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_recovers_one_head_on_boolean_inputs_d6_n4_from_200_examples(seed):
    rng = np.random.default_rng(seed)
    head = random_heads(1, 6, scale=2.0, rng=rng)
    X = boolean_inputs(200, 4, 6, rng=rng)
    learned = learn_single_head(X, attention(X, head))
    assert learned.m == 1 and learned.d == 6
    assert rel(learned.W, head.W) <= 1e-8
    assert rel(learned.Theta, head.Theta) <= 1e-8


def test_recovers_from_gaussian_inputs_too():
    rng = np.random.default_rng(7)
    head = random_heads(1, 5, scale=1.5, rng=rng)
    X = rng.normal(size=(40, 3, 5))
    learned = learn_single_head(X, attention(X, head))
    assert rel(learned.Theta, head.Theta) < 1e-8 and rel(learned.W, head.W) < 1e-8


# --- errors ------------------------------------------------------------------


def test_more_tokens_than_dimensions_is_rejected():
    X = boolean_inputs(10, 5, 4, rng=0)
    with pytest.raises(ValueError, match="n <= d"):
        learn_single_head(X, attention(X, random_heads(1, 4, rng=1)))


def test_singular_W_is_reported():
    rng = np.random.default_rng(2)
    Theta = random_heads(1, 4, rng=rng).Theta
    W = rng.normal(size=(1, 4, 4))
    W[0, :, 0] = 0.0  # rank 3
    X = boolean_inputs(100, 3, 4, rng=rng)
    with pytest.raises(SculptError, match="rank .* < d\\^2"):
        learn_single_head(X, attention(X, Heads(Theta, W)))


def test_labels_of_two_heads_are_rejected():
    rng = np.random.default_rng(3)
    X = boolean_inputs(200, 3, 5, rng=rng)
    with pytest.raises(SculptError, match="not produced by a single softmax head"):
        learn_single_head(X, attention(X, random_heads(2, 5, scale=3.0, rng=rng)))


def test_too_few_usable_examples():
    X = np.ones((5, 3, 4))  # every sequence has repeated tokens
    with pytest.raises(SculptError, match="linearly independent tokens"):
        learn_single_head(X, X)


def test_shape_mismatch():
    X = boolean_inputs(10, 3, 4, rng=0)
    with pytest.raises(ValueError, match="every position"):
        learn_single_head(X, X[:, -1])
