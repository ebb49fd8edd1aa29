"""Tests for attnlib.checks: each check passes correct code and rejects plausible mistakes.

The wrong answers below are the mistakes learners make: a missing normalisation,
a transposed matrix, the wrong axis, a missing factor, an in-place edit.
"""

import numpy as np
import pytest

from attnlib import Heads, attention, loss_and_gradient
from attnlib.checks import (
    CheckFailure,
    check_attention_head,
    check_gradient_descent,
    check_linear_attention,
    check_linear_attention_gradient,
    check_softmax,
    check_softmax_jacobian,
)

# --- reference solutions written independently of attnlib ---------------------


def good_softmax(S):
    S = np.asarray(S, dtype=float)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def good_head(X, Theta, W):
    return good_softmax(X @ Theta @ X.T) @ X @ W


def good_linear(X, Theta, W):
    return np.einsum("Naj,ijk,Nbk,Nbl,ile->Nae", X, Theta, X, X, W)


def good_gradient(X, Y, Theta, W):
    G = np.einsum("Nbk,Nbl->Nkl", X, X)                     # X^T X per example
    F = np.einsum("Naj,ijk,Nkl,ile->Nae", X, Theta, G, W)
    R = 2 * (F - Y) / Y.size
    dW = np.einsum("Naj,ijk,Nkl,Nae->ile", X, Theta, G, R)
    dTheta = np.einsum("Naj,Nkl,ile,Nae->ijk", X, G, W, R)
    return dTheta, dW


def test_references_pass(capsys):
    check_softmax(good_softmax)
    check_attention_head(good_head)
    check_linear_attention(good_linear)
    check_linear_attention_gradient(good_gradient)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == [
        "check_softmax: all 7 cases passed.",
        "check_attention_head: all 5 cases passed.",
        "check_linear_attention: all 5 cases passed.",
        "check_linear_attention_gradient: all 4 cases passed.",
    ]


# --- softmax ------------------------------------------------------------------


@pytest.mark.parametrize("wrong, message", [
    (lambda S: np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True), r"'logits as large as 1e4'.*nan.*overflow"),
    (lambda S: np.exp(S - np.max(S)), r"'one row of logits'.*expected"),                      # not normalised
    (lambda S: good_softmax(np.swapaxes(S, -1, 0)).swapaxes(-1, 0) if np.ndim(S) > 1 else good_softmax(S),
     r"'a batch of rows'"),                                                                   # wrong axis
    (lambda S: good_softmax(S).T, r"shape \(6, 3\); expected shape \(3, 6\)\. Is it transposed\?"),
    (lambda S: np.exp(S - S.max()) / np.exp(S - S.max()).sum(axis=-1, keepdims=True),
     r"'logits as large as 1e4'"),                                                            # one global max
])
def test_softmax_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_softmax(wrong)


def test_softmax_check_reports_exceptions_and_in_place_edits():
    def raises(S):
        raise RuntimeError("boom")

    expected = r"raised RuntimeError: boom on case 'one row of logits' \(S of shape \(5,\)\)"
    with pytest.raises(CheckFailure, match=expected):
        check_softmax(raises)

    def in_place(S):
        S -= S.max(axis=-1, keepdims=True)
        np.exp(S, out=S)
        S /= S.sum(axis=-1, keepdims=True)
        return S

    with pytest.raises(CheckFailure, match="changed its input S in place"):
        check_softmax(in_place)
    with pytest.raises(TypeError, match="fn must be a function"):
        check_softmax(np.ones(3))


# --- one head -------------------------------------------------------------------


@pytest.mark.parametrize("wrong, message", [
    (lambda X, Theta, W: good_softmax(X @ Theta.T @ X.T) @ X @ W, r"Gaussian tokens"),     # transposed Theta
    (lambda X, Theta, W: good_softmax((X @ Theta @ X.T).T) @ X @ W, r"Gaussian tokens"),   # A transposed
    (lambda X, Theta, W: (X @ Theta @ X.T) @ X @ W, r"Gaussian tokens"),                     # no softmax
    (lambda X, Theta, W: good_softmax(X @ Theta @ X.T) @ X, r"Gaussian tokens"),             # forgot W
    (lambda X, Theta, W: (good_softmax(X @ Theta @ X.T) @ X @ W).T, r"Is it transposed\?"),
])
def test_head_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_attention_head(wrong)


# --- linear attention -----------------------------------------------------------------


@pytest.mark.parametrize("wrong, message", [
    (lambda X, Theta, W: np.einsum("Naj,ikj,Nbk,Nbl,ile->Nae", X, Theta, X, X, W), r"one head"),      # Theta^T
    (lambda X, Theta, W: good_linear(X, Theta, W) / Theta.shape[0], r"three heads"),               # averages heads
    (lambda X, Theta, W: np.einsum("Naj,ijk,Nbk,ile->Nae", X, Theta, X, W), r"one head"),          # forgot X in A X W
    (lambda X, Theta, W: good_linear(X, Theta, W)[:, :, :1], r"has shape .*; expected shape"),
])
def test_linear_attention_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_linear_attention(wrong)


# --- gradient ------------------------------------------------------------------------


