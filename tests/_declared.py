"""Bad-input tests generated from the declarations alone (``attnlib._arguments``).

A package's bad-input test lists one valid call of each public function, class or method
(:class:`Call`); the kinds come from the function's ``__arguments__``, never restated here. Each
declared argument receives one or two bad values of its kind's family (:func:`bad_values`), and
the call must raise the expected type with a message that names the argument::

    CALLS = [Call(attnlib.softmax, np.zeros((2, 3))), ...]
    test_bad_argument_is_named = bad_argument_test(CALLS)
    test_declares_every_argument, test_has_a_valid_call = coverage_tests(["attnlib.rkhs"], CALLS,
                                                                         outputs=(Fit, ...))
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import numpy as np
import pytest

from attnlib._arguments import declared


def _with_entry(valid, value, at=0):
    arr = np.array(np.ones(4) if valid is None else valid, dtype=float)
    arr.flat[at] = value
    return arr


def bad_values(kind, valid) -> list:
    """One or two bad values of ``kind``'s family: ``(value, exception type, label)``.

    ``valid`` is the argument's value in the valid call (an array is corrupted in place of one
    entry, so its shape stays right and only the checked property is wrong).
    """
    family, options = kind.family, kind.options
    if family == "array":
        bad = [("abc", TypeError, "text"), (_with_entry(valid, np.nan), ValueError, "a NaN entry")]
    elif family == "cube":
        bad = [("abc", TypeError, "text"), (_with_entry(valid, 0.5), ValueError, "an entry off the cube")]
    elif family == "floats":  # inf and NaN are allowed (a diverged run): only the type is checked
        bad = [("abc", TypeError, "text"), (_with_entry(valid, 0.0) + 1j, TypeError, "complex entries")]
    elif family == "intarray":
        bad = [(np.ones(2), TypeError, "floats"), ("abc", TypeError, "text")]
    elif family == "mask":
        bad = [(np.array([1, 0]), TypeError, "ints")]
    elif family in ("size", "count", "index"):
        bad = [(2.5, TypeError, "a float"), (-1, ValueError, "a negative number")]
    elif family == "sizes":
        bad = [(3, TypeError, "an int, not a list"), ([0], ValueError, "a zero")]
    elif family in ("tol", "real", "score"):
        bad = [("x", TypeError, "text"), (float("nan"), ValueError, "NaN")]
    elif family == "interval":
        low, high = options[:2]
        bad = [("x", TypeError, "text"), (high + 1.0, ValueError, "above the interval")]
    elif family == "flag":
        bad = [("False", TypeError, "the string 'False'"), (1, TypeError, "the int 1")]
    elif family == "rng":
        bad = [("abc", TypeError, "text"), (-1, ValueError, "a negative seed")]
    elif family == "heads":
        bad = [(np.eye(4), TypeError, "an array")]
    elif family == "choice":
        bad = [("bogus", ValueError, "an unknown name")]
    elif family == "names":
        bad = [("abc", TypeError, "text"), (["bogus"], ValueError, "an unknown name")]
    elif family in ("text", "object", "function"):
        bad = [(1, TypeError, "an int")]
    elif family == "series":
        bad = [([1.0, 2.0], TypeError, "a list"), ({}, ValueError, "an empty dict")]
    elif family == "sequence":
        bad = [("abc", TypeError, "text"), ([object()], TypeError, "an item of another type")]
    elif family == "mapping":
        bad = [([1.0, 2.0], TypeError, "a list"), ({}, ValueError, "an empty dict")]
    elif family == "results":
        bad = [({"a": "abc"}, TypeError, "a dict of text"), ({}, ValueError, "an empty dict")]
    elif family == "structure":  # a structure of its own: tested by hand beside the function
        bad = []
    else:
        raise AssertionError(f"no bad values for the family {family!r}: add them to tests/_declared.py")
    return bad


class Call:
    """A public function, class or bound method, with valid arguments for it."""

    def __init__(self, func, *args, **kwargs):
        self.func, self.args, self.kwargs = func, args, kwargs
        target = getattr(func, "__func__", func)
        self.name = f"{target.__module__.replace('attnlib.', '')}.{target.__qualname__}"

    def cases(self):
        bound = inspect.signature(self.func).bind(*self.args, **self.kwargs)
        bound.apply_defaults()
        for param, kind in declared(self.func).items():
            for value, exc, label in bad_values(kind, bound.arguments.get(param)):
                yield pytest.param(self, param, value, exc, id=f"{self.name}-{param}={label}")

    def call_with(self, param, value):
        bound = inspect.signature(self.func).bind(*self.args, **self.kwargs)
        bound.arguments[param] = value
        return self.func(*bound.args, **bound.kwargs)


def bad_argument_test(calls: list):
    """The test: each bad argument raises the expected type, and the message names the argument."""

    @pytest.mark.parametrize(("call", "param", "value", "exc"), [case for call in calls for case in call.cases()])
    def test_bad_argument_is_named(call, param, value, exc):
        with pytest.raises(exc, match=rf"(?<![A-Za-z_]){re.escape(param)}(?![A-Za-z_])"):
            call.call_with(param, value)

    return test_bad_argument_is_named


def public_callables(packages) -> list:
    """Every public function, class and method of ``packages`` (module names): ``(name, object)``.

    Public: listed in the ``__all__`` of the package or of a public module, or defined in a public
    module without ``__all__``; methods: the public functions of a public class. A package's
    subpackages are walked too.
    """
    found = {}
    for package in map(importlib.import_module, packages):
        modules = [package]
        if hasattr(package, "__path__"):
            modules += [importlib.import_module(info.name) for info in
                        pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                        if not any(part.startswith("_") for part in info.name.split("."))]
        for module in modules:
            listed = getattr(module, "__all__", None)
            for name in listed or [n for n in vars(module) if not n.startswith("_")]:
                obj = getattr(module, name)
                if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                    continue
                if obj.__module__ != module.__name__ and not (listed and obj.__module__.startswith(package.__name__)):
                    continue  # imported from elsewhere
                found.setdefault(id(obj), (f"{obj.__module__}.{obj.__qualname__}", obj))
                if inspect.isclass(obj):
                    for attr, member in vars(obj).items():
                        if not attr.startswith("_") and inspect.isfunction(member):
                            found.setdefault(id(member), (f"{obj.__module__}.{member.__qualname__}", member))
    return sorted(found.values(), key=lambda pair: pair[0])


def arguments_of(obj) -> set:
    """The names of ``obj``'s arguments (``self`` left out)."""
    try:
        return {name for name in inspect.signature(obj).parameters if name != "self"}
    except ValueError:
        return set()


def coverage_tests(packages, calls: list, *, outputs=()):
    """Two tests: every public callable of ``packages`` with arguments declares every argument
    (``outputs``, the result classes and exceptions only the library builds, declare none), and
    has a valid call in ``calls``."""

    def test_every_public_function_declares_every_argument():
        undeclared = {name: sorted(arguments_of(obj) - set(declared(obj))) for name, obj in public_callables(packages)
                      if obj not in outputs and arguments_of(obj) - set(declared(obj))}
        assert not undeclared, f"arguments without a declared kind: {undeclared}"
        decorated = [name for name, obj in public_callables(packages) if obj in outputs and declared(obj)]
        assert not decorated, f"outputs of the library that declare arguments (declare inputs only): {decorated}"

    def test_every_public_function_has_a_valid_call():
        called = {getattr(call.func, "__func__", call.func) for call in calls}
        missing = [name for name, obj in public_callables(packages)
                   if obj not in outputs and arguments_of(obj) and obj not in called]
        assert not missing, f"public functions with arguments but no valid call: {missing}"

    return test_every_public_function_declares_every_argument, test_every_public_function_has_a_valid_call
