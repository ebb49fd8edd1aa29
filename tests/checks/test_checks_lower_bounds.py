"""Tests for attnlib.checks.lower_bounds: independent references pass, mistakes fail.

The references solve the alternating system with numpy, find the hidden set by
trying every candidate, and compute Fourier coefficients by a mean over the
enumerated cube, never with attnlib.lower_bounds.
"""

import itertools

import numpy as np
import pytest

from attnlib.checks import (
    CheckFailure,
    check_parity_coefficients,
    check_parity_learner,
    check_walsh_hadamard,
    check_weight_by_degree,
)


def sigmoid(t):
    return 1.0 / (1.0 + np.exp(-t))


def good_coefficients(betas, factor=2.0):
    betas = np.asarray(betas, float)
    j = np.arange(len(betas))
    return np.linalg.solve(sigmoid(factor * np.outer(j, betas)), (-1.0) ** j)


def good_learner(X, Y, search=True):
    """Try every hidden set S against the labels, then build heads with scales of our own choosing."""
    N, _, d = X.shape
    r = d - 1
    y = Y[:, 0, 0]
    found = None
    for s in range(1, d):
        for S in itertools.combinations(range(d - 1), s):
            chi = np.prod(X[:, 0, list(S)] * X[:, 1, list(S)], axis=1)
            if np.allclose(2 * X[:, 1, r] + (X[:, 0, r] - X[:, 1, r]) * chi, y, atol=1e-8):
                found = S
                break
        if found is not None:
            break
    s = len(found)
    betas = np.append(0.3 * np.arange(s) / (s - np.arange(s)), 25.0)
    c = good_coefficients(betas)
    mask = np.zeros(d)
    mask[list(found)] = 1.0
    Theta = betas[:, None, None] * np.diag(mask)
    W = np.zeros((s + 1, d, d))
    W[:, r, 0] = c
    return Theta, W


def cube(K):
    return np.array([[-1.0 if (t >> k) & 1 else 1.0 for k in range(K)] for t in range(2**K)])


def good_coefficients_of(values):
    K = len(values).bit_length() - 1
    x = cube(K)
    return np.array([np.mean(values * np.prod(x[:, [k for k in range(K) if (T >> k) & 1]], axis=1))
                     for T in range(2**K)])


def good_weights(values):
    c = good_coefficients_of(values)
    K = len(values).bit_length() - 1
    w = np.zeros(K + 1)
    for T, coefficient in enumerate(c):
        w[bin(T).count("1")] += coefficient**2
    return w


def test_references_pass(capsys):
    check_parity_coefficients(good_coefficients)
    check_parity_learner(good_learner)
    check_walsh_hadamard(good_coefficients_of)
    check_weight_by_degree(good_weights)
    assert capsys.readouterr().out.splitlines() == [
        "check_parity_coefficients: all 5 cases passed.",
        "check_parity_learner: all 4 cases passed.",
        "check_walsh_hadamard: all 6 cases passed.",
        "check_weight_by_degree: all 6 cases passed.",
    ]


def test_reference_coefficients_give_an_alternating_sign():
    betas = [0.0, 0.4, 1.1, 20.0]
    c = good_coefficients(betas)
    for j in range(4):
        assert abs(sum(ci * sigmoid(2 * b * j) for ci, b in zip(c, betas, strict=True)) - (-1) ** j) < 1e-9


@pytest.mark.parametrize("wrong, message", [
    (lambda betas: good_coefficients(betas, factor=1.0), r"'s=2, default scales'.*c at index"),      # missing 2
    (lambda betas: np.linalg.solve(sigmoid(2 * np.outer(np.arange(len(betas)), betas)),
                                   np.ones(len(betas))), r"'s=1, a hard second head'"),            # no (-1)^j
    (lambda betas: np.linalg.solve(sigmoid(2 * np.outer(np.arange(len(betas)), betas)).T,
                                   (-1.0) ** np.arange(len(betas))), r"'s=2, default scales'"),     # transposed
    (lambda betas: good_coefficients(betas)[:-1], r"c has shape \(1,\); expected shape \(2,\)"),    # off by one
])
def test_parity_coefficients_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_parity_coefficients: .*" + message):
        check_parity_coefficients(wrong)


def wrong_readout(X, Y):
    Theta, W = good_learner(X, Y)
    return Theta, np.roll(W, 1, axis=1)                 # reads coordinate 0 instead of r = d - 1


def transposed_w(X, Y):
    Theta, W = good_learner(X, Y)
    return Theta, W.swapaxes(1, 2)


def no_scales(X, Y):
    Theta, W = good_learner(X, Y)
    return (Theta > 0).astype(float), W                 # the same matrix in every head


@pytest.mark.parametrize("wrong, message", [
    (wrong_readout, r"'d=6, s=1'.*the output of your layer on held-out inputs at index"),
    (transposed_w, r"'d=6, s=1'.*held-out inputs"),
    (no_scales, r"'d=6, s=1'.*held-out inputs"),
    (lambda X, Y: good_learner(X, Y)[0], r"return attnlib.Heads or a pair \(Theta, W\); received ndarray"),
])
def test_parity_learner_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_parity_learner: .*" + message):
        check_parity_learner(wrong)


@pytest.mark.parametrize("wrong, message", [
    (lambda v: good_coefficients_of(v) * len(v), r"2\*\*K times too large: a coefficient is a mean"),   # a sum
    (lambda v: good_coefficients_of(v)[bit_reversed(len(v))],
     r"'x_0 x_1 \+ 0.5 on K=3 variables'.*The right values in the wrong order"),                            # bit order
    (lambda v: np.fft.fft(v).real / len(v), r"'x_0 x_1 \+ 0.5 on K=3 variables'"),  # wrong transform
])
def test_walsh_hadamard_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_walsh_hadamard: .*" + message):
        check_walsh_hadamard(wrong)


def bit_reversed(size):
    K = size.bit_length() - 1
    return np.array([int(format(t, f"0{K}b")[::-1], 2) if K else 0 for t in range(size)])


def test_walsh_hadamard_check_hints_at_the_order():
    def reversed_bits(v):
        return good_coefficients_of(v)[bit_reversed(len(v))]

    with pytest.raises(CheckFailure, match=r"The right values in the wrong order: coefficient T must belong"):
        check_walsh_hadamard(reversed_bits)


@pytest.mark.parametrize("wrong, message", [
    (lambda v: good_weights(v)[1:], r"w has shape \(3,\); expected shape \(4,\)"),                 # drops degree 0
    (lambda v: np.append(good_weights(v)[1:], 0.0), r"'x_0 x_1 \+ 0.5 on K=3 variables'.*w at index"),   # off by one
    (lambda v: np.sqrt(good_weights(v)), r"'x_0 x_1 \+ 0.5 on K=3 variables'"),                    # forgot the squares
    (lambda v: good_weights(v) / good_weights(v).sum(), r"'x_0 x_1 \+ 0.5 on K=3 variables'"),    # normalised
])
def test_weight_by_degree_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_weight_by_degree: .*" + message):
        check_weight_by_degree(wrong)
