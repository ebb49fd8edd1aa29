"""Tests for attnlib.sculpt.compare and attnlib.sculpt.diagnostics: same data for every method, honest scores."""

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs
from attnlib.sculpt import METHODS, SculptReport, compare_methods, learn, planted_instance, sweep
from attnlib.sculpt.compare import relative_test_error
from attnlib.sculpt.diagnostics import phase_diagnostics, single_head_curve


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
    assert list(out) == list(METHODS[:3])
    sp, nop, rand = out["sculpt + polish"], out["sculpt, no polish"], out["polish from random"]
    assert sp.error < 1e-8 and sp.failed_phase is None and sp.certified
    assert nop.error > 1e-3 and not nop.certified and nop.starts == 1  # the raw candidate is not certified
    assert 1 <= sp.starts <= 2 and sp.starts == sp.report.starts
    assert 1 <= rand.starts <= 2 and rand.certified == (rand.error < 1e-3)
    # the test error reported is the one of the layer returned, recomputed here independently
    heads = sp.report.heads
    F = attention(X_test, heads)
    assert sp.error == pytest.approx(np.linalg.norm(F - Y_test) / np.linalg.norm(Y_test), rel=1e-9, abs=1e-15)


def test_compare_methods_gives_every_method_the_same_starts(instance):
    """Adam never reaches the acceptance threshold in 5 epochs, so it must use the whole budget."""
    teacher, X, Y, X_test, Y_test = instance
    out = compare_methods(X[:300], Y[:300], 2, X_test, Y_test, methods=["Adam"], restarts=3, adam_epochs=5, rng=1)
    assert out["Adam"].starts == 3 and not out["Adam"].certified


def test_compare_methods_rejects_unknown_methods(instance):
    teacher, X, Y, X_test, Y_test = instance
    with pytest.raises(ValueError, match="unknown methods"):
        compare_methods(X, Y, 2, X_test, Y_test, methods=["gradient magic"])


def test_sweep_shapes_and_rates():
    out = sweep([4.0], [1000], seeds=2, methods=["polish from random"], restarts=2, rng=0)
    assert out.success["polish from random"].shape == (1, 1)
    assert out.starts["polish from random"].shape == (1, 1, 2)
    assert np.all((out.starts["polish from random"] >= 1) & (out.starts["polish from random"] <= 2))
    assert out.errors["polish from random"].shape == (1, 1, 2)
    rate = np.mean(out.errors["polish from random"] <= 1e-3)
    assert out.success["polish from random"][0, 0] == rate


def test_phase_diagnostics_measure_against_the_teacher(instance):
    teacher, X, Y, X_test, Y_test = instance
    report = learn(X, Y, 2, rng=2).report
    diag = phase_diagnostics(report, teacher, X_test, Y_test)
    S = teacher.W.sum(0)
    assert diag["sum_W"]["final"] == pytest.approx(np.linalg.norm(report.sum_W - S) / np.linalg.norm(S))
    assert diag["geometry"]["random span"] == pytest.approx(np.sqrt(1 / 15))
    assert diag["errors"]["final"] < 1e-8 and diag["errors"]["pre-polish"] > 1e-3
    assert set(diag["seconds"]) >= {"phase 1", "polish"}
    # a partial report (a failed run) gives partial diagnostics
    partial = phase_diagnostics(SculptReport(sum_W_phase1=S), teacher, X_test, Y_test)
    assert partial["sum_W"] == {"phase 1": 0.0} and partial["errors"] == {}


def test_single_head_curve_marks_failures_as_one():
    from attnlib import random_heads

    head = random_heads(1, 4, rng=0)
    X = boolean_inputs(40, 3, 4, rng=1)
    err_W, err_T = single_head_curve(X, attention(X, head), head, [1, 40])
    assert err_W[0] == 1.0 and err_T[0] == 1.0 and err_W[1] < 1e-8
