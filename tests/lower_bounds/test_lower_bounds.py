"""Tests for attnlib.lower_bounds: the parity family, its exact spectrum, the SQ count, gradient descent."""

import itertools
import math
import warnings

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs
from attnlib.lower_bounds import (
    FourierSpectrum,
    alternating_sigmoid_sum,
    boolean_cube,
    decode_parity_examples,
    fourier_spectrum,
    gd_experiment,
    low_degree_regression,
    parity_betas,
    parity_coefficients,
    parity_heads,
    parity_instance,
    search_parity_betas,
    sq_correlations,
    sq_query_lower_bound,
)


def sigmoid(t):
    return 1.0 / (1.0 + np.exp(-t))


def closed_form(X, S, r):
    """F(X)[:, 0, 0] = 2 x_{2r} + (x_{1r} - x_{2r}) chi_S(x_1) chi_S(x_2), written out here."""
    chi = np.ones(X.shape[0])
    for j in S:
        chi = chi * X[:, 0, j] * X[:, 1, j]
    return 2 * X[:, 1, r] + (X[:, 0, r] - X[:, 1, r]) * chi


def all_cube(n, d):
    """Every input as a plain itertools product (independent of boolean_cube's bit order)."""
    return np.array(list(itertools.product([-1.0, 1.0], repeat=n * d))).reshape(-1, n, d)


# --- shape ---------------------------------------------------------------------------------------


def test_parity_instance_shapes():
    inst = parity_instance(7, 3, rng=0)
    assert isinstance(inst.heads, Heads)
    assert (inst.m, inst.d, inst.s) == (4, 7, 3)
    assert inst.heads.Theta.shape == inst.heads.W.shape == (4, 7, 7)
    assert inst.betas.shape == inst.coefficients.shape == (4,)
    assert len(inst.support) == 3 and inst.readout == 6 and 6 not in inst.support
    assert "S=" in repr(inst)
    assert parity_heads(7, 3, rng=0).m == 4


# --- oracle --------------------------------------------------------------------------------------


@pytest.mark.parametrize("s", [1, 2, 3, 4])
def test_coefficients_solve_the_alternating_system(s):
    betas = parity_betas(s)
    c = parity_coefficients(s)
    for j in range(s + 1):
        total = sum(c[i] * sigmoid(2 * betas[i] * j) for i in range(s + 1))
        assert total == pytest.approx((-1) ** j, abs=1e-10)
    assert c.sum() == pytest.approx(2.0, abs=1e-10)


@pytest.mark.parametrize("d, s", [(2, 1), (5, 2), (6, 3), (8, 5)])
def test_output_is_linear_term_plus_parity(d, s):
    inst = parity_instance(d, s, rng=d + s)
    X = boolean_inputs(500, 2, d, rng=1)
    F = attention(X, inst.heads)
    r = d - 1
    np.testing.assert_allclose(F[:, 0, 0], closed_form(X, inst.support, r), atol=1e-9)
    np.testing.assert_allclose(F[:, 1, 0], closed_form(X[:, ::-1], inst.support, r), atol=1e-9)  # mirror
    np.testing.assert_allclose(F[:, :, 1:], 0.0, atol=1e-12)
    np.testing.assert_allclose(inst.formula(X), F, atol=1e-9)