def test_reference_gradient_is_independent_and_correct():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(2, 3, 2)), rng.normal(size=(2, 3, 2))
    Theta, W = rng.normal(size=(2, 2, 2)), rng.normal(size=(2, 2, 2))
    _, dTheta, dW = loss_and_gradient(X, Y, Heads(Theta, W), kind="linear")
    mine = good_gradient(X, Y, Theta, W)
    np.testing.assert_allclose(mine[0], dTheta, rtol=1e-10)
    np.testing.assert_allclose(mine[1], dW, rtol=1e-10)
    np.testing.assert_allclose(np.einsum("Naj,ijk,Nbk,Nbl,ile->Nae", X, Theta, X, X, W),
                               attention(X, Heads(Theta, W), kind="linear"), rtol=1e-10)


@pytest.mark.parametrize("wrong, message", [
    (lambda X, Y, Theta, W: tuple(g / 2 for g in good_gradient(X, Y, Theta, W)), r"dTheta at index"),  # missing 2
    (lambda X, Y, Theta, W: tuple(g * Y.size for g in good_gradient(X, Y, Theta, W)), r"dTheta"),      # sum, not mean
    (lambda X, Y, Theta, W: (good_gradient(X, Y, Theta, W)[0].swapaxes(1, 2), good_gradient(X, Y, Theta, W)[1]),
     r"dTheta at index"),                                                                                # transposed
    (lambda X, Y, Theta, W: good_gradient(X, Y, Theta, W)[::-1], r"dTheta"),                           # swapped outputs
    (lambda X, Y, Theta, W: good_gradient(X, Y, Theta, W)[0], r"expected 2 outputs \(dTheta, dW\)"),
])
def test_gradient_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_linear_attention_gradient(wrong)


# --- the softmax Jacobian ---------------------------------------------------------------


def good_jacobian(s):
    p = good_softmax(s)
    return np.diag(p) - np.outer(p, p)


def test_softmax_jacobian_reference_matches_finite_differences(capsys):
    s, h = np.array([0.3, -1.2, 2.0, 0.0]), 1e-6
    J = np.array([(good_softmax(s + h * e) - good_softmax(s - h * e)) / (2 * h) for e in np.eye(4)]).T
    np.testing.assert_allclose(good_jacobian(s), J, atol=1e-9)
    check_softmax_jacobian(good_jacobian)
    assert capsys.readouterr().out == "check_softmax_jacobian: all 5 cases passed.\n"


@pytest.mark.parametrize("wrong, message", [
    (lambda s: np.diag(good_softmax(s)), r"'five random logits'.*the output at index"),               # no -p p^T
    (lambda s: np.diag(good_softmax(s) * (1 - good_softmax(s))), r"'five random logits'"),            # diagonal only
    (lambda s: np.outer(good_softmax(s), good_softmax(s)) - np.diag(good_softmax(s)), r"'five random logits'"),  # sign
    (lambda s: np.diag(s) - np.outer(s, s), r"'five random logits'"),                                 # s, not p
    (lambda s: good_jacobian(s)[:, :-1], r"has shape \(5, 4\); expected shape \(5, 5\)"),
])
def test_softmax_jacobian_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_softmax_jacobian: .*" + message):
        check_softmax_jacobian(wrong)


def test_softmax_jacobian_check_needs_stability():
    def naive(s):
        e = np.exp(s)
        p = e / e.sum()
        return np.diag(p) - np.outer(p, p)

    with pytest.raises(CheckFailure, match=r"'logits of size 1e3'.*nan.*overflow"):
        check_softmax_jacobian(naive)


# --- plain gradient descent ------------------------------------------------------------------


def good_descent(X, Y, Theta, W, step, steps):
    for _ in range(steps):
        dTheta, dW = good_gradient(X, Y, Theta, W)
        Theta, W = Theta - step * dTheta, W - step * dW
    return Theta, W


def test_gradient_descent_reference_passes(capsys):
    check_gradient_descent(good_descent)
    assert capsys.readouterr().out == "check_gradient_descent: all 4 cases passed.\n"


def sequential(X, Y, Theta, W, step, steps):
    for _ in range(steps):
        Theta = Theta - step * good_gradient(X, Y, Theta, W)[0]
        W = W - step * good_gradient(X, Y, Theta, W)[1]                 # gradient at the *new* Theta
    return Theta, W


def in_place(X, Y, Theta, W, step, steps):
    for _ in range(steps):
        dTheta, dW = good_gradient(X, Y, Theta, W)
        Theta -= step * dTheta
        W -= step * dW
    return Theta, W


@pytest.mark.parametrize("wrong, message", [
    (lambda X, Y, Theta, W, step, steps: good_descent(X, Y, Theta, W, -step, steps),
     r"'one step, one head \(step=0.05, steps=1\)'.*Theta at index"),                                     # ascent
    (lambda X, Y, Theta, W, step, steps: good_descent(X, Y, Theta, W, step, steps + 1),
     r"'one step, one head.*Theta at index"),  # one too many
    (lambda X, Y, Theta, W, step, steps: good_descent(X, Y, Theta, W, step, max(steps - 1, 0)),
     r"'one step, one head.*Theta at index"),                                                              # one too few
    (sequential, r"'one step, one head.*W at index"),
    (in_place, r"changed its input Theta in place"),
    (lambda X, Y, Theta, W, step, steps: good_descent(X, Y, Theta, W, step, steps)[::-1],
     r"'one step, one head.*Theta at index|Theta has shape"),                                              # swapped
])
def test_gradient_descent_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_gradient_descent: .*" + message):
        check_gradient_descent(wrong)
