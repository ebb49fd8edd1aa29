"""Tests for attnlib.landscape: lines in parameter space."""

import numpy as np
import pytest

from attnlib import Heads, attention, gaussian_inputs, interpolate, loss_along_line, partners, random_heads


def test_interpolate_endpoints_and_midpoint():
    a, b = random_heads(2, 3, rng=0), random_heads(2, 3, rng=1)
    np.testing.assert_array_equal(interpolate(a, b, 0.0).Theta, a.Theta)
    np.testing.assert_array_equal(interpolate(a, b, 1.0).W, b.W)
    np.testing.assert_allclose(interpolate(a, b, 0.5).Theta, (a.Theta + b.Theta) / 2)


def test_loss_along_line_matches_direct_evaluation():
    rng = np.random.default_rng(2)
    a, b = random_heads(2, 3, rng=rng), random_heads(2, 3, rng=rng)
    X = gaussian_inputs(10, 4, 3, rng=rng)
    Y = attention(X, a)
    ts = np.array([-0.5, 0.0, 0.3, 1.0])
    expected = [np.mean((attention(X, Heads((1 - t) * a.Theta + t * b.Theta, (1 - t) * a.W + t * b.W)) - Y) ** 2)
                for t in ts]
    np.testing.assert_allclose(loss_along_line(X, Y, a, b, ts), expected, rtol=1e-12)


@pytest.mark.parametrize("kind", ["softmax", "linear"])
def test_symmetric_partners_compute_the_same_function_and_break_convexity(kind):
    rng = np.random.default_rng(3)
    teacher = random_heads(2, 3, scale=2.0, rng=rng)
    X = gaussian_inputs(30, 4, 3, rng=rng)
    Y = attention(X, teacher, kind=kind)
    for name, other in partners(teacher, kind=kind, rng=rng).named():
        L = loss_along_line(X, Y, teacher, other, [0.0, 0.5, 1.0], kind=kind)
        if name == "random":
            assert L[2] > 1e-3
        else:
            assert L[0] < 1e-25 and L[2] < 1e-25
            assert L[1] > 1e-3  # above the chord: not convex


def test_partner_names():
    one = partners(random_heads(1, 2, rng=0), kind="softmax", rng=0)
    assert [name for name, _ in one.named()] == ["random"] and one.permuted is None and one.gauge is None
    three = partners(random_heads(3, 2, rng=0), kind="linear", rng=0)
    assert [name for name, _ in three.named()] == ["permuted", "gauge", "random"]
    np.testing.assert_array_equal(three.gauge.W, -random_heads(3, 2, rng=0).W)
    assert repr(three) == "Partners(permuted, gauge, random)"


def test_errors():
    a = random_heads(2, 3, rng=0)
    with pytest.raises(ValueError, match="same"):
        interpolate(a, random_heads(1, 3, rng=0), 0.5)
    X = gaussian_inputs(4, 2, 3, rng=0)
    with pytest.raises(ValueError, match="1-D"):
        loss_along_line(X, X, a, a, [[0.0]])
