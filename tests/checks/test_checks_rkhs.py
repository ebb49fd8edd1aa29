"""Tests for attnlib.checks.rkhs: each check passes an independent reference and rejects plausible mistakes.

The references are written here from the definitions (loops over the Gram
pairs, the normal equations, a fold with one head per row of M), never with
attnlib.rkhs.
"""

import numpy as np
import pytest

from attnlib.checks import (
    CheckFailure,
    check_cubic_features,
    check_fit_coefficients,
    check_heads_from_coef,
    check_kernel,
    check_parameter_map,
)

# --- references ---------------------------------------------------------------------------------


def pairs(d, diagonal_first=False):
    off = [(j, k) for j in range(d) for k in range(j + 1, d)]
    diag = [(j, j) for j in range(d)]
    return diag + off if diagonal_first else off + diag


def one_sequence(x, order=None, factor=1.0):
    d = x.shape[1]
    G, last = x.T @ x, x[-1]
    return np.array([(factor if j != k else 1.0) * G[j, k] * last[l]
                     for j, k in (order or pairs(d)) for l in range(d)])


def good_features(X):
    return np.array([one_sequence(x) for x in np.asarray(X, float)])


def good_causal_features(X):
    X = np.asarray(X, float)
    return np.array([[one_sequence(x[: t + 1]) for t in range(X.shape[1])] for x in X])


def good_kernel(X, X2):
    """From the Gram matrices, one term per pair j <= k: never the features (check_kernel refuses them)."""
    X, X2 = np.asarray(X, float), np.asarray(X2, float)
    d = X.shape[-1]
    K = np.zeros((len(X), len(X2)))
    for a, x in enumerate(X):
        for b, y in enumerate(X2):
            G, H = x.T @ x, y.T @ y
            K[a, b] = sum(G[j, k] * H[j, k] for j, k in pairs(d)) * (x[-1] @ y[-1])
    return K


def test_kernel_reference_is_the_features_inner_product():
    rng = np.random.default_rng(3)
    X, X2 = rng.normal(size=(3, 4, 3)), rng.normal(size=(2, 6, 3))
    np.testing.assert_allclose(good_kernel(X, X2), good_features(X) @ good_features(X2).T, rtol=1e-12)


def good_parameter_map(Theta, W):
    m, d, _ = Theta.shape
    C = np.zeros((len(pairs(d)) * d, d))
    for p, (j, k) in enumerate(pairs(d)):
        for l in range(d):
            for a in range(d):
                for i in range(m):
                    C[p * d + l, a] += Theta[i, l, j] * W[i, k, a]
                    if j != k:
                        C[p * d + l, a] += Theta[i, l, k] * W[i, j, a]
    return C


def good_heads_from_coef(C):
    """One head per row (l, j) of M: Theta = E_lj, W = that row of M folded to (d, d). Exactly d^2 heads."""
    d = C.shape[1]
    M = np.zeros((d, d, d, d))                              # (l, j, k, a)
    for p, (j, k) in enumerate(pairs(d)):
        for l in range(d):
            M[l, j, k, :] = C[p * d + l]
    Theta = np.zeros((d * d, d, d))
    W = np.zeros((d * d, d, d))
    for h, (l, j) in enumerate((l, j) for l in range(d) for j in range(d)):
        Theta[h, l, j] = 1.0
        W[h] = M[l, j]
    return Theta, W


def good_fit(X, Y):
    Phi = good_features(X)
    return np.linalg.solve(Phi.T @ Phi, Phi.T @ Y)


def test_references_pass(capsys):
    check_cubic_features(good_features)
    check_cubic_features(good_causal_features, causal=True)
    check_kernel(good_kernel)
    check_parameter_map(good_parameter_map)
    check_heads_from_coef(good_heads_from_coef)
    check_fit_coefficients(good_fit)
    assert capsys.readouterr().out.splitlines() == [
        "check_cubic_features: all 5 cases passed.",
        "check_cubic_features(causal=True): all 5 cases passed.",
        "check_kernel: all 4 cases passed.",
        "check_parameter_map: all 5 cases passed.",
        "check_heads_from_coef: all 4 cases passed.",
        "check_fit_coefficients: all 4 cases passed.",
    ]


