"""Tests of attnlib.rkhs.identifiability: the certificate Lambda_D, its span form and its bracket (chapter 5)."""


import numpy as np
import pytest
from _oracles import naive_features
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import boolean_inputs, gaussian_inputs
from attnlib.rkhs import (
    certificate,
    fit_linear_attention,
    n_features,
)


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


# --- scale invariance and bad input (moved from tests/test_bad_input.py) -------------------------
XL = gaussian_inputs(40, 4, 2, rng=3)


@pytest.mark.parametrize("c", [1e60, 1e-60, 1e150, 1e-100])
def test_certificate_is_scale_invariant(c):
    """certificate(XL * 1e60) raised LinAlgError and certificate(XL * 1e-60) said rank 0."""
    plain = certificate(XL)
    scaled = certificate(XL * c)
    assert scaled.identifiable and scaled.rank == plain.rank == scaled.psi
    assert scaled.scale != 1.0
    # the eigenvalues are those of XL * c / scale, i.e. plain's times (c / scale)**6
    np.testing.assert_allclose(scaled.eigenvalues, plain.eigenvalues * (c / scaled.scale) ** 6, rtol=1e-8)
    assert "of X /" in repr(scaled)


def test_certificate_of_ordinary_data_is_not_rescaled():
    cert = certificate(XL)
    assert cert.scale == 1.0 and "of X /" not in repr(cert)


def test_singular_data_stay_singular_at_every_scale():
    Xb = boolean_inputs(200, 5, 2, rng=0)
    for c in (1.0, 1e60, 1e-60):
        cert = certificate(Xb * c)
        assert not cert.identifiable and cert.rank == 4


@settings(max_examples=40, deadline=None)
@given(st.floats(-90, 90), st.integers(0, 2**16))
def test_certificate_verdict_is_scale_invariant(log_scale, seed):
    Xg = gaussian_inputs(30, 4, 2, rng=seed)
    assert certificate(Xg * 10.0**log_scale).rank == certificate(Xg).rank


@pytest.mark.parametrize("text", ["False", "True"])
def test_causal_must_be_a_bool_not_text(text):
    with pytest.raises(TypeError, match=r"causal must be True or False; received '(True|False)' \(str\)"):
        certificate(XL, causal=text)


def test_causal_accepts_a_numpy_bool():
    assert certificate(XL, causal=np.False_).identifiable


def test_complex_X_is_refused():
    with pytest.raises(TypeError, match=r"X must be real"):
        certificate(XL + 1j)


def test_span_residual_names_test_inputs_of_another_dimension():
    with pytest.raises(ValueError, match="X has token dimension 3 but the model expects d=2"):
        certificate(boolean_inputs(50, 4, 2, rng=0)).span_residual(np.ones((2, 4, 3)))
