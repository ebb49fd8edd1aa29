"""Tests for attnlib.sculpt.compare and attnlib.sculpt.diagnostics: same data for every method, honest scores."""

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs
from attnlib.sculpt import (
    METHODS,
    Comparison,
    SculptReport,
    compare_methods,
    crude_sum_W,
    learn,
    planted_instance,
    sweep,
)
from attnlib.sculpt.compare import relative_test_error
from attnlib.sculpt.diagnostics import LayerErrors, phase_diagnostics, single_head_curve


@pytest.fixture(scope="module")
def instance():
    rng = np.random.default_rng(0)
    teacher = planted_instance(2, 4, rng=rng)
    X = boolean_inputs(3000, 3, 4, rng=rng)
    X_test = boolean_inputs(500, 3, 4, rng=rng)
    return teacher, X, attention(X, teacher), X_test, attention(X_test, teacher)


def test_relative_test_error_matches_its_definition(instance):
    teacher, _, _, X_test, Y_test = instance
    other = Heads(teacher.Theta * 1.1, teacher.W)
    F = attention(X_test, other)
    expected = np.sqrt(np.sum((F - Y_test) ** 2) / np.sum(Y_test**2))
    assert relative_test_error(other, X_test, Y_test) == pytest.approx(expected, rel=1e-12)
    assert relative_test_error(teacher, X_test, Y_test) == 0.0


def test_compare_methods_reports_every_method(instance):
    teacher, X, Y, X_test, Y_test = instance
    out = compare_methods(X, Y, 2, X_test, Y_test, methods=METHODS[:3], restarts=2, rng=1)
    assert isinstance(out, Comparison) and out.methods == METHODS[:3]
    assert [run.method for run in out.runs] == list(METHODS[:3])
    sp, nop, rand = out["sculpt_polish"], out["sculpt_no_polish"], out["polish_random"]
    assert sp.error < 1e-8 and sp.failed_phase is None and sp.certified
    assert nop.error > 1e-3 and not nop.certified and nop.starts == 1  # the raw candidate is not certified
    assert 1 <= sp.starts <= 2 and sp.starts == sp.report.polish.starts
    assert 1 <= rand.starts <= 2 and rand.certified == (rand.error < 1e-3)
    # the test error reported is the one of the layer returned, recomputed here independently
    heads = sp.report.heads
    F = attention(X_test, heads)
    assert sp.error == pytest.approx(np.linalg.norm(F - Y_test) / np.linalg.norm(Y_test), rel=1e-9, abs=1e-15)
    # sculpting without the polish is timed on its own, and scores the candidate the polish started from
    assert nop.seconds > 0 and nop.seconds != pytest.approx(sp.seconds - sp.report.seconds.polish, abs=0)
    F = attention(X_test, sp.report.candidates.best)
    assert nop.error == pytest.approx(np.linalg.norm(F - Y_test) / np.linalg.norm(Y_test), rel=1e-12)
    with pytest.raises(KeyError, match="'adam' was not run"):
        out["adam"]


def test_compare_methods_gives_every_method_the_same_starts(instance):
    """Adam never reaches the acceptance threshold in 5 epochs, so it must use the whole budget."""
    teacher, X, Y, X_test, Y_test = instance
    out = compare_methods(X[:300], Y[:300], 2, X_test, Y_test, methods=["adam"], restarts=3, adam_epochs=5, rng=1)
    assert out["adam"].starts == 3 and not out["adam"].certified


def test_a_method_runs_the_same_alone_or_with_others(instance):
    """Every method has its own random stream: running it alone gives the same answer."""
    teacher, X, Y, X_test, Y_test = instance
    both = compare_methods(X[:500], Y[:500], 2, X_test, Y_test, methods=("lbfgs", "polish_random"), restarts=2, rng=4)
    alone = compare_methods(X[:500], Y[:500], 2, X_test, Y_test, methods=("polish_random",), restarts=2, rng=4)
    assert both["polish_random"].error == alone["polish_random"].error


def test_compare_methods_rejects_unknown_methods(instance):
    teacher, X, Y, X_test, Y_test = instance
    with pytest.raises(ValueError, match="methods must be a non-empty list of distinct names"):
        compare_methods(X, Y, 2, X_test, Y_test, methods=["gradient magic"])
    with pytest.raises(ValueError, match="methods must be"):
        compare_methods(X, Y, 2, X_test, Y_test, methods=["sculpt + polish"])  # a label, not an identifier