def test_done_when_spectrum_at_d6_s2():
    """Correlation with every monomial of degree 2..2s is < 1e-12; nonzero at 2s+1; degree 1 is 2 x_{2,r}."""
    d, s = 6, 2
    inst = parity_instance(d, s, rng=0)
    X = all_cube(2, d)
    y = attention(X, inst.heads)[:, 0, 0]
    Z = X.reshape(X.shape[0], -1)
    r = d - 1
    for k in range(1, 2 * s + 2):
        corr = {T: float(np.mean(y * np.prod(Z[:, list(T)], axis=1))) for T in itertools.combinations(range(2 * d), k)}
        if 2 <= k <= 2 * s:
            assert max(abs(v) for v in corr.values()) < 1e-12
        elif k == 1:
            expected = {(d + r,): 2.0}  # the variable x_{2,r}
            for T, v in corr.items():
                assert v == pytest.approx(expected.get(T, 0.0), abs=1e-12)
        else:
            S = inst.support
            plus = tuple(sorted(list(S) + [d + j for j in S] + [r]))
            minus = tuple(sorted(list(S) + [d + j for j in S] + [d + r]))
            assert corr[plus] == pytest.approx(1.0, abs=1e-12)
            assert corr[minus] == pytest.approx(-1.0, abs=1e-12)
            assert sum(abs(v) > 1e-12 for v in corr.values()) == 2
    spec = fourier_spectrum(inst.heads)
    assert spec.max_abs_by_degree()[2 : 2 * s + 1].max() < 1e-12
    assert spec.coefficient([(1, r)]) == pytest.approx(2.0, abs=1e-12)


@pytest.mark.parametrize("s", [1, 2])
def test_regression_on_whole_cube_fails_until_degree_2s_plus_1(s):
    d = 4
    inst = parity_instance(d, s, rng=3)
    X = all_cube(2, d)
    y = closed_form(X, inst.support, d - 1)
    # E[y^2] = 4 + 2; the linear term 2 x_{2,r} removes 4; the parity part (variance 2) needs degree 2s + 1
    for D in range(2 * s + 2):
        fit = low_degree_regression(X, y, D)
        expected = 6.0 if D == 0 else 2.0 if D <= 2 * s else 0.0
        assert fit.train_mse == pytest.approx(expected, abs=1e-9)


def test_decoded_examples_are_parity_examples():
    inst = parity_instance(7, 3, rng=8)
    X = boolean_inputs(300, 2, 7, rng=9)
    Z, chi = decode_parity_examples(X, attention(X, inst.heads)[:, 0, 0], readout=6)
    keep = X[:, 0, 6] != X[:, 1, 6]
    assert Z.shape == (keep.sum(), 6)
    expected = np.array([np.prod([x[0, j] * x[1, j] for j in inst.support]) for x in X[keep]])
    np.testing.assert_array_equal(chi, expected)


# --- property ------------------------------------------------------------------------------------


def test_spectrum_satisfies_parseval_and_custom_betas_give_same_function():
    inst = parity_instance(5, 2, rng=5)
    other = parity_instance(5, 2, betas=[0.1, 0.7, 2.0], rng=5)
    assert other.support == inst.support
    a, b = fourier_spectrum(inst.heads), fourier_spectrum(other.heads)
    np.testing.assert_allclose(a.coefficients, b.coefficients, atol=1e-10)
    values = attention(boolean_cube(2, 5), inst.heads)[:, 0, 0]
    assert a.weight_by_degree().sum() == pytest.approx(np.mean(values**2), rel=1e-12)
    assert a.truncation_error(4) == pytest.approx(2.0, abs=1e-10) and a.truncation_error(5) < 1e-20
    assert len(a.support()) == 3 and isinstance(a, FourierSpectrum)


def test_weights_grow_with_s():
    sums = [np.abs(parity_coefficients(s)).sum() for s in range(1, 8)]
    assert all(b > 2.5 * a for a, b in zip(sums, sums[1:], strict=False))


def alternating_by_loop(s, beta):
    """sum_k C(s, k) (-1)^k sigmoid(2 beta k), one term at a time with math.exp."""
    def sig(t):
        return 1.0 / (1.0 + math.exp(-t)) if t >= 0 else math.exp(t) / (1.0 + math.exp(t))
    return sum(math.comb(s, k) * (-1) ** k * sig(2.0 * beta * k) for k in range(s + 1))


def alternating_by_series(s, beta):
    """For beta > 0: 1/2 - sum_{n >= 0} (-1)^n (1 - (1 - q^n)^s), q = exp(-2 beta) (the proof's series)."""
    q, total, n = math.exp(-2.0 * beta), 0.0, 0
    while True:
        term = 1.0 - (1.0 - q**n) ** s
        total += (-1) ** n * term
        n += 1
        if n > 1 and term < 1e-17:
            return 0.5 - total


