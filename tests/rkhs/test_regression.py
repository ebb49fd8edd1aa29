"""Tests of attnlib.rkhs.regression: Algorithm 1, its solvers, and the certificate of a fit (chapter 4)."""

import itertools
import os
import warnings

import numpy as np
import pytest
from _oracles import naive_features, naive_linear_attention, raw_features, relative_error

from attnlib import attention, boolean_inputs, gaussian_inputs, random_heads, softmax
from attnlib.rkhs import (
    Certificate,
    LinearFit,
    certificate,
    fit_linear_attention,
    n_features,
    parameter_distance,
    parameter_map,
)


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


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_normal_equations_accumulate_every_block(monkeypatch, workers):
    """Every chunk adds into every block of C, on every worker: with many chunks and blocks, the naive sums."""
    from attnlib.rkhs import _normal_equations as _ne
    from attnlib.rkhs import _sequences as _seq

    rng = np.random.default_rng(30)
    X = gaussian_inputs(97, 5, 3, rng=rng)
    Y = rng.standard_normal((97, 3))
    monkeypatch.setattr(_ne, "_gemm_rows", lambda d: 40)  # 40 rows a chunk: 3 chunks ...
    monkeypatch.setattr(_ne, "_BLOCK_ROWS", 4)  # ... 21 rows of C in blocks of 4, which cut across p
    monkeypatch.setattr(_ne, "_workers", lambda *sizes: workers)
    seqs = _seq.as_sequences(X)
    ne = _ne.normal_equations(seqs, "last", _seq.as_targets(Y, seqs)[1])
    Phi = np.array([naive_features(x) for x in X])
    np.testing.assert_allclose(ne.gram(), Phi.T @ Phi, rtol=1e-12, atol=1e-12 * np.abs(Phi).max() ** 2)
    np.testing.assert_allclose(ne.B, Phi.T @ Y, rtol=1e-12, atol=1e-12)
    assert ne.rows == 97 and ne.yy == pytest.approx(np.sum(Y**2), rel=1e-14)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_sequence_longer_than_a_chunk_is_one_chunk(monkeypatch, workers):
    """Causal targets: a chunk holds whole sequences, so one of 23 tokens is a chunk of 23 rows when chunks
    are meant to hold 8; the pass must make room for it, and still give the naive sums."""
    from attnlib.rkhs import _normal_equations as _ne
    from attnlib.rkhs import _sequences as _seq

    rng = np.random.default_rng(32)
    X = [rng.standard_normal((n, 3)) for n in (4, 23, 5, 23)]
    Y = [rng.standard_normal((n, 3)) for n in (4, 23, 5, 23)]
    monkeypatch.setattr(_ne, "_gemm_rows", lambda d: 8)
    monkeypatch.setattr(_ne, "_BLOCK_ROWS", 5)
    monkeypatch.setattr(_ne, "_workers", lambda *sizes: workers)
    seqs = _seq.as_sequences(X)
    ne = _ne.normal_equations(seqs, "causal", _seq.as_targets(Y, seqs)[1])
    Phi = np.array([naive_features(x[: t + 1]) for x in X for t in range(len(x))])  # prefix t sees tokens <= t
    np.testing.assert_allclose(ne.gram(), Phi.T @ Phi, rtol=1e-12, atol=1e-12 * np.abs(Phi).max() ** 2)
    np.testing.assert_allclose(ne.B, Phi.T @ np.concatenate(Y), rtol=1e-12, atol=1e-12)


def test_the_normal_equations_are_the_same_to_the_last_bit_on_any_number_of_threads(monkeypatch):
    """Each entry of C is summed over the same chunks in the same order, whichever worker owns its block."""
    from attnlib.rkhs import _normal_equations as _ne
    from attnlib.rkhs import _sequences as _seq

    rng = np.random.default_rng(33)
    X = gaussian_inputs(300, 6, 4, rng=rng)
    seqs = _seq.as_sequences(X)
    targets = _seq.as_targets(rng.standard_normal((300, 4)), seqs)[1]
    monkeypatch.setattr(_ne, "_gemm_rows", lambda d: 64)
    monkeypatch.setattr(_ne, "_BLOCK_ROWS", 16)
    passes = []
    for workers in (1, 2, 3):
        monkeypatch.setattr(_ne, "_workers", lambda *sizes, w=workers: w)
        passes.append(_ne.normal_equations(seqs, "last", targets))
    for other in passes[1:]:
        assert np.array_equal(other.C, passes[0].C) and np.array_equal(other.B, passes[0].B)


def test_the_pass_uses_the_threads_the_blas_may_use():
    """As many workers as numpy's BLAS threads when a chunk's work is worth sharing; else none (plain numpy)."""
    from threadpoolctl import threadpool_limits

    from attnlib.rkhs import _normal_equations as _ne

    big = (9316, 136, 10**6)  # d = 16: P(P+1)/2 rows of C, d(d+1)/2 columns
    with threadpool_limits(1, user_api="blas"):
        assert _ne._workers(*big) == 1
    with threadpool_limits(2, user_api="blas"):
        assert _ne._workers(*big) == min(2, os.cpu_count() or 1)
        assert _ne._workers(21, 6, 10**6) is None  # d = 3: too little work a chunk to share


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


# --- scales and bad input (moved from tests/test_bad_input.py) -----------------------------------
XL = gaussian_inputs(40, 4, 2, rng=3)
YLL = attention(XL, random_heads(1, 2, rng=4), kind="linear")[:, -1]


@pytest.mark.parametrize("c", [1e60, 1e-60])
def test_fit_handles_the_scales_the_certificate_handles(c):
    """The fit, too, divides X by a power of two: the same solver and loss as at scale 1."""
    plain = fit_linear_attention(XL, YLL)
    fit = fit_linear_attention(XL * c, YLL)
    assert fit.solver == plain.solver and np.isfinite(fit.coef).all()
    np.testing.assert_allclose(fit.predict(XL * c), YLL, atol=1e-9)
    np.testing.assert_allclose(fit.coef * c**3, plain.coef, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("c", [1e120, 1e-120])
def test_fit_whose_coefficients_do_not_fit_in_float64_names_X(c):
    with pytest.raises(ValueError, match=r"coefficients for data X of this size do not fit in float64"):
        fit_linear_attention(XL * c, YLL)


@pytest.mark.parametrize("text", ["False", "True"])
def test_causal_must_be_a_bool_not_text(text):
    with pytest.raises(TypeError, match=r"causal must be True or False; received '(True|False)' \(str\)"):
        fit_linear_attention(XL, YLL, causal=text)


def test_start_must_be_a_layer():
    with pytest.raises(TypeError, match=r"^start must be"):
        fit_linear_attention(XL, YLL, start="abc")
    with pytest.raises(ValueError, match=r"start must have coefficients of shape \(6, 2\)"):
        fit_linear_attention(XL, YLL, start=random_heads(1, 3, rng=0))