def test_sweep_shapes_and_rates():
    out = sweep([4.0], [1000], seeds=2, methods=["polish_random"], restarts=2, rng=0)
    assert out.success["polish_random"].shape == (1, 1)
    assert out.starts["polish_random"].shape == (1, 1, 2)
    assert np.all((out.starts["polish_random"] >= 1) & (out.starts["polish_random"] <= 2))
    assert out.errors["polish_random"].shape == (1, 1, 2)
    rate = np.mean(out.errors["polish_random"] <= 1e-3)
    assert out.success["polish_random"][0, 0] == rate


def test_phase_diagnostics_measure_against_the_teacher(instance):
    teacher, X, Y, X_test, Y_test = instance
    report = learn(X, Y, 2, rng=2).report
    diag = phase_diagnostics(report, teacher, X_test, Y_test)
    S = teacher.W.sum(0)
    assert diag.sum_W.final == pytest.approx(np.linalg.norm(report.sculpted.sum_W - S) / np.linalg.norm(S))
    assert diag.sum_W.crude == pytest.approx(np.linalg.norm(crude_sum_W(X, Y) - S) / np.linalg.norm(S))
    assert diag.geometry.random_span == pytest.approx(np.sqrt(1 / 15))
    assert diag.errors.final < 1e-8 and diag.errors.pre_polish > 1e-3
    assert diag.errors.pre_polish in (diag.errors.face, diag.errors.net)
    assert diag.seconds is report.seconds
    # a partial report (a failed run) gives partial diagnostics
    partial = phase_diagnostics(SculptReport(sum_w=report.sum_w), teacher, X_test, Y_test)
    assert partial.sum_W.phase1 == diag.sum_W.phase1 and partial.sum_W.final is None
    assert partial.errors == LayerErrors() and partial.geometry.proxy_cosine is None


def test_single_head_curve_marks_failures_as_one():
    from attnlib import random_heads

    head = random_heads(1, 4, rng=0)
    X = boolean_inputs(40, 3, 4, rng=1)
    err_W, err_T = single_head_curve(X, attention(X, head), head, [1, 40])
    assert err_W[0] == 1.0 and err_T[0] == 1.0 and err_W[1] < 1e-8


@pytest.mark.parametrize("method, scipy_method", [("wilson", "wilson"), ("clopper-pearson", "exact")])
def test_binomial_interval_matches_scipy(method, scipy_method):
    """An independent oracle: scipy.stats.binomtest's proportion_ci, over small and large counts."""
    from scipy.stats import binomtest

    from attnlib.sculpt import binomial_interval

    for k, n in [(0, 1), (1, 1), (0, 12), (11, 12), (12, 12), (45, 48), (44, 48), (20, 23), (200, 200), (3, 1000)]:
        for confidence in (0.9, 0.95, 0.99):
            low, high = binomial_interval(k, n, confidence=confidence, method=method)
            ref = binomtest(k, n).proportion_ci(confidence_level=confidence, method=scipy_method)
            assert low == pytest.approx(ref.low, abs=1e-9) and high == pytest.approx(ref.high, abs=1e-9)
            assert 0.0 <= low <= high <= 1.0
            if method == "wilson":
                assert low <= k / n <= high


def test_binomial_interval_covers_at_its_level():
    """Exact coverage by enumeration: Wilson's 95% interval covers p about 95% of the time, Clopper-Pearson at least."""
    from scipy.stats import binom

    from attnlib.sculpt import binomial_interval

    n = 40
    intervals = {m: [binomial_interval(k, n, method=m) for k in range(n + 1)] for m in ("wilson", "clopper-pearson")}
    for p in (0.5, 0.8, 0.9):
        pmf = binom.pmf(np.arange(n + 1), n, p)
        cover = {m: sum(pmf[k] for k, (lo, hi) in enumerate(iv) if lo <= p <= hi) for m, iv in intervals.items()}
        assert cover["clopper-pearson"] >= 0.95
        assert 0.90 <= cover["wilson"] <= 0.99