@pytest.mark.parametrize("s", [1, 2, 3, 5, 8])
def test_alternating_sum_matches_a_loop_and_the_series_of_the_proof(s):
    betas = np.array([-7.0, -0.9, -0.05, 0.0, 0.02, 0.35, 1.3, 4.0, 25.0])
    got = alternating_sigmoid_sum(s, betas)
    np.testing.assert_allclose(got, [alternating_by_loop(s, b) for b in betas], atol=1e-12)
    for b, value in zip(betas, got, strict=True):
        if b >= 0.02:
            assert value == pytest.approx(alternating_by_series(s, b), abs=1e-10)
    assert alternating_sigmoid_sum(s, np.zeros((2, 3))).shape == (2, 3)


@pytest.mark.parametrize("s", range(1, 9))
def test_alternating_sum_is_odd_and_bounded_by_one_half(s):
    betas = np.linspace(0.0, 30.0, 30_001)
    T = alternating_sigmoid_sum(s, betas)
    np.testing.assert_allclose(alternating_sigmoid_sum(s, -betas), -T, atol=2**s * 1e-15)  # cancellation near 0
    assert np.abs(T).max() <= 0.5 + 1e-12
    assert T[-1] == pytest.approx(-0.5, abs=1e-12)  # a hard head attains the bound


def test_weights_are_at_least_two_to_the_s_plus_one_for_any_scales():
    rng = np.random.default_rng(13)
    combo_of = {s: np.array([math.comb(s, j) * (-1) ** j for j in range(s + 1)]) for s in range(1, 7)}
    for s in range(1, 7):
        # the default scales, and random signed scales (a triple -b, 0, b is singular, so keep the
        # well-conditioned draws: the bound holds for all, but only those give accurate weights)
        draws = [parity_betas(s)] + [rng.uniform(-2, 0.5) + np.cumsum(rng.uniform(0.1, 0.8, size=s + 1))
                                     for _ in range(40)]
        kept = 0
        for betas in draws:
            M = 1.0 / (1.0 + np.exp(-2.0 * np.outer(np.arange(s + 1), betas)))  # M[j, i] = sigmoid(2 beta_i j)
            if np.linalg.cond(M) > 1e7:
                continue
            kept += 1
            c = parity_coefficients(s, betas=betas)
            assert combo_of[s] @ M @ c == pytest.approx(2.0**s, rel=1e-6)  # rows combined: sum_i c_i T(beta_i)
            assert np.abs(c).sum() >= 2.0 ** (s + 1) * (1 - 1e-9)
        assert kept >= 10
    # tight at s = 1 in the limit of opposite hard heads: c -> (3, -1)
    assert np.abs(parity_coefficients(1, betas=[-20.0, 20.0])).sum() == pytest.approx(4.0, abs=1e-12)


def total_weight_by_solve(betas):
    """sum |c| for a batch of scale vectors (..., s + 1), from the system written out here."""
    betas = np.asarray(betas, dtype=float)
    j = np.arange(betas.shape[-1])
    M = 1.0 / (1.0 + np.exp(-2.0 * j[:, None] * betas[..., None, :]))  # (..., s + 1, s + 1): M[j, i]
    c = np.linalg.solve(M, np.broadcast_to((-1.0) ** j, betas.shape)[..., None])[..., 0]
    return np.abs(c).sum(axis=-1)


def test_scale_search_beats_a_grid_and_reports_its_own_weights():
    # oracle: an exhaustive grid over non-negative scales at s = 2 (beta_0 = 0, the other two on a grid)
    grid = np.linspace(0.02, 3.0, 150)
    b1, b2 = np.meshgrid(grid, np.r_[grid, 20.0], indexing="ij")
    keep = b2 > b1 + 1e-9
    candidates = np.stack([np.zeros(keep.sum()), b1[keep], b2[keep]], axis=1)
    grid_best = total_weight_by_solve(candidates).min()
    found = search_parity_betas(2, rng=0)
    assert found.total <= grid_best * (1 + 1e-3)
    assert found.total == pytest.approx(total_weight_by_solve(found.betas), rel=1e-9)
    assert found.default_total == pytest.approx(total_weight_by_solve(parity_betas(2)), rel=1e-12)
    assert found.ratio >= 1 and np.all(found.betas >= 0) and np.all(np.diff(found.betas) > 0)
    assert "non-negative" in repr(found) and not found.betas.flags.writeable


