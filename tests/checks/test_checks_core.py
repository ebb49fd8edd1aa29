"""Tests for attnlib.checks._core: the machinery every check shares.

A learner's function that loops forever is stopped, the time limit gives an outer timer back
what is left of it, what the function returns is read with messages a learner understands
(None, float32, complex, an answer that cannot be read), and the learner's own calls into the
library are validated although the check that runs them is a public call.
"""

import signal
import threading
import time
import warnings

import numpy as np
import pytest

import attnlib
from attnlib import softmax
from attnlib.checks import CheckFailure, _core, check_accepting_lookup, check_softmax
from attnlib.lower_bounds import parity_coefficients
from attnlib.tasks.automata import random_dfa

# --- the time limit -------------------------------------------------------------


@pytest.fixture
def short_timeout(monkeypatch):
    monkeypatch.setattr(_core, "CASE_TIMEOUT", 0.3)


def test_a_function_that_loops_forever_fails_the_check(short_timeout):
    def loops(S):
        while True:
            pass

    start = time.perf_counter()
    with pytest.raises(CheckFailure, match="did not finish within 0.3 s"):
        check_softmax(loops)
    assert time.perf_counter() - start < 5


def test_a_loop_that_swallows_exceptions_is_still_stopped(short_timeout):
    def stubborn(S):
        while True:
            try:
                while True:
                    pass
            except Exception:  # the timeout is a BaseException: not caught here
                pass

    with pytest.raises(CheckFailure, match="did not finish"):
        check_softmax(stubborn)


def test_timeout_off_the_main_thread_falls_back_to_a_thread(short_timeout):
    stop = threading.Event()

    def loops(S):
        while not stop.is_set():
            pass

    out = {}

    def worker():
        try:
            check_softmax(loops)
        except CheckFailure as err:
            out["message"] = str(err)

    t = threading.Thread(target=worker)
    t.start()
    t.join(10)
    stop.set()
    assert "still running in a background thread" in out["message"]


def test_timeout_restores_the_previous_alarm_handler(short_timeout):
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(CheckFailure):
        check_softmax(lambda S: None)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_case_timeout_gives_an_outer_timer_back_what_is_left_of_it():
    """A grader's own time limit (an outer SIGALRM timer) around a check must lose only the time the
    cases took, and keep its repeat interval: regression of a restore that subtracted the whole case
    budget, so that an assignment's 15 s limit fired after two quick cases on a busy machine."""
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(time.monotonic()))
    try:
        signal.setitimer(signal.ITIMER_REAL, 5.0, 0.5)
        for _ in range(3):
            _core.call_with_timeout(time.sleep, (0.05,), {}, 2.0)
        left, interval = signal.getitimer(signal.ITIMER_REAL)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not fired
    assert 4.0 < left <= 4.86  # 5 s less three cases of 0.05 s, with room for a slow machine
    assert interval == 0.5


def test_without_timers_or_threads_a_check_runs_without_its_time_limit_and_says_so_once(monkeypatch):
    """Pyodide, simulated: no signal.setitimer, and Thread.start raises as it does there."""

    def no_thread(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.delattr(signal, "setitimer")
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    monkeypatch.setattr(_core, "_said_no_time_limit", False)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        check_softmax(lambda S: np.exp(S - S.max(-1, keepdims=True)) / np.exp(S - S.max(-1, keepdims=True)).sum(
            -1, keepdims=True))
        start = time.monotonic()
        assert _core.call_with_timeout(time.sleep, (0.3,), {}, 0.05) is None  # past its limit, not stopped
        assert time.monotonic() - start >= 0.3
        with pytest.raises(CheckFailure, match="check_softmax: on case"):
            check_softmax(lambda S: S)
    assert [str(w.message) for w in said] == [_core.NO_TIME_LIMIT]
    assert said[0].category is RuntimeWarning


# --- reading the answer ----------------------------------------------------------


def test_none_is_reported_as_none():
    with pytest.raises(CheckFailure, match="your function returned None"):
        check_softmax(lambda S: None)


def test_float32_answer_shows_its_relative_error():
    def f32(S):
        return softmax(S).astype(np.float32)

    with pytest.raises(CheckFailure, match=r"relative error .*Your answer is float32"):
        check_softmax(f32)


def test_complex_answer_is_refused():
    with pytest.raises(CheckFailure, match="is complex"):
        check_softmax(lambda S: softmax(S) + 0j)


def test_a_failure_while_reading_the_answer_is_a_check_failure():
    class Weird(tuple):
        def __len__(self):
            raise RuntimeError("boom")

    with pytest.raises(CheckFailure, match="could not be evaluated: RuntimeError: boom"):
        check_accepting_lookup(lambda dfa: Weird((1, 2)))


# --- the learner's own calls into the library are validated ----------------------

BAD_LIBRARY_CALLS = [
    (lambda S: attnlib.softmax(None), r"raised TypeError: S must be an array"),
    # declared functions: a nested call would only convert (int(2.5) fails without naming s)
    (lambda S: parity_coefficients(2.5), r"raised TypeError: s must be a positive integer; received 2\.5"),
    (lambda S: parity_coefficients(-1), r"raised ValueError: s must be a positive integer; received -1"),
    (lambda S: random_dfa(2, 2, rng="abc"), r"raised TypeError: rng must be None, an integer seed"),
]


@pytest.mark.parametrize(("learner", "message"), BAD_LIBRARY_CALLS)
def test_a_bad_library_call_in_the_learner_function_names_its_argument(learner, message):
    with pytest.raises(CheckFailure, match=r"check_softmax: your function " + message):
        check_softmax(learner)


def test_the_learner_function_is_validated_in_the_fallback_thread_too(monkeypatch):
    """Off the main thread the function runs in a worker thread: its library calls are checked there."""
    out = {}

    def worker():
        try:
            check_softmax(lambda S: parity_coefficients(2.5))
        except CheckFailure as err:
            out["message"] = str(err)

    t = threading.Thread(target=worker)
    t.start()
    t.join(10)
    assert "s must be a positive integer; received 2.5" in out["message"]


def test_after_a_check_the_library_validates_as_before():
    with pytest.raises(CheckFailure):
        check_softmax(lambda S: parity_coefficients(2.5))
    with pytest.raises(TypeError, match="s must be a positive integer"):
        parity_coefficients(2.5)
