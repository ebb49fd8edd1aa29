"""Tests for attnlib.sculpt.pipeline: the pipeline end to end, its report, and how it fails."""

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs
from attnlib.sculpt import SculptError, SculptResult, learn, planted_instance


def relative_test_error(heads, teacher, rng):
    X = boolean_inputs(2000, 3, teacher.d, rng=rng)
    F = attention(X, teacher)
    return np.linalg.norm(attention(X, heads) - F) / np.linalg.norm(F)


def test_report_has_every_phase():
    rng = np.random.default_rng(0)
    teacher = planted_instance(2, 4, rng=rng)
    X = boolean_inputs(3000, 3, 4, rng=rng)
    result = learn(X, attention(X, teacher), 2, rng=rng)
    assert isinstance(result, SculptResult) and isinstance(result.heads, Heads)
    r = result.report
    assert r["sum_W"].shape == (4, 4) and r["proxy"].shape == (4, 4)
    assert isinstance(r["pre_polish_heads"], Heads) and r["pre_polish_heads"].m == 2
    assert {"phase 1", "phases 2-3", "phase 4", "phase 5", "polish"} <= set(r["seconds"])
    assert r["residual"] <= 1e-3 and "halfspaces=" in repr(r["body"])
    assert "residual=" in repr(result)


@pytest.mark.slow
def test_end_to_end_done_when_twenty_seeds():
    """learn on planted_instance(2, 4), n = 3: relative test error <= 1e-3 in 20 of 20 seeds."""
    errors = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        teacher = planted_instance(2, 4, rng=rng)
        X = boolean_inputs(3000, 3, 4, rng=rng)
        result = learn(X, attention(X, teacher), 2, rng=rng)
        errors.append(relative_test_error(result.heads, teacher, rng))
    assert max(errors) <= 1e-3, errors


def test_without_polish_an_uncertified_candidate_raises_phase_5_with_the_report():
    rng = np.random.default_rng(1)
    teacher = planted_instance(2, 4, rng=rng)
    X = boolean_inputs(3000, 3, 4, rng=rng)
    with pytest.raises(SculptError, match=r"phase 5: no candidate is certified: relative residual .* > tol") as info:
        learn(X, attention(X, teacher), 2, rng=rng, polish=False)
    assert info.value.phase == "phase 5"
    assert isinstance(info.value.report["pre_polish_heads"], Heads)


def test_labels_from_no_attention_layer_fail_in_a_named_phase():
    rng = np.random.default_rng(2)
    X = boolean_inputs(2000, 3, 4, rng=rng)
    Y = rng.normal(size=X.shape)
    with pytest.raises(SculptError, match=r"^(phase \d|polish)") as info:
        learn(X, Y, 2, rng=rng)
    assert info.value.report is not None and "sum_W_phase1" in info.value.report


def test_bad_input():
    X = boolean_inputs(100, 3, 4, rng=0)
    Y = attention(X, planted_instance(2, 4, rng=0))
    with pytest.raises(ValueError, match="positive integer"):
        learn(X, Y, 0)
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        learn(X * 2, Y, 2)
    with pytest.raises(ValueError, match="every position"):
        learn(X, Y[:, -1], 2)
    with pytest.raises(ValueError, match="span must be one of"):
        learn(X, Y, 2, span="best")