@pytest.mark.parametrize("s", [1, 2, 3, 4])
def test_scale_search_respects_the_bound_and_signed_scales_do_better(s):
    plain, signed = search_parity_betas(s, rng=1), search_parity_betas(s, signed=True, rng=1)
    assert 2.0 ** (s + 1) * (1 - 1e-9) <= signed.total <= plain.total * (1 + 1e-9) <= plain.default_total * (1 + 1e-9)
    assert signed.total == pytest.approx(total_weight_by_solve(signed.betas), rel=1e-6)
    assert (plain.s, plain.signed, signed.signed, plain.starts) == (s, False, True, 5)


def test_scale_search_at_s1_reaches_the_closed_forms():
    # non-negative: c_1 = -(1 + 2 sigma_0) / (sigma_1 - sigma_0) is smallest at sigma_0 = 1/2, sigma_1 = 1: sum 10;
    # signed: the infimum is the bound 4, approached by opposite hard heads
    assert search_parity_betas(1, rng=2).total == pytest.approx(10.0, abs=1e-6)
    assert search_parity_betas(1, signed=True, rng=2).total == pytest.approx(4.0, abs=1e-6)


def test_gradient_descent_learns_s1():
    run = gd_experiment(6, 1, N=512, N_test=256, epochs=60, rng=0)
    assert run.loss.shape == run.test_loss.shape == (61,)
    assert run.trivial == pytest.approx(2 / 6)
    assert run.relative_test_loss[-1] < 0.5 < 1 < run.relative_test_loss[0]  # below what any degree-2 fit can do
    assert "GDRun" in repr(run)


def test_ill_conditioned_weights_warn():
    with pytest.warns(RuntimeWarning, match="ill-conditioned"):
        parity_coefficients(11)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parity_coefficients(6)


# --- errors --------------------------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match="s must be a positive integer; received 0"):
        parity_instance(5, 0)
    with pytest.raises(TypeError, match="s must be a positive integer"):
        parity_instance(5, 1.5)
    with pytest.raises(ValueError, match="d=3 is too small for s=3"):
        parity_instance(3, 3)
    with pytest.raises(ValueError, match=r"betas must have shape \(s \+ 1,\) = \(3,\)"):
        parity_coefficients(2, betas=[0.0, 1.0])
    with pytest.raises(ValueError, match="betas must be distinct"):
        parity_coefficients(2, betas=[0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="position must be in"):
        fourier_spectrum(parity_heads(3, 1, rng=0), position=2)
    with pytest.raises(ValueError, match="n=2 tokens"):
        parity_instance(4, 1, rng=0).formula(boolean_inputs(3, 3, 4, rng=0))
    with pytest.raises(ValueError, match="readout must be a coordinate"):
        decode_parity_examples(boolean_inputs(3, 2, 4, rng=0), np.zeros(3), readout=4)
    with pytest.raises(ValueError, match="s must be a positive integer; received 0"):
        alternating_sigmoid_sum(0, [1.0])
    with pytest.raises(ValueError, match="betas must be finite"):
        alternating_sigmoid_sum(2, [0.0, np.inf])
    with pytest.raises(ValueError, match=r"tolerance must be a finite number in \(0, 1\]"):
        sq_query_lower_bound(10, 2, 1.5)
    with pytest.raises(TypeError, match="signed must be True or False; received 'yes'"):
        search_parity_betas(2, signed="yes")
    with pytest.raises(ValueError, match="starts must be"):
        search_parity_betas(2, starts=0)
    with pytest.raises(ValueError, match="all 2\\*\\*\\(2\\*d\\)"):
        sq_correlations(np.ones(16), 3, 1)