def test_reference_features_compute_linear_attention():
    """The references are right, not merely equal to the library: features times p(Theta) is the layer."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 5, 3))
    Theta, W = rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3, 3))
    last = np.einsum("Nj,ijk,Nbk,Nbl,ila->Na", X[:, -1], Theta, X, X, W)
    np.testing.assert_allclose(good_features(X) @ good_parameter_map(Theta, W), last, rtol=1e-10)
    T2, W2 = good_heads_from_coef(good_parameter_map(Theta, W))
    np.testing.assert_allclose(np.einsum("Nj,ijk,Nbk,Nbl,ila->Na", X[:, -1], T2, X, X, W2), last, rtol=1e-10)


# --- the mistakes -------------------------------------------------------------------------------


def raw_features(X):
    return np.einsum("Nbj,Nbk,Nl->Njkl", X, X, X[:, -1]).reshape(len(X), -1)


@pytest.mark.parametrize("wrong, message", [
    (lambda X: np.array([one_sequence(x, pairs(x.shape[1], diagonal_first=True)) for x in X]),
     r"'Gaussian, N=4, n=5, d=3'.*The right values in the wrong order: use Algorithm 2's order"),
    (raw_features, r"27 = d\^3 columns: keep one feature per pair j <= k, psi = .* = 18"),
    (lambda X: np.array([one_sequence(x, factor=2.0) for x in X]), r"'Gaussian, N=4, n=5, d=3'.*Phi at index"),
    (lambda X: good_features(X[:, ::-1]), r"'Gaussian, N=4, n=5, d=3'.*Phi at index"),        # first token, not last
    (lambda X: good_features(X).T, r"shape \(18, 4\); expected shape \(4, 18\)\. Is it transposed\?"),
])
def test_cubic_features_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_cubic_features(wrong)


@pytest.mark.parametrize("wrong, message", [
    (good_features, r"Phi has shape \(4, 18\); expected shape \(4, 5, 18\)"),                  # not causal at all
    (lambda X: np.repeat(good_features(X)[:, None], X.shape[1], axis=1), r"'Gaussian, N=4, n=5, d=3'"),  # full Gram
    (lambda X: good_causal_features(X)[:, ::-1], r"'Gaussian, N=4, n=5, d=3'.*Phi at index"),
])
def test_causal_features_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_cubic_features\(causal=True\).*" + message):
        check_cubic_features(wrong, causal=True)


def raw_kernel(X, X2):
    return np.einsum("Nad,Mbd->NMab", X, X2).__pow__(2).sum(axis=(2, 3)) * (X[:, -1] @ X2[:, -1].T)


@pytest.mark.parametrize("wrong, message", [
    (raw_kernel, r"'n=5 against n=5, d=3'.*K at index"),                       # ||X X'^T||^2 <x, x'>: the d^3 kernel
    (lambda X, X2: good_kernel(X2, X), r"K has shape \(3, 4\); expected shape \(4, 3\)\. Is it transposed\?"),
    (lambda X, X2: good_kernel(X[:, :1], X2[:, :1]), r"'n=5 against n=5, d=3'"),                     # first token
    (lambda X, X2: 2 * good_kernel(X, X2), r"'n=5 against n=5, d=3'.*K at index"),
])
def test_kernel_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_kernel(wrong)


@pytest.mark.parametrize("wrong, message", [
    (lambda Theta, W: good_parameter_map(Theta.swapaxes(1, 2), W), r"'one head, d=3'.*C at index"),     # Theta^T
    (lambda Theta, W: good_parameter_map(Theta, W) / Theta.shape[0], r"'three heads, d=2'"),          # mean of heads
    (lambda Theta, W: good_parameter_map(W, Theta), r"'one head, d=3'"),                                # swapped roles
    (lambda Theta, W: good_parameter_map(Theta, W).T, r"C has shape \(3, 18\); expected shape \(18, 3\)"),
])
def test_parameter_map_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_parameter_map(wrong)


def test_parameter_map_check_rejects_pair_without_its_swapped_term():
    def one_sided(Theta, W):
        m, d, _ = Theta.shape
        C = np.zeros((len(pairs(d)) * d, d))
        for p, (j, k) in enumerate(pairs(d)):
            C[p * d:(p + 1) * d] = np.einsum("il,ia->la", Theta[:, :, j], W[:, k])
        return C

    with pytest.raises(CheckFailure, match=r"'one head, d=3'.*C at index .* \(\d+ of 54 entries differ\)"):
        check_parameter_map(one_sided)


def test_heads_from_coef_check_rejects():
    def transposed_w(C):
        Theta, W = good_heads_from_coef(C)
        return Theta, W.swapaxes(1, 2)

    with pytest.raises(CheckFailure, match=r"'random C, d=2'.*p\(Theta\) of your heads at index"):
        check_heads_from_coef(transposed_w)

    def too_many(C):
        Theta, W = good_heads_from_coef(C)
        return np.concatenate([Theta, Theta]), np.concatenate([W / 2, W / 2])

    with pytest.raises(CheckFailure, match=r"your layer has 8 heads; at most d\^2 = 4 are needed"):
        check_heads_from_coef(too_many)
    with pytest.raises(CheckFailure, match=r"Theta and W must both have shape \(m, 2, 2\)"):
        check_heads_from_coef(lambda C: tuple(A.reshape(len(A), -1) for A in good_heads_from_coef(C)))  # vec, not fold
    with pytest.raises(CheckFailure, match=r"return attnlib.Heads or a pair \(Theta, W\); received ndarray"):
        check_heads_from_coef(lambda C: C)


@pytest.mark.parametrize("wrong, message", [
    (lambda X, Y: good_fit(X, Y).T, r"C has shape \(3, 18\); expected shape \(18, 3\)|C has shape \(2, 6\)"),
    (lambda X, Y: np.linalg.solve(good_features(X).T @ good_features(X) + 1e-3 * np.eye(good_features(X).shape[1]),
                                  good_features(X).T @ Y), r"'noisy targets, d=3'|'two-head"),        # ridge, not OLS
    (lambda X, Y: good_fit(X[:, ::-1], Y), r"'two-head linear teacher, d=2'.*C at index"),           # first token
])
def test_fit_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_fit_coefficients(wrong)


def test_the_kernel_guard_works_under_a_declaration(monkeypatch):
    """With cubic_features declared (``@arguments`` wraps it, functools.wraps), the guard swaps the code of
    the declared function, not the wrapper's: the call is refused, and the code is put back."""
    import attnlib.rkhs
    from attnlib._arguments import arguments

    plain = attnlib.rkhs.cubic_features
    original = plain.__code__
    declared = arguments(X="array", causal="flag")(plain)
    monkeypatch.setattr(attnlib.rkhs, "cubic_features", declared)
    with pytest.raises(CheckFailure, match="calls cubic_features, which forms"):
        check_kernel(lambda X, X2: attnlib.rkhs.cubic_features(X) @ attnlib.rkhs.cubic_features(X2).T)
    assert plain.__code__ is original
    X = np.ones((1, 2, 2))
    assert np.allclose(declared(X) @ declared(X).T, attnlib.rkhs.kernel(X, X))
    with pytest.raises(CheckFailure, match="raised TypeError: causal must be"):  # the wrapper checks first
        check_kernel(lambda X, X2: declared(X, causal="no"))

