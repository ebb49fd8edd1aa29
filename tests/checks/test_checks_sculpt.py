"""Tests for attnlib.checks.sculpt: independent references pass, plausible mistakes fail with a specific message.

The references are loops over tokens and examples written from the definitions,
never attnlib.sculpt.
"""

import numpy as np
import pytest

from attnlib.checks import CheckFailure, check_fit_W, check_halfspaces, check_logit_gaps, check_W_from_labels


def good_gaps(X, Theta):
    N, n, _ = X.shape
    G = np.zeros((N, n, n, n))
    for i in range(N):
        for a in range(n):
            for b in range(n):
                for c in range(n):
                    G[i, a, b, c] = X[i, a] @ Theta @ (X[i, b] - X[i, c])
    return G


def softmax_rows(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def design(X, Theta):
    """Rows of [A_1 X | ... | A_m X] for every example and position, by a loop over examples."""
    blocks = []
    for x in X:
        blocks.append(np.hstack([softmax_rows(x @ T @ x.T) @ x for T in Theta]))
    return np.vstack(blocks)                                       # (N n, m d)


def good_fit_W(X, Y, Theta):
    D = design(X, Theta)
    y = Y.reshape(-1, Y.shape[-1])
    W = np.linalg.solve(D.T @ D, D.T @ y)
    return W.reshape(len(Theta), X.shape[-1], X.shape[-1]), np.linalg.norm(D @ W - y) / np.linalg.norm(y)


def good_halfspaces(X, e, a, b):
    found = {}
    for i, q, t in zip(e, a, b, strict=True):
        for c in range(X.shape[1]):
            if not np.array_equal(X[i, c], X[i, t]):
                Z = np.outer(X[i, q], X[i, t] - X[i, c]) + 0.0        # + 0.0 turns -0.0 into 0.0
                found[Z.tobytes()] = Z
    d = X.shape[-1]
    return np.array(list(found.values()))[::-1].reshape(-1, d, d)   # in any order


def test_references_pass(capsys):
    check_logit_gaps(good_gaps)
    check_fit_W(good_fit_W)
    check_halfspaces(good_halfspaces)
    assert capsys.readouterr().out.splitlines() == [
        "check_logit_gaps: all 4 cases passed.",
        "check_fit_W: all 4 cases passed.",
        "check_halfspaces: all 4 cases passed.",
    ]


def test_reference_gaps_are_log_ratios_of_softmax_weights():
    rng = np.random.default_rng(0)
    X, Theta = rng.choice([-1.0, 1.0], size=(2, 3, 4)), rng.normal(size=(4, 4))
    A = np.array([softmax_rows(x @ Theta @ x.T) for x in X])
    np.testing.assert_allclose(good_gaps(X, Theta), np.log(A)[:, :, :, None] - np.log(A)[:, :, None, :], atol=1e-10)


@pytest.mark.parametrize("wrong, message", [
    (lambda X, Theta: good_gaps(X, Theta.T), r"'Boolean, N=3, n=3, d=4'.*G at index"),                # Theta^T
    (lambda X, Theta: -good_gaps(X, Theta), r"'Boolean, N=3, n=3, d=4'.*G at index"),                # c - b
    (lambda X, Theta: good_gaps(X, Theta).swapaxes(1, 2), r"'Boolean, N=3, n=3, d=4'.*G at index"),  # query last
    (lambda X, Theta: good_gaps(X, Theta)[:, :, :, 0], r"G has shape \(3, 3, 3\); expected shape \(3, 3, 3, 3\)"),
])
def test_logit_gaps_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_logit_gaps: .*" + message):
        check_logit_gaps(wrong)


def per_head(X, Y, Theta):
    """Fits each head on its own: wrong as soon as there are two heads."""
    out = [good_fit_W(X, Y, Theta[i:i + 1])[0][0] for i in range(len(Theta))]
    W = np.array(out)
    D = design(X, Theta)
    y = Y.reshape(-1, Y.shape[-1])
    return W, np.linalg.norm(D @ W.reshape(-1, X.shape[-1]) - y) / np.linalg.norm(y)


@pytest.mark.parametrize("wrong, message", [
    (lambda X, Y, Theta: (good_fit_W(X, Y, Theta)[0].swapaxes(1, 2), good_fit_W(X, Y, Theta)[1]),
     r"'the true Theta of two heads, d=3'.*W at index"),                                              # W^T
    (per_head, r"'the true Theta of two heads, d=3'.*W at index"),
    (lambda X, Y, Theta: (good_fit_W(X, Y, Theta)[0], good_fit_W(X, Y, Theta)[1] ** 2),
     r"'one head, noisy labels, d=4'.*residual"),                                                    # squared
    (lambda X, Y, Theta: good_fit_W(X, Y, Theta)[0], r"expected 2 outputs \(W, residual\)"),
    (lambda X, Y, Theta: good_fit_W(X, Y, np.swapaxes(Theta, 1, 2)), r"'the true Theta of two heads, d=3'"),
])
def test_fit_W_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_fit_W: .*" + message):
        check_fit_W(wrong)


def with_zero_normals(X, e, a, b):
    Z = [np.outer(X[i, q], X[i, t] - X[i, c]) for i, q, t in zip(e, a, b, strict=True) for c in range(X.shape[1])]
    return np.unique(np.array(Z).reshape(len(Z), -1), axis=0).reshape(-1, X.shape[-1], X.shape[-1])


@pytest.mark.parametrize("wrong, message", [
    (with_zero_normals, r"a normal is the zero matrix: skip competitors c with x_c = x_b"),
    (lambda X, e, a, b: np.concatenate([good_halfspaces(X, e, a, b)] * 2), r"hold only \d+ distinct ones"),
    (lambda X, e, a, b: good_halfspaces(X, e, a, b).swapaxes(1, 2), r"'six rows, n=3, d=3'.*sorted normals"),
    (lambda X, e, a, b: good_halfspaces(X, e, b, a), r"'six rows, n=3, d=3'"),                    # roles swapped
    (lambda X, e, a, b: good_halfspaces(X, e[:1], a[:1], b[:1]), r"you returned \d+ distinct normals; expected"),
])
def test_halfspaces_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_halfspaces: .*" + message):
        check_halfspaces(wrong)


def good_min_norm_point(Z, gamma):
    """The nearest point by SLSQP, a general solver (the library solves the dual by NNLS)."""
    import scipy.optimize

    K, d, _ = Z.shape
    A = Z.reshape(K, d * d)
    best = scipy.optimize.minimize(lambda t: t @ t, np.ones(d * d), jac=lambda t: 2 * t, method="SLSQP", tol=1e-12,
                                   constraints=[{"type": "ineq", "fun": lambda t: A @ t - gamma, "jac": lambda t: A}])
    return best.x.reshape(d, d)


def test_check_min_norm_point_passes_an_independent_reference_and_fails_mistakes(capsys):
    from attnlib.checks import check_min_norm_point

    check_min_norm_point(good_min_norm_point)
    assert capsys.readouterr().out.strip() == "check_min_norm_point: all 5 cases passed."
    mistakes = [lambda Z, g: 2 * good_min_norm_point(Z, g),          # the nearest point of gamma = 2 gamma
                lambda Z, g: good_min_norm_point(Z, 1.0),            # gamma ignored
                lambda Z, g: -good_min_norm_point(Z, g),             # a flipped sign
                lambda Z, g: good_min_norm_point(Z, g).T,            # transposed
                lambda Z, g: Z.mean(axis=0)]                         # a feature, not a point of the body
    for mistake in mistakes:
        with pytest.raises(CheckFailure, match="check_min_norm_point: on case"):
            check_min_norm_point(mistake)


# check_W_from_labels: step 2 of the exact single-head learner, from its equations


def good_W_from_labels(X, Y, *, skip=True, transpose=False, invert=True):
    rows = []
    for x, y in zip(X, Y, strict=True):
        n = len(x)
        if skip and np.linalg.matrix_rank(x) < n:
            continue
        q = x.T @ np.linalg.solve(x @ x.T, np.ones(n))             # q(X) = X^T (X X^T)^{-1} 1
        for a in range(n):
            M = np.outer(q, y[a]) if transpose else np.outer(y[a], q)
            rows.append(M.ravel())
    d = X.shape[-1]
    V = np.linalg.lstsq(np.array(rows), np.ones(len(rows)), rcond=None)[0].reshape(d, d)
    return np.linalg.inv(V) if invert else V


def test_W_from_labels_reference_passes(capsys):
    check_W_from_labels(good_W_from_labels)
    assert capsys.readouterr().out == "check_W_from_labels: all 4 cases passed.\n"


@pytest.mark.parametrize("wrong, message", [
    (lambda X, Y: good_W_from_labels(X, Y, invert=False), r"you returned V = W\^-1"),
    (lambda X, Y: good_W_from_labels(X, Y, transpose=True), r"your W is transposed"),
    (lambda X, Y: good_W_from_labels(X, Y, skip=False), r"raised LinAlgError.*skip them"),
    (lambda X, Y: good_W_from_labels(X, Y)[:2], r"W has shape \(2, 4\); expected shape \(4, 4\)"),
])
def test_W_from_labels_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_W_from_labels: .*" + message):
        check_W_from_labels(wrong)
