"""The grading support shipped with the assignments: time limits, no library shortcuts, feedback, hand-in."""

import importlib.util
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest

import attnlib
from attnlib.checks import CheckFailure, check_softmax

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("assignment_support",
                                              ROOT / "assignments" / "_support" / "assignment_support.py")
support = importlib.util.module_from_spec(spec)
spec.loader.exec_module(support)


def my_softmax(S):
    E = np.exp(S - np.max(S, axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def library_softmax(S):
    return attnlib.softmax(S)


def spin(x):
    while True:
        try:
            x += 1
        except Exception:  # a loop that swallows the first alarm is stopped too
            pass


@pytest.fixture(autouse=True)
def fresh_registry():
    support._timed_out.clear()
    yield
    support._timed_out.clear()


def test_a_loop_is_stopped_and_not_run_again():
    start = time.monotonic()
    with pytest.raises(support.TimeLimitExceeded, match=r"spin\(\.\.\.\) ran longer than 0.3 s"):
        support.call(spin, 0, seconds=0.3)
    assert time.monotonic() - start < 3
    with pytest.raises(support.TimeLimitExceeded, match="spin already ran out of time"):
        support.call(spin, 0, seconds=0.3)
    assert time.monotonic() - start < 3


def test_nested_limits_keep_the_outer_one():
    with pytest.raises(support.TimeLimitExceeded, match="outer"):
        with support.time_limit(0.3, "outer"):
            with support.time_limit(5, "inner"):
                pass
            while True:
                pass


def test_library_call_is_refused_and_the_library_restored():
    with pytest.raises(support.LibraryCallForbidden, match="calls attnlib's softmax"):
        support.call(library_softmax, np.zeros(3))
    np.testing.assert_allclose(attnlib.softmax(np.zeros(2)), [0.5, 0.5])  # restored afterwards
    np.testing.assert_allclose(support.call(my_softmax, np.zeros(2)), [0.5, 0.5])


def test_the_library_calls_itself_and_allowed_names_go_through():
    from attnlib.rkhs import cubic_features, fit_linear_attention

    X = attnlib.gaussian_inputs(30, 3, 2, rng=0)
    Y = X[:, -1]
    # allowed, fit_linear_attention runs, and its own calls inside the library (cubic_features) go through
    coef = support.call(lambda X: fit_linear_attention(X, Y).coef, X, allow=("fit_linear_attention",))
    np.testing.assert_allclose(coef, fit_linear_attention(X, Y).coef)
    got = support.call(lambda X: cubic_features(X), X, allow=("cubic_features",))
    assert got.shape == (30, 6)
    with pytest.raises(support.LibraryCallForbidden, match="fit_linear_attention"):
        support.call(lambda X: fit_linear_attention(X, Y).coef, X, allow=("cubic_features",))


def test_check_passes_and_fails_with_the_books_message():
    assert support.check(check_softmax, my_softmax) is True
    with pytest.raises(CheckFailure, match="LibraryCallForbidden"):
        support.check(check_softmax, library_softmax)
    with pytest.raises(CheckFailure, match="check_softmax: on case"):
        support.check(check_softmax, lambda S: np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True))


def test_expect_close_says_what_differs():
    assert support.expect_close([1.0, 2.0], [1.0, 2.0], "x")
    with pytest.raises(AssertionError, match=r"x: 1 of 2 entries differ, first at index \(1,\): got 3, expected 2"):
        support.expect_close([1.0, 3.0], [1.0, 2.0], "x")
    with pytest.raises(AssertionError, match=r"x: shape \(3,\), expected \(2,\)"):
        support.expect_close([1.0, 2.0, 3.0], [1.0, 2.0], "x")


def test_hand_in_on_colab_writes_and_downloads_the_zip(tmp_path, monkeypatch):
    downloaded = []
    colab = types.ModuleType("google.colab")
    colab._message = types.SimpleNamespace(blocking_request=lambda what, timeout_sec: {"ipynb": {"cells": []}})
    colab.files = types.SimpleNamespace(download=downloaded.append)
    google = types.ModuleType("google")
    google.colab = colab
    monkeypatch.setitem(sys.modules, "google", google)
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.chdir(tmp_path)

    class Grader:  # otter's export would raise on Colab; it must not be called
        _grading_mode = False

        def export(self, *args, **kwargs):
            raise RuntimeError("This method is not compatible with Google Colab")

    out = support.hand_in(Grader(), "a1")
    assert downloaded == [out] and (tmp_path / out).exists() and (tmp_path / "a1.ipynb").exists()


def test_hand_in_does_nothing_while_grading():
    class Grader:
        _grading_mode = True

    assert support.hand_in(Grader(), "a1") == ""
