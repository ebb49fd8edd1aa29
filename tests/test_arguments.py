"""Tests for attnlib._arguments: the declared kinds, the outermost-call rule, and the bad-value generator."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from _declared import bad_values
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import _arguments, _validation, attention, boolean_inputs, sculpt
from attnlib._arguments import (
    KINDS,
    arguments,
    choice,
    instance,
    interval,
    mapping_of,
    names,
    sequence_of,
    validating,
)


@arguments(n="size", rng="rng", X="array", flag="flag")
def inner(n, rng=None, X=(1.0,), flag=False):
    return n, rng, X, flag


@arguments(k="size")
def outer(k, *, bad=0):
    return inner(bad, X=[np.nan])


@arguments(fn="function")
def runs_the_callers_code(fn):
    with validating():
        return fn()


def test_the_outermost_call_validates_and_converts():
    n, rng, X, flag = inner(3, rng=5, X=[1, 2])
    assert n == 3 and isinstance(rng, np.random.Generator) and X.dtype == np.float64 and flag is False
    with pytest.raises(ValueError, match="^n must be a positive integer; received 0"):
        inner(0)


def test_a_nested_call_converts_but_checks_nothing():
    n, rng, X, flag = outer(1)  # inner(0, X=[nan]) would raise at the outermost level
    assert n == 0 and isinstance(rng, np.random.Generator) and X.dtype == np.float64 and np.isnan(X[0])
    with pytest.raises(ValueError, match="^k must be"):
        outer(0)  # the outer call itself still checks


def test_the_callers_code_is_checked_again():
    with pytest.raises(ValueError, match="^n must be a positive integer; received 0"):
        runs_the_callers_code(lambda: inner(0))
    assert runs_the_callers_code(lambda: inner(2))[0] == 2


def test_validation_state_is_restored_after_an_error():
    with pytest.raises(ValueError):
        outer(0)
    with pytest.raises(ValueError):
        inner(0)  # not left "inside" by the failed call
    assert _arguments._INSIDE.get() is False


def _count_scans_of(array_name: str, monkeypatch) -> dict:
    """Count the checks that scan an argument named ``array_name``: declared kinds, and bodies' direct calls."""
    counts = {"declared": 0, "body": 0}
    call = _arguments.Kind.__call__

    def counting_call(self, name, value):
        counts["declared"] += name == array_name
        return call(self, name, value)

    monkeypatch.setattr(_arguments.Kind, "__call__", counting_call)
    for scan in ("as_float_array", "check_boolean", "check_sequences", "check_cube_data", "check_targets"):
        original = getattr(_validation, scan)

        def counting(*args, _original=original, **kwargs):
            named = [a for a in args if isinstance(a, str)] + [kwargs.get("name")] + list(kwargs.get("names", ()))
            counts["body"] += array_name in named or (_original.__name__ != "as_float_array" and "name" not in kwargs
                                                      and "names" not in kwargs and array_name == "X")
            return _original(*args, **kwargs)

        for module in [m for n, m in sys.modules.items() if n.startswith("attnlib") and m is not None]:
            if getattr(module, scan, None) is original and module not in (_validation, _arguments):
                monkeypatch.setattr(module, scan, counting)
    return counts


def test_one_learn_call_scans_X_once(monkeypatch):
    teacher = sculpt.planted_instance(2, 4, rng=0)
    X = boolean_inputs(400, 3, 4, rng=1)
    Y = attention(X, teacher)
    counts = _count_scans_of("X", monkeypatch)
    sculpt.learn(X, Y, 2, rng=0)
    assert counts == {"declared": 1, "body": 0}, counts


def test_the_scan_count_sees_a_body_that_scans_again(monkeypatch):
    """The counter above can fail: a public function whose body checks X again is counted."""

    @arguments(X="array")
    def scans_twice(X):
        return _validation.check_sequences(X)

    module = type(sys)("attnlib._scans_twice")
    module.check_sequences = _validation.check_sequences
    monkeypatch.setitem(sys.modules, "attnlib._scans_twice", module)
    counts = _count_scans_of("X", monkeypatch)
    module.check_sequences(np.ones((2, 3)))
    scans_twice(np.ones((2, 3)))
    assert counts["declared"] == 1 and counts["body"] == 1, counts


def test_every_family_has_bad_values():
    """A kind added without bad values in tests/_declared.py fails here, not silently."""
    built = [choice("a", "b"), names("a", "b"), instance(str), interval(0.0, 1.0), mapping_of(int),
             sequence_of(str)]
    for kind in [*KINDS.values(), *built]:
        bad = bad_values(kind, None)
        assert bad or kind.family == "structure", kind.family
        for value, exc, _label in bad:
            with pytest.raises(exc, match=r"^x\b"):
                kind("x", value)


def test_an_unknown_kind_is_refused_at_the_declaration():
    with pytest.raises(TypeError, match="declared with an unknown kind 'sise'"):
        arguments(n="sise")
    with pytest.raises(TypeError, match=r"declares kinds for \['m'\]"):
        arguments(m="size")(lambda n: n)


@arguments(causal="flag", rng="rng", d="size")
def takes_kinds(causal=False, rng=None, d=1):
    return causal, rng, d


flag_like = st.one_of(st.text(max_size=5), st.integers(), st.floats(), st.none(), st.lists(st.booleans(), max_size=2))
rng_like = st.one_of(st.text(max_size=5), st.floats(), st.booleans(), st.integers(max_value=-1),
                     st.lists(st.integers(0, 5), max_size=2))
size_like = st.one_of(st.floats(), st.booleans(), st.integers(max_value=0), st.text(max_size=3), st.none())


@settings(max_examples=60, deadline=None)
@given(flag_like)
def test_only_booleans_are_flags(value):
    with pytest.raises(TypeError, match="^causal must be True or False"):
        takes_kinds(causal=value)
    assert takes_kinds(causal=np.bool_(True))[0] is True


@settings(max_examples=60, deadline=None)
@given(rng_like)
def test_bad_rng_is_named(value):
    with pytest.raises((TypeError, ValueError), match="^rng must be None, an integer seed"):
        takes_kinds(rng=value)


@settings(max_examples=60, deadline=None)
@given(size_like)
def test_bad_sizes_are_named(value):
    with pytest.raises((TypeError, ValueError), match="^d must be a positive integer"):
        takes_kinds(d=value)


def test_rng_and_sizes_accept_numpy_integers_and_generators():
    a, b = takes_kinds(rng=5)[1], takes_kinds(rng=np.int64(5))[1]
    assert a.integers(1000) == b.integers(1000)
    g = np.random.default_rng(1)
    assert takes_kinds(rng=g)[1] is g and takes_kinds(d=np.uint8(4))[2] == 4
