"""Tests for attnlib.rkhs: cubic features, kernel, regression, SVD to heads, certificate."""

import itertools
import warnings

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs, gaussian_inputs, random_heads, softmax
from attnlib.rkhs import (
    Certificate,
    LinearFit,
    certificate,
    coefficient_matrix,
    cubic_features,
    fit_linear_attention,
    heads_from_coef,
    kernel,
    n_features,
    parameter_distance,
    parameter_map,
)

# --- naive oracles, written independently of the library ----------------------------


def naive_features(X):
    """Algorithm 2 for one sequence, as loops: pairs j < k then the diagonal, l innermost."""
    n, d = X.shape
    x = X[-1]
    out = []
    for j in range(d):
        for k in range(j + 1, d):
            g = sum(X[t, j] * X[t, k] for t in range(n))
            out.extend(g * x[l] for l in range(d))
    for j in range(d):
        g = sum(X[t, j] ** 2 for t in range(n))
        out.extend(g * x[l] for l in range(d))
    return np.array(out)


def raw_features(X):
    """All d^3 products G[j, k] x[l], without removing the Gram symmetry (Alg. 8)."""
    G = X.T @ X
    return np.einsum("jk,l->jkl", G, X[-1]).ravel()


def naive_linear_attention(X, heads):
    """Last-token output of linear attention with explicit loops over heads and tokens."""
    n, d = X.shape
    y = np.zeros(d)
    for Theta, W in zip(heads.Theta, heads.W, strict=True):
        for t in range(n):
            y += (X[-1] @ Theta @ X[t]) * (X[t] @ W)
    return y


