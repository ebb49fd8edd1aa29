"""Tests for attnlib.sculpt.compare and attnlib.sculpt.diagnostics: same data for every method, honest scores."""

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs
from attnlib.sculpt import METHODS, compare_methods, learn, planted_instance, sweep
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
    assert out["sculpt + polish"]["error"] < 1e-8 and out["sculpt + polish"]["failed_phase"] is None
    assert out["sculpt, no polish"]["error"] > 1e-3  # the candidate before the polish is not certified
    assert out["sculpt, no polish"]["seconds"] <= out["sculpt + polish"]["seconds"]
    assert "pre_polish_heads" in out["sculpt + polish"]["report"]


def test_compare_methods_rejects_unknown_methods(instance):
    teacher, X, Y, X_test, Y_test = instance
    with pytest.raises(ValueError, match="unknown methods"):
        compare_methods(X, Y, 2, X_test, Y_test, methods=["gradient magic"])


def test_sweep_shapes_and_rates():
    out = sweep([4.0], [1000], seeds=2, methods=["polish from random"], restarts=2, rng=0)
    assert out["success"]["polish from random"].shape == (1, 1)
    assert out["errors"]["polish from random"].shape == (1, 1, 2)
    rate = np.mean(out["errors"]["polish from random"] <= 1e-3)
    assert out["success"]["polish from random"][0, 0] == rate


def test_phase_diagnostics_measure_against_the_teacher(instance):
    teacher, X, Y, X_test, Y_test = instance
    report = learn(X, Y, 2, rng=2).report
    diag = phase_diagnostics(report, teacher, X_test, Y_test)
    S = teacher.W.sum(0)
    assert diag["sum_W"]["final"] == pytest.approx(np.linalg.norm(report["sum_W"] - S) / np.linalg.norm(S))
    assert diag["geometry"]["random span"] == pytest.approx(np.sqrt(1 / 15))
    assert diag["errors"]["final"] < 1e-8 and diag["errors"]["pre-polish"] > 1e-3
    assert set(diag["seconds"]) >= {"phase 1", "polish"}
    # a partial report (a failed run) gives partial diagnostics
    partial = phase_diagnostics({"sum_W_phase1": S}, teacher, X_test, Y_test)
    assert partial["sum_W"] == {"phase 1": 0.0} and partial["errors"] == {}


def test_single_head_curve_marks_failures_as_one():
    from attnlib import random_heads

    head = random_heads(1, 4, rng=0)
    X = boolean_inputs(40, 3, 4, rng=1)
    err_W, err_T = single_head_curve(X, attention(X, head), head, [1, 40])
    assert err_W[0] == 1.0 and err_T[0] == 1.0 and err_W[1] < 1e-8