def test_binomial_interval_rejects_impossible_counts():
    from attnlib.sculpt import binomial_interval

    with pytest.raises(ValueError, match="successes must be at most trials"):
        binomial_interval(5, 4)
    with pytest.raises(ValueError, match=r"confidence must be a finite number in \(0, 1\)"):
        binomial_interval(1, 4, confidence=1.0)
    with pytest.raises(ValueError, match="method"):
        binomial_interval(1, 4, method="normal")


def test_single_starts_runs_each_kind_by_the_one_rule(instance):
    """Recompute the sculpted, perturbed and random starts independently from the same random streams."""
    from attnlib import random_heads
    from attnlib.sculpt import START_KINDS, SculptError, fit_W, polish, single_starts
    from attnlib.sculpt.local import perturbed_start

    teacher, X, Y, X_test, Y_test = instance
    out = single_starts(X, Y, 2, X_test, Y_test, perturbed=2, random=3, rng=5)
    assert out.trials() == {"sculpted": 1, "other": 1, "perturbed": 2, "perturbed_small": 2, "random": 3}
    assert list(out.residuals) == list(START_KINDS) and out.failed_phase is None
    sculpt_rng, perturb_rng, random_rng = np.random.default_rng(5).spawn(3)
    try:
        report = learn(X, Y, 2, rng=sculpt_rng, polish=False).report
    except SculptError as err:
        report = err.report

    def by_the_rule(start):
        Theta = polish(X, Y, start)[0].Theta
        W, res = fit_W(X, Y, Theta)
        return res, relative_test_error(Heads(Theta, W), X_test, Y_test)

    res, err = by_the_rule(report.candidates.best)
    assert out.residuals["sculpted"][0] == pytest.approx(res, rel=1e-6, abs=1e-14)
    assert out.errors["sculpted"][0] == pytest.approx(err, rel=1e-6, abs=1e-14)
    first = perturbed_start(X, Y, report.candidates.best, 0.5, perturb_rng)
    assert out.residuals["perturbed"][0] == pytest.approx(by_the_rule(first)[0], rel=1e-6, abs=1e-14)
    start = random_heads(2, 4, rng=random_rng)
    assert out.residuals["random"][0] == pytest.approx(by_the_rule(start)[0], rel=1e-6, abs=1e-14)
    # successes are counted by the rule, from the residuals
    assert out.successes(1e-6) == {k: int(np.sum(v <= 1e-6)) for k, v in out.residuals.items()}
    assert out.successes(1e300) == out.trials()


def test_single_starts_counts_missing_sculpted_starts_as_failures():
    """When sculpting raises before phase 5 there is no sculpted start: it fails, the random starts still run."""
    from attnlib.sculpt import single_starts

    rng = np.random.default_rng(3)
    teacher = planted_instance(2, 4, scale=0.05, shared=0.0, check=False, rng=rng)  # nearly uniform attention
    X = boolean_inputs(200, 3, 4, rng=rng)
    out = single_starts(X, attention(X, teacher), 2, X, attention(X, teacher), perturbed=1, random=1, rng=4)
    if out.failed_phase is not None:
        assert np.isinf(out.residuals["sculpted"]).all() and np.isnan(out.errors["other"]).all()
        assert out.successes()["sculpted"] == 0 and out.trials()["sculpted"] == 1
    assert np.isfinite(out.residuals["random"]).all()


def test_perturbed_start_moves_each_head_by_its_spread():
    """The noise of a perturbed start has standard deviation spread x RMS entry, head by head (W refit)."""
    from attnlib import random_heads
    from attnlib.sculpt import fit_W
    from attnlib.sculpt.local import perturbed_start

    heads = Heads(np.stack([np.full((4, 4), 1.0), np.full((4, 4), 10.0)]), np.ones((2, 4, 4)))
    X = boolean_inputs(300, 3, 4, rng=0)
    Y = attention(X, random_heads(2, 4, rng=1))
    g = np.random.default_rng(2)
    moves = np.stack([perturbed_start(X, Y, heads, 0.5, g).Theta - heads.Theta for _ in range(200)])
    assert np.std(moves[:, 0]) == pytest.approx(0.5, rel=0.05)
    assert np.std(moves[:, 1]) == pytest.approx(5.0, rel=0.05)
    start = perturbed_start(X, Y, heads, 0.05, 3)
    np.testing.assert_allclose(start.W, fit_W(X, Y, start.Theta)[0])