def relative_error(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / np.linalg.norm(b)


# --- shapes -------------------------------------------------------------------------


def test_feature_and_kernel_shapes():
    X = gaussian_inputs(5, 7, 3, rng=0)
    assert n_features(3) == 18
    assert cubic_features(X).shape == (5, 18)
    assert cubic_features(X, causal=True).shape == (5, 7, 18)
    assert cubic_features(X[0]).shape == (18,)
    assert cubic_features(X[0], causal=True).shape == (7, 18)
    ragged = [X[0], X[1, :4], X[2, :2]]
    assert cubic_features(ragged).shape == (3, 18)
    causal = cubic_features(ragged, causal=True)
    assert [c.shape for c in causal] == [(7, 18), (4, 18), (2, 18)]
    assert kernel(X, X[:2]).shape == (5, 2)
    assert kernel(X[0], X).shape == (5,)
    assert isinstance(kernel(X[0], X[1]), float)


def test_fit_and_certificate_shapes():
    rng = np.random.default_rng(0)
    X = gaussian_inputs(80, 5, 3, rng=rng)
    fit = fit_linear_attention(X, rng.standard_normal((80, 3)))
    assert isinstance(fit, LinearFit)
    assert fit.coef.shape == (18, 3) and fit.heads.d == 3 and 1 <= fit.heads.m <= 9
    assert fit.predict(X).shape == (80, 3) and fit.predict(X[0]).shape == (3,)
    every = fit_linear_attention(X, rng.standard_normal((80, 5, 3)), causal=True)
    assert every.predict(X).shape == (80, 5, 3)
    assert "LinearFit(d=3" in repr(fit)
    cert = certificate(X)
    assert isinstance(cert, Certificate) and cert.psi == 18 and cert.N == 80
    assert cert.span_residual(X).shape == (80,)
    assert certificate(X, causal=True).span_residual(X).shape == (80, 5)
    assert repr(cert).startswith("Certificate(identifiable, lam_min=")


# --- oracles: features, kernel, parameter map ---------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_features_match_algorithm_2_loops(d):
    rng = np.random.default_rng(d)
    X = gaussian_inputs(4, 6, d, rng=rng)
    expected = np.array([naive_features(x) for x in X])
    np.testing.assert_allclose(cubic_features(X), expected, rtol=1e-12, atol=1e-12)
    # causal features: row t is the last-token feature of the prefix x_1..x_t
    causal = cubic_features(X, causal=True)
    for i, t in itertools.product(range(4), range(6)):
        np.testing.assert_allclose(causal[i, t], naive_features(X[i, : t + 1]), rtol=1e-12, atol=1e-12)


def test_kernel_is_inner_product_of_features_and_raw_kernel_formula():
    rng = np.random.default_rng(1)
    A = [rng.standard_normal((n, 3)) for n in (2, 5, 9)]
    B = [rng.standard_normal((n, 3)) for n in (4, 4, 1, 7)]
    K = kernel(A, B)
    expected = np.array([[naive_features(a) @ naive_features(b) for b in B] for a in A])
    np.testing.assert_allclose(K, expected, rtol=1e-12)
    # raw features (all d^3 products) have the kernel ||X X2^T||_F^2 <x_n, x2_n>
    for a, b in itertools.product(A, B):
        raw = raw_features(a) @ raw_features(b)
        assert raw == pytest.approx(np.linalg.norm(a @ b.T) ** 2 * (a[-1] @ b[-1]), rel=1e-12)


@pytest.mark.parametrize("m,d", [(1, 2), (2, 3), (3, 4)])
def test_parameter_map_reproduces_linear_attention(m, d):
    rng = np.random.default_rng(10 * m + d)
    heads = random_heads(m, d, rng=rng)
    coef = parameter_map(heads)
    for n in (1, 3, 11):
        X = gaussian_inputs(5, n, d, rng=rng)
        expected = np.array([naive_linear_attention(x, heads) for x in X])
        np.testing.assert_allclose(cubic_features(X) @ coef, expected, rtol=1e-10, atol=1e-12)


def test_parameter_map_matches_cor_a4_formula():
    """Entries of p(Theta) from the paper's formula, in the paper's column convention."""
    heads = random_heads(2, 3, rng=4)
    d = 3
    V = heads.W.transpose(0, 2, 1)  # Yau et al.: V_h = W_h^T, Q_h = Theta_h^T
    Q = heads.Theta.transpose(0, 2, 1)
    expected = []
    for j in range(d):
        for k in range(j + 1, d):
            expected.extend([[sum(V[h, a, j] * Q[h, k, l] + V[h, a, k] * Q[h, j, l] for h in range(2))
                              for a in range(d)] for l in range(d)])
    for j in range(d):
        expected.extend([[sum(V[h, a, j] * Q[h, j, l] for h in range(2)) for a in range(d)] for l in range(d)])
    np.testing.assert_allclose(parameter_map(heads), np.array(expected), rtol=1e-12)


def test_parameter_distance_is_zero_exactly_for_equal_functions():
    rng = np.random.default_rng(5)
    heads = random_heads(3, 3, rng=rng)
    # gauge: scale each head, permute heads, and split one head in two halves
    gauge = Heads(np.concatenate([3.0 * heads.Theta[::-1], heads.Theta[:1]]),
                  np.concatenate([heads.W[::-1] / 3.0, np.zeros((1, 3, 3))]))
    assert parameter_distance(heads, gauge) < 1e-12
    other = Heads(heads.Theta + 1e-3 * rng.standard_normal(heads.Theta.shape), heads.W)
    X = gaussian_inputs(50, 4, 3, rng=rng)
    gap = np.abs(attention(X, heads, kind="linear") - attention(X, other, kind="linear")).max()
    assert parameter_distance(heads, other) > 1e-5 and gap > 1e-6


# --- regression: exact recovery, agnostic, modes ------------------------------------------


@pytest.mark.parametrize("d", range(2, 9))
@pytest.mark.parametrize("m", [1, 2, 3])
def test_exact_recovery_generalises_to_longer_sequences(m, d):
    rng = np.random.default_rng(100 * d + m)
    teacher = random_heads(m, d, rng=rng)
    X = gaussian_inputs(2 * n_features(d) + 20, 7, d, rng=rng)
    fit = fit_linear_attention(X, attention(X, teacher, kind="linear")[:, -1])
    assert fit.heads.m <= d * d
    X_test = gaussian_inputs(100, 19, d, rng=rng)
    truth = np.array([naive_linear_attention(x, teacher) for x in X_test])
    assert relative_error(attention(X_test, fit.heads, kind="linear")[:, -1], truth) <= 1e-8
    assert relative_error(fit.predict(X_test), truth) <= 1e-8


def test_agnostic_softmax_targets_reach_the_least_squares_optimum():
    rng = np.random.default_rng(7)
    d = 3
    X = gaussian_inputs(300, 6, d, rng=rng)
    teacher = random_heads(2, d, scale=2.0, rng=rng)
    # softmax attention at the last token, computed here without the library
    Y = np.array([sum(softmax(x[-1] @ T @ x.T) @ x @ W for T, W in zip(teacher.Theta, teacher.W, strict=True))
                  for x in X])
    fit = fit_linear_attention(X, Y)
    Raw = np.array([raw_features(x) for x in X])  # d^3 raw features, rank-deficient on purpose
    coef, *_ = np.linalg.lstsq(Raw, Y, rcond=None)
    optimum = np.mean((Raw @ coef - Y) ** 2)
    assert optimum > 1e-3  # not realisable by linear attention
    assert fit.train_loss == pytest.approx(optimum, rel=1e-9)
    # the folded heads compute the same fit
    assert np.mean((attention(X, fit.heads, kind="linear")[:, -1] - Y) ** 2) == pytest.approx(optimum, rel=1e-9)


@pytest.mark.parametrize("causal", [False, True])
def test_every_token_targets(causal):
    rng = np.random.default_rng(8)
    teacher = random_heads(2, 3, rng=rng)
    X = gaussian_inputs(60, 6, 3, rng=rng)
    fit = fit_linear_attention(X, attention(X, teacher, kind="linear", causal=causal), causal=causal)
    assert fit.mode == ("causal" if causal else "all")
    X_test = gaussian_inputs(20, 13, 3, rng=rng)
    truth = attention(X_test, teacher, kind="linear", causal=causal)
    assert relative_error(fit.predict(X_test), truth) < 1e-10
    assert relative_error(attention(X_test, fit.heads, kind="linear", causal=causal), truth) < 1e-10


def test_ragged_sequences_fit_and_predict():
    rng = np.random.default_rng(9)
    teacher = random_heads(1, 3, rng=rng)
    X = [rng.standard_normal((int(n), 3)) for n in rng.integers(2, 12, size=80)]
    Y = np.array([naive_linear_attention(x, teacher) for x in X])
    fit = fit_linear_attention(X, Y)
    X_test = [rng.standard_normal((n, 3)) for n in (1, 20, 5)]
    truth = np.array([naive_linear_attention(x, teacher) for x in X_test])
    assert relative_error(fit.predict(X_test), truth) < 1e-10
    # causal, every token, ragged: targets as a list
    Yc = [attention(x, teacher, kind="linear", causal=True) for x in X]
    fitc = fit_linear_attention(X, Yc, causal=True)
    pred = fitc.predict(X_test)
    for x, p in zip(X_test, pred, strict=True):
        assert relative_error(p, attention(x, teacher, kind="linear", causal=True)) < 1e-10


def test_causal_flag_does_not_change_last_token_fits():
    rng = np.random.default_rng(10)
    X = gaussian_inputs(60, 5, 3, rng=rng)
    Y = rng.standard_normal((60, 3))
    a, b = fit_linear_attention(X, Y), fit_linear_attention(X, Y, causal=True)
    np.testing.assert_allclose(a.coef, b.coef)


def test_heads_from_coef_round_trip_and_bound():
    rng = np.random.default_rng(11)
    for d in (2, 3, 4):
        coef = rng.standard_normal((n_features(d), d))
        heads = heads_from_coef(coef)
        assert heads.m <= d * d
        np.testing.assert_allclose(parameter_map(heads), coef, atol=1e-12 * np.abs(coef).max())
    zero = heads_from_coef(np.zeros((18, 3)))
    assert zero.m == 1 and not zero.W.any()


def test_gradient_descent_budget_approaches_the_exact_fit():
    rng = np.random.default_rng(12)
    X = gaussian_inputs(200, 5, 2, rng=rng)
    Y = attention(X, random_heads(1, 2, rng=rng), kind="linear")[:, -1]
    exact = fit_linear_attention(X, Y)
    losses = [fit_linear_attention(X, Y, steps=k).train_loss for k in (1, 10, 100, 3000)]
    assert all(b < a for a, b in itertools.pairwise(losses))
    far = fit_linear_attention(X, Y, steps=50_000)
    assert parameter_distance(far, exact) < 1e-6 * np.linalg.norm(exact.coef)
    assert far.solver == "gradient descent (50000 steps)"


# --- non-unique minimisers and conditioning -----------------------------------------------


def test_fewer_rows_than_features_warns_and_returns_minimum_norm():
    rng = np.random.default_rng(13)
    X = gaussian_inputs(10, 4, 3, rng=rng)  # 10 < psi = 18
    Y = rng.standard_normal((10, 3))
    with pytest.warns(RuntimeWarning, match="not unique; returning the minimum-norm"):
        fit = fit_linear_attention(X, Y)
    Phi = np.array([naive_features(x) for x in X])
    np.testing.assert_allclose(fit.coef, np.linalg.pinv(Phi) @ Y, atol=1e-10)
    assert fit.train_loss < 1e-20 and fit.rank == 10 and fit.solver == "qr"


def test_boolean_data_warn_rank_deficient_and_match_lstsq():
    rng = np.random.default_rng(14)
    X = boolean_inputs(400, 5, 3, rng=rng)
    Y = rng.standard_normal((400, 3))
    with pytest.warns(RuntimeWarning, match=r"rank 12 < psi=18"):
        fit = fit_linear_attention(X, Y)
    Phi = np.array([naive_features(x) for x in X])
    coef, *_ = np.linalg.lstsq(Phi, Y, rcond=None)
    np.testing.assert_allclose(fit.coef, coef, atol=1e-10)


def test_ill_conditioned_features_fall_back_to_qr_and_stay_accurate():
    rng = np.random.default_rng(15)
    X = boolean_inputs(400, 5, 2, rng=rng) + 1e-4 * rng.standard_normal((400, 5, 2))
    teacher = random_heads(1, 2, rng=rng)
    Y = attention(X, teacher, kind="linear")[:, -1]
    with pytest.warns(RuntimeWarning, match="ill-conditioned"):
        fit = fit_linear_attention(X, Y)
    assert fit.solver == "qr" and fit.rank == 6
    assert parameter_distance(fit, teacher) < 1e-6 * np.linalg.norm(parameter_map(teacher))


def test_well_conditioned_data_do_not_warn():
    rng = np.random.default_rng(16)
    X = gaussian_inputs(200, 5, 3, rng=rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_linear_attention(X, rng.standard_normal((200, 3)))
    assert fit.solver == "cholesky" and fit.rank == 18


# --- certificate --------------------------------------------------------------------------


def test_certificate_matches_naive_second_moment():
    rng = np.random.default_rng(17)
    X = gaussian_inputs(150, 5, 3, rng=rng)
    Phi = np.array([naive_features(x) for x in X])
    eig = np.linalg.eigvalsh(Phi.T @ Phi / 150)
    cert = certificate(X)
    assert cert.identifiable and cert.rank == 18
    assert cert.lam_min == pytest.approx(eig[0], rel=1e-8)
    assert cert.lam_max == pytest.approx(eig[-1], rel=1e-10)


@pytest.mark.parametrize("d,n,N", [(2, 3, 50), (3, 5, 500), (4, 2, 2000), (5, 8, 3000)])
def test_boolean_data_are_never_identifiable(d, n, N):
    rng = np.random.default_rng(d * n)
    cert = certificate(boolean_inputs(N, n, d, rng=rng))
    assert not cert.identifiable
    # the d diagonal Gram entries all equal n, so (d - 1) d feature columns repeat others
    assert cert.rank <= n_features(d) - d * (d - 1)
    assert cert.lam_min == 0.0


@pytest.mark.parametrize("rotate", [False, True])
def test_one_hot_data_are_never_identifiable(rotate):
    rng = np.random.default_rng(18)
    d, n, N = 4, 6, 3000
    X = np.eye(d)[rng.integers(0, d, size=(N, n))]
    if rotate:
        Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        X = X @ Q
    cert = certificate(X)
    assert not cert.identifiable and cert.rank < cert.psi


def test_certificate_on_gaussian_data_is_well_conditioned():
    for d in (2, 3, 4, 6):
        X = gaussian_inputs(3 * n_features(d), 6, d, rng=d)
        cert = certificate(X)
        Phi = np.array([naive_features(x) for x in X])
        eig = np.linalg.eigvalsh(Phi.T @ Phi / len(X))
        assert cert.identifiable and cert.lam_min == pytest.approx(eig[0], rel=1e-6)
        assert cert.lam_min > 1e-4 * cert.lam_max  # far above the rank threshold psi * eps * lam_max


def test_span_form_certifies_agreement_of_all_minimisers():
    rng = np.random.default_rng(19)
    X = boolean_inputs(300, 4, 3, rng=rng)
    Y = rng.standard_normal((300, 3))
    cert = certificate(X)
    with pytest.warns(RuntimeWarning, match=r"rank 12 < psi=18"):  # the d (d - 1) repeated Gram columns
        fit = fit_linear_attention(X, Y)
    # another least-squares minimiser: add a null-space direction of the training features
    Phi = np.array([naive_features(x) for x in X])
    _, s, Vt = np.linalg.svd(Phi)
    null = Vt[np.sum(s > 1e-8 * s[0]):]
    other = fit.coef + null.T @ rng.standard_normal((null.shape[0], 3))
    assert np.mean((Phi @ other - Y) ** 2) == pytest.approx(fit.train_loss, rel=1e-9)
    X_hyper = boolean_inputs(50, 7, 3, rng=rng)  # other hypercube inputs, longer
    X_gauss = gaussian_inputs(50, 7, 3, rng=rng)
    for X_test, expect in ((X_hyper, True), (X_gauss, False)):
        covered = cert.covers(X_test)
        Phi_test = np.array([naive_features(x) for x in X_test])
        gap = np.abs(Phi_test @ fit.coef - Phi_test @ other).max(axis=1)
        assert covered.all() == expect and (~covered).all() == (not expect)
        assert np.all(gap[covered] < 1e-8) and np.all(gap[~covered] > 1e-6)


def test_span_residual_is_zero_on_training_inputs():
    X = boolean_inputs(100, 4, 3, rng=20)
    assert np.all(certificate(X).span_residual(X) < 1e-10)
    assert np.all(certificate(X, causal=True).span_residual(X) < 1e-10)


# --- errors -------------------------------------------------------------------------------


def test_errors_name_what_was_received():
    X = gaussian_inputs(10, 4, 3, rng=0)
    with pytest.raises(ValueError, match=r"Y must have shape \(10, 3\) for last-token targets"):
        fit_linear_attention(X, np.zeros((10, 2)))
    with pytest.raises(ValueError, match="must be finite"):
        fit_linear_attention(np.where(X > 2, np.nan, X), np.zeros((10, 3)))
    with pytest.raises(ValueError, match="batch"):
        fit_linear_attention(X[0], np.zeros(3))
    with pytest.raises(ValueError, match="share the token dimension"):
        cubic_features([np.zeros((3, 2)), np.zeros((3, 4))])
    with pytest.raises(ValueError, match=r"X\[1\] must be one sequence"):
        certificate([np.zeros((3, 2)), np.zeros(3)])
    with pytest.raises(ValueError, match=r"Y\[0\] must have shape \(4, 3\)"):
        fit_linear_attention(list(X), [np.zeros((3, 3))] * 10)
    with pytest.raises(ValueError, match="model expects d=3"):
        fit_linear_attention(gaussian_inputs(30, 4, 3, rng=1), np.zeros((30, 3))).predict(np.zeros((2, 4, 5)))
    with pytest.raises(ValueError, match="coefficient shapes"):
        parameter_distance(random_heads(1, 2, rng=0), random_heads(1, 3, rng=0))
    with pytest.raises(ValueError, match=r"steps must be a positive integer"):
        fit_linear_attention(X, np.zeros((10, 3)), steps=0)
    with pytest.raises(ValueError, match=r"coef must have shape \(psi, d\) = \(18, 3\)"):
        heads_from_coef(np.zeros((17, 3)))


def test_too_large_d_is_refused_before_allocating():
    X = np.ones((2, 3, 80))  # psi = 259,200: the normal equations alone would need about 1.6 TB
    with pytest.raises(MemoryError, match=r"d=80 \(psi=259200 cubic features\) needs about"):
        fit_linear_attention(X, np.zeros((2, 80)))
    with pytest.raises(MemoryError, match="certificate at d=80"):
        certificate(X)
    with pytest.raises(MemoryError, match=r"cubic_features at d=40 \(psi=32800 cubic features\)"):
        cubic_features(np.zeros((200_000, 1, 40)))  # the features would take 52 GB


def test_start_selects_the_nearest_minimiser_and_gradient_descent_converges_to_it():
    rng = np.random.default_rng(21)
    X = boolean_inputs(300, 4, 2, rng=rng)
    Y = rng.standard_normal((300, 2))
    start = rng.standard_normal((6, 2))
    with pytest.warns(RuntimeWarning, match="returning the one nearest to start"):
        near = fit_linear_attention(X, Y, start=start)
    Phi = np.array([naive_features(x) for x in X])
    pinv = np.linalg.pinv(Phi)
    expected = pinv @ Y + (np.eye(6) - pinv @ Phi) @ start  # closest minimiser to start
    np.testing.assert_allclose(near.coef, expected, atol=1e-10)
    descended = fit_linear_attention(X, Y, steps=20_000, start=start)
    np.testing.assert_allclose(descended.coef, expected, atol=1e-6)
    # on full-rank data the start does not matter
    Xg = gaussian_inputs(100, 4, 2, rng=rng)
    Yg = rng.standard_normal((100, 2))
    np.testing.assert_allclose(fit_linear_attention(Xg, Yg, start=start).coef, fit_linear_attention(Xg, Yg).coef)
    with pytest.raises(ValueError, match=r"start must have coefficients of shape \(6, 2\)"):
        fit_linear_attention(Xg, Yg, start=np.zeros((5, 2)))


def test_coefficient_matrix_gives_the_output_and_truncation_is_eckart_young():
    rng = np.random.default_rng(22)
    d = 3
    coef = rng.standard_normal((n_features(d), d))
    M = coefficient_matrix(coef)
    X = rng.standard_normal((5, d))
    G, x = X.T @ X, X[-1]
    y = [sum(x[l] * G[j, k] * M[l * d + j, k * d + a] for l in range(d) for j in range(d) for k in range(d))
         for a in range(d)]
    np.testing.assert_allclose(y, naive_features(X) @ coef, rtol=1e-12)
    s = np.linalg.svd(M, compute_uv=False)
    for k in (1, 4, 9):
        approx = heads_from_coef(coef, max_heads=k)
        assert approx.m == k
        Mk = sum(np.outer(T.ravel(), W.ravel()) for T, W in zip(approx.Theta, approx.W, strict=True))
        gap = np.linalg.norm(Mk - M)
        assert gap == pytest.approx(np.sqrt(np.sum(s[k:] ** 2)), abs=1e-10)


# --- one pass for the fit and the certificate (issue 27) ----------------------------------------


def test_normal_equations_accumulate_every_sub_chunk(monkeypatch):
    """The distinct-entry GEMMs add into C in place: with many chunks and sub-chunks, the naive sums."""
    from attnlib.rkhs import _normal_equations as _ne
    from attnlib.rkhs import _sequences as _seq

    rng = np.random.default_rng(30)
    X = gaussian_inputs(97, 5, 3, rng=rng)
    Y = rng.standard_normal((97, 3))
    monkeypatch.setattr(_ne, "CHUNK_FLOATS", 40 * 31)  # about 40 rows a chunk ...
    monkeypatch.setattr(_ne, "_GEMM_FLOATS", 7 * 21)  # ... and 7 a GEMM: 3 chunks, 15 GEMMs
    seqs = _seq.as_sequences(X)
    ne = _ne.normal_equations(seqs, "last", _seq.as_targets(Y, seqs)[1])
    Phi = np.array([naive_features(x) for x in X])
    np.testing.assert_allclose(ne.gram(), Phi.T @ Phi, rtol=1e-12, atol=1e-12 * np.abs(Phi).max() ** 2)
    np.testing.assert_allclose(ne.B, Phi.T @ Y, rtol=1e-12, atol=1e-12)
    assert ne.rows == 97 and ne.yy == pytest.approx(np.sum(Y**2), rel=1e-14)


def test_fit_agrees_with_exact_lstsq_on_held_out_inputs_to_1e_12():
    rng = np.random.default_rng(31)
    d = 5
    X = gaussian_inputs(400, 6, d, rng=rng)
    Y = rng.standard_normal((400, d))  # no layer: the residual is far from 0
    fit = fit_linear_attention(X, Y)
    Phi = np.array([naive_features(x) for x in X])
    coef, *_ = np.linalg.lstsq(Phi, Y, rcond=None)  # SVD-based, the oracle
    X_test = gaussian_inputs(50, 9, d, rng=rng)
    exact = np.array([naive_features(x) for x in X_test]) @ coef
    assert fit.solver == "cholesky"
    assert relative_error(fit.predict(X_test), exact) <= 1e-12
    assert fit.train_loss == pytest.approx(np.mean((Phi @ coef - Y) ** 2), rel=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_certificate_of_a_fit_is_the_certificate_of_its_data(causal, monkeypatch):
    from attnlib.rkhs import _normal_equations as _ne

    monkeypatch.setattr(_ne, "CHUNK_FLOATS", 17 * 30)  # several chunks: both must sum the rows alike
    rng = np.random.default_rng(32)
    teacher = random_heads(2, 3, rng=rng)
    X = gaussian_inputs(80, 6, 3, rng=rng)
    Y = attention(X, teacher, kind="linear", causal=causal)
    fits = [fit_linear_attention(X, Y if causal else Y[:, -1], causal=causal)]
    fits.append(fit_linear_attention(X, Y if causal else Y[:, -1], causal=causal, steps=5))  # gradient descent
    for fit in fits:
        a, b = fit.certificate(), certificate(X, causal=causal)
        assert (a.lam_min, a.lam_max, a.rank, a.N, a.causal, a.method) == (b.lam_min, b.lam_max, b.rank, b.N,
                                                                           b.causal, b.method)
        np.testing.assert_array_equal(a.eigenvalues, b.eigenvalues)  # the same pass: to the last bit


def test_certificate_of_a_fit_covers_rank_deficiency_and_extreme_scales():
    rng = np.random.default_rng(33)
    X = boolean_inputs(300, 4, 3, rng=rng)
    with pytest.warns(RuntimeWarning, match="not unique"):
        fit = fit_linear_attention(X, rng.standard_normal((300, 3)))  # the QR fallback
    cert = fit.certificate()
    assert not cert.identifiable and cert.rank == certificate(X).rank == 12
    X_test = gaussian_inputs(20, 5, 3, rng=rng)
    np.testing.assert_array_equal(cert.span_residual(X_test), certificate(X).span_residual(X_test))
    Xg = gaussian_inputs(200, 5, 3, rng=rng) * 1e30
    big = fit_linear_attention(Xg, rng.standard_normal((200, 3))).certificate()
    assert big.scale == certificate(Xg).scale > 1 and big.lam_min == certificate(Xg).lam_min


def test_certificate_of_an_every_token_fit_is_refused():
    X = gaussian_inputs(60, 6, 3, rng=34)
    fit = fit_linear_attention(X, attention(X, random_heads(1, 3, rng=35), kind="linear"))
    assert fit.mode == "all"
    with pytest.raises(ValueError, match=r"every token with the full Gram matrix"):
        fit.certificate()


@pytest.fixture
def bracket_path(monkeypatch):
    """The certificate's Cholesky bracket at any size (it starts above 1000 features)."""
    from attnlib.rkhs import identifiability

    monkeypatch.setattr(identifiability, "_DENSE_UP_TO", 0)


def test_bracket_certificate_matches_the_naive_spectrum(bracket_path):
    rng = np.random.default_rng(36)
    X = gaussian_inputs(400, 6, 4, rng=rng)
    Phi = np.array([naive_features(x) for x in X])
    eig = np.linalg.eigvalsh(Phi.T @ Phi / 400)
    cert = certificate(X)
    assert cert.method == "cholesky" and cert.identifiable and cert.rank == 40
    low, high = cert.lam_min_bounds
    assert low <= eig[0] <= high and high - low <= 2e-3 * eig[0]
    assert cert.lam_min == pytest.approx(eig[0], rel=1e-8)
    assert cert.lam_max == pytest.approx(eig[-1], rel=1e-10)
    np.testing.assert_allclose(cert.eigenvalues, eig, rtol=1e-9, atol=1e-12 * eig[-1])  # computed when asked
    assert np.all(cert.span_residual(gaussian_inputs(5, 7, 4, rng=rng)) == 0.0)  # the range is all of R^psi
    # the fit's factor serves the same bracket
    fit = fit_linear_attention(X, rng.standard_normal((400, 4)))
    assert fit.certificate().lam_min_bounds == cert.lam_min_bounds


def test_bracket_certificate_falls_back_to_eigh_for_singular_data(bracket_path):
    X = boolean_inputs(500, 5, 3, rng=37)
    cert = certificate(X)
    assert cert.method == "eigh" and not cert.identifiable and cert.rank == 12 and cert.lam_min == 0.0
