"""Tests for attnlib.heads: the Heads container and random_heads."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import Heads, random_heads

# --- shape -------------------------------------------------------------------


def test_heads_dimensions_and_repr():
    heads = Heads(np.zeros((3, 5, 5)), np.ones((3, 5, 5)))
    assert (heads.m, heads.d, len(heads)) == (3, 5, 3)
    assert repr(heads) == "Heads(m=3, d=5)"
    assert heads.Theta.dtype == np.float64


def test_single_matrix_is_one_head():
    heads = Heads(np.eye(4), 2 * np.eye(4))
    assert heads.Theta.shape == (1, 4, 4) and heads.m == 1


def test_indexing_returns_heads():
    heads = random_heads(4, 3, rng=0)
    assert heads[2].m == 1
    np.testing.assert_array_equal(heads[2].W[0], heads.W[2])
    assert heads[1:3].m == 2
    np.testing.assert_array_equal(heads[[3, 0]].Theta, heads.Theta[[3, 0]])


def test_random_heads_shapes():
    heads = random_heads(3, 6, rng=0)
    assert heads.Theta.shape == heads.W.shape == (3, 6, 6)


# --- properties --------------------------------------------------------------


def test_heads_are_immutable_copies():
    Theta = np.zeros((1, 2, 2))
    heads = Heads(Theta, np.zeros((1, 2, 2)))
    Theta[0, 0, 0] = 5.0
    assert heads.Theta[0, 0, 0] == 0.0
    with pytest.raises(ValueError, match="read-only"):
        heads.W[0, 0, 0] = 1.0
    with pytest.raises(AttributeError, match="cannot assign to field 'W'"):
        heads.W = np.ones((1, 2, 2))


def test_random_heads_is_reproducible_and_seed_dependent():
    a, b, c = random_heads(2, 3, rng=7), random_heads(2, 3, rng=7), random_heads(2, 3, rng=8)
    np.testing.assert_array_equal(a.Theta, b.Theta)
    np.testing.assert_array_equal(a.W, b.W)
    assert not np.array_equal(a.Theta, c.Theta)


def test_random_heads_scale_sets_logit_size():
    # Theta entries N(0, scale^2/d^2): E||Theta||_F^2 = scale^2, and a logit of two
    # independent +-1 tokens has variance scale^2.
    rng = np.random.default_rng(0)
    d, scale = 8, 3.0
    heads = random_heads(2000, d, scale=scale, rng=rng)
    assert np.mean(np.sum(heads.Theta**2, axis=(1, 2))) == pytest.approx(scale**2, rel=0.05)
    x, y = (2.0 * rng.integers(0, 2, size=(2, 2000, d)) - 1.0)
    logits = np.einsum("hi,hij,hj->h", x, heads.Theta, y)
    assert np.std(logits) == pytest.approx(scale, rel=0.05)
    assert np.mean(np.sum(heads.W**2, axis=(1, 2))) == pytest.approx(d, rel=0.05)


# --- errors ------------------------------------------------------------------


def test_mismatched_theta_and_w():
    with pytest.raises(ValueError, match=r"same shape.*Theta \(2, 3, 3\) and W \(2, 4, 4\)"):
        Heads(np.zeros((2, 3, 3)), np.zeros((2, 4, 4)))
    with pytest.raises(ValueError, match=r"Theta \(2, 3, 3\) and W \(3, 3, 3\)"):
        Heads(np.zeros((2, 3, 3)), np.zeros((3, 3, 3)))


@pytest.mark.parametrize("shape", [(3,), (2, 3, 4), (1, 2, 3, 3), (0, 3, 3)])
def test_bad_head_shapes(shape):
    with pytest.raises(ValueError, match=r"Theta must have shape \(m, d, d\).*received shape " + re.escape(str(shape))):
        Heads(np.zeros(shape), np.zeros(shape))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_heads(bad):
    W = np.zeros((1, 2, 2))
    W[0, 1, 0] = bad
    with pytest.raises(ValueError, match=r"W must be finite.*index \(0, 1, 0\)"):
        Heads(np.zeros((1, 2, 2)), W)


def test_non_numeric_heads():
    with pytest.raises(TypeError, match="Theta must be an array of real numbers"):
        Heads([["a", "b"], ["c", "d"]], np.zeros((2, 2)))


@pytest.mark.parametrize("m, d, exc", [(0, 3, ValueError), (2, -1, ValueError), (1.5, 3, TypeError),
                                       (True, 3, TypeError), (2, "3", TypeError)])
def test_random_heads_bad_sizes(m, d, exc):
    with pytest.raises(exc, match="must be a positive integer; received"):
        random_heads(m, d)


@pytest.mark.parametrize("scale", [0.0, -1.0, np.inf])
def test_random_heads_bad_scale(scale):
    with pytest.raises(ValueError, match="scale must be a finite positive number"):
        random_heads(2, 3, scale=scale)


# --- seeds and sizes (moved from tests/test_bad_input.py) -----------------------------------------


def test_rng_accepts_none_int_numpy_int_and_generator():
    a = random_heads(2, 3, rng=5)
    b = random_heads(2, 3, rng=np.int64(5))
    c = random_heads(2, 3, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.Theta, b.Theta)
    np.testing.assert_array_equal(a.Theta, c.Theta)
    assert random_heads(2, 3, rng=None).m == 2


def test_bad_rng_is_named_and_sizes_come_first():
    with pytest.raises(TypeError, match=r"rng must be None, an integer"):
        random_heads(2, 3, rng="abc")
    with pytest.raises(TypeError, match=r"^m must be a positive integer"):
        random_heads(2.5, 3, rng="abc")


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.floats(), st.booleans(), st.integers(max_value=0), st.text(max_size=3), st.none()))
def test_bad_sizes_are_named(value):
    with pytest.raises((TypeError, ValueError), match="^d must be a positive integer"):
        random_heads(2, value)
