"""Each public function's arguments, declared once: the kinds that validation and the bad-input tests read.

A function of :mod:`attnlib.sculpt`, :mod:`attnlib.lower_bounds` or :mod:`attnlib.tasks` says
what every argument is where it is defined::

    @arguments(X="cube", Y="array", m="size", tol="tol", span=choice("face", "spectral"), rng="rng")
    def learn(X, Y, m, *, tol=1e-3, span="face", rng=None): ...

Before the body runs, the decorator checks every declared argument (defaults included), in the
order of the signature, with the checks of :mod:`attnlib._validation`, and hands the body the
checked value (an int for a size, a float array for an array, a Generator for an rng). Bad input
raises a ``ValueError`` or ``TypeError`` naming the argument, what was received and what was
expected. What one argument cannot say alone (shapes that must agree, a range that depends on
another argument) the body checks next, still before any arithmetic, and without scanning an
array's entries again.

**Only the outermost public call validates.** A public function called while another is running
(``learn`` calling ``certify``, a figure calling ``attention``) only converts its arguments (a
seed to a Generator, a list to an array): the outer call has checked what it passes on, as
scikit-learn's ``skip_parameter_validation`` assumes. Code of the caller's that the library runs
(a learner's function in a checker, a target callable) runs inside :func:`validating`, so its own
calls into the library are checked again.

Inputs are declared, not outputs: a result class that only the library builds, and an exception,
carry no declaration.

The declaration is kept on the function as ``__arguments__`` (on a class, for the arguments of
its constructor). The bad-input tests read it to generate the bad values of each kind, so the
kinds are written once.

Kinds
-----
A kind is a name from :data:`KINDS` (``"array"``, ``"size"``, ``"tol"``, ...; ``"opt"`` in front
accepts ``None`` too) or a :class:`Kind` built by :func:`choice`, :func:`names`,
:func:`instance`, :func:`interval` or :func:`structure`.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import numbers
import operator
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ._validation import (
    as_float_array,
    check_array_dtype,
    check_axis_values,
    check_boolean,
    check_choice,
    check_flag,
    check_int_array,
    check_mapping,
    check_nonnegative_int,
    check_positive_float,
    check_positive_int,
    check_real,
    check_rng,
    check_series,
    describe,
)


@dataclass(frozen=True)
class Kind:
    """What an argument is: a family of bad values (for the tests) and the check that refuses them.

    Attributes
    ----------
    family : str
        The name the bad-input tests know this kind by (``"array"``, ``"choice"``, ...).
    check : callable ``(name, value) -> value``
        Returns the checked (converted) value or raises naming ``name``.
    options : tuple
        The choices of a choice or of names, the classes of an instance, the bounds of an interval.
    optional : bool
        ``None`` is accepted (and passed on as ``None``).
    convert : callable ``value -> value``
        What a nested call still does (see :func:`arguments`): the cheap conversion the body
        relies on, without any check (a seed to a Generator, a list to an array).
    """

    family: str
    check: Callable
    options: tuple = ()
    optional: bool = False
    convert: Callable = staticmethod(lambda value: value)

    def __call__(self, name: str, value):
        if value is None and self.optional:
            return None
        return self.check(name, value)

    def converted(self, value):
        """``value`` as the body expects it, unchecked (``None`` stays ``None`` if it is accepted)."""
        return None if value is None and self.optional else self.convert(value)


def _as_floats(value):
    return np.asarray(value, dtype=np.float64)


def _as_ints(value):
    return np.asarray(value, dtype=np.int64)


def _as_rng(value):
    return value if isinstance(value, np.random.Generator) else np.random.default_rng(value)


def _cube(name, value):
    arr = as_float_array(name, value)
    check_boolean(name, arr)
    return arr


def _floats(name, value):
    return check_array_dtype(name, value).astype(np.float64, copy=False)


def _mask(name, value):
    arr = check_array_dtype(name, value)
    if arr.dtype.kind != "b":
        raise TypeError(f"{name} must be an array of booleans; received an array of dtype {arr.dtype}")
    return arr


def _check_interval(name, value, low, high, low_open, high_open):
    where = _show(low, high, low_open, high_open)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number in {where}; received {describe(value)}")
    value = float(value)
    inside = (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
    if not np.isfinite(value) or not inside:
        raise ValueError(f"{name} must be a finite number in {where}; received {value}")
    return value


def _show(low, high, low_open, high_open) -> str:
    return f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def _score(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number >= 0 (inf allowed: the worst score); received {describe(value)}")
    if not value >= 0:
        raise ValueError(f"{name} must be a number >= 0 (inf allowed: the worst score); received {value}")
    return float(value)


def _sizes(name, value):
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a non-empty list of positive integers; received {describe(value)}")
    if len(value) == 0:
        raise ValueError(f"{name} must be a non-empty list of positive integers; received an empty list")
    return tuple(check_positive_int(f"{name}[{k}]", v) for k, v in enumerate(value))


def _text(name, value):
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a non-empty string; received {describe(value)}")
    return value


def _heads(name, value):
    from .heads import as_heads  # here, not at the top: attnlib.heads declares its own arguments with this module

    return as_heads(value, name=name)


def _function(name, value):
    if not callable(value):
        raise TypeError(f"{name} must be a function (a callable); received {describe(value)}")
    return value


def _tuple(value):
    return tuple(value)


#: the named kinds, by the name a declaration uses
KINDS: dict[str, Kind] = {
    "array": Kind("array", as_float_array, convert=_as_floats),
    # an array of real numbers that may hold inf or NaN (a diverged run)
    "floats": Kind("floats", _floats, convert=_as_floats),
    "cube": Kind("cube", _cube, convert=_as_floats),
    # positions along a figure's axis: a non-empty 1-D array of finite numbers
    "axis": Kind("array", check_axis_values, convert=_as_floats),
    "intarray": Kind("intarray", check_int_array, convert=_as_ints),
    "mask": Kind("mask", _mask, convert=np.asarray),
    "size": Kind("size", check_positive_int, convert=operator.index),
    "sizes": Kind("sizes", _sizes, convert=_tuple),
    "count": Kind("count", check_nonnegative_int, convert=operator.index),
    "index": Kind("index", check_nonnegative_int, convert=operator.index),
    "tol": Kind("tol", check_positive_float, convert=float),
    "fraction": Kind("interval", lambda name, value: _check_interval(name, value, 0.0, 1.0, True, False),
                     (0.0, 1.0, True, False), convert=float),
    "real": Kind("real", check_real, convert=float),
    "score": Kind("score", _score, convert=float),
    "flag": Kind("flag", check_flag, convert=bool),
    "rng": Kind("rng", lambda name, value: check_rng(value, name), convert=_as_rng),
    "heads": Kind("heads", _heads),
    "text": Kind("text", _text),
    "function": Kind("function", _function),
    # a dict of label -> 1-D array of real numbers (NaN allowed: a gap in a line), one line per entry
    "series": Kind("series", check_series),
    # a non-empty dict of label -> entry, one line or panel per entry
    "mapping": Kind("mapping", check_mapping),
}
for _name in list(KINDS):
    if _name not in ("rng", "flag"):  # None is already an rng; a flag is never None
        KINDS["opt" + _name] = Kind(KINDS[_name].family, KINDS[_name].check, KINDS[_name].options, True,
                                    KINDS[_name].convert)


def choice(*options: str) -> Kind:
    """One of ``options`` (strings)."""
    return Kind("choice", lambda name, value: check_choice(name, value, options), tuple(options))


def names(*options: str) -> Kind:
    """A non-empty sequence of distinct names from ``options``; returned as a tuple."""

    def check(name, value):
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise TypeError(f"{name} must be a list or tuple of names from {list(options)}; "
                            f"received {describe(value)}")
        unknown = [v for v in value if not isinstance(v, str) or v not in options]
        if not value or unknown or len(set(value)) != len(value):
            raise ValueError(f"{name} must be a non-empty list of distinct names from {list(options)}; "
                             f"received {list(value)!r}")
        return tuple(value)

    return Kind("names", check, tuple(options), convert=_tuple)


def instance(*classes: type, optional: bool = False, where: str = "") -> Kind:
    """An instance of one of ``classes`` (``None`` too with ``optional``); ``where`` says where one comes from."""
    what = " or ".join(c.__name__ for c in classes)
    source = f" (from {where})" if where else ""

    def check(name, value):
        if not isinstance(value, classes):
            raise TypeError(f"{name} must be a {what}{source}; received {describe(value)}")
        return value

    return Kind("object", check, tuple(classes), optional)


def mapping_of(*classes: type, where: str = "") -> Kind:
    """A non-empty dict of label -> an instance of one of ``classes`` (a result per line or panel)."""
    return Kind("results", lambda name, value: check_mapping(name, value, of=classes, where=where), tuple(classes))


def sequence_of(*classes: type, optional: bool = False, where: str = "") -> Kind:
    """A list or tuple (not a string) whose items are instances of ``classes``; returned as a list.

    Lengths that must agree with another argument are the body's to check.
    """
    what = " or ".join(c.__name__ for c in classes)
    source = f" (from {where})" if where else ""

    def check(name, value):
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise TypeError(f"{name} must be a list or tuple of {what}{source}; received {describe(value)}")
        for k, item in enumerate(value):
            if not isinstance(item, classes):
                article = "an" if what[0] in "AEIOUaeiou" else "a"
                raise TypeError(f"{name}[{k}] must be {article} {what}{source}; received {describe(item)}")
        return list(value)

    return Kind("sequence", check, tuple(classes), optional, list)


def interval(low: float, high: float, *, low_open: bool = False, high_open: bool = False,
             optional: bool = False) -> Kind:
    """A finite real number between ``low`` and ``high`` (either end open); returned as a float."""
    return Kind("interval", lambda name, value: _check_interval(name, value, low, high, low_open, high_open),
                (low, high, low_open, high_open), optional, float)


def structure(what: str) -> Kind:
    """An argument with a structure of its own (a list of pairs, a callable): the body checks it.

    ``what`` says what it is; the bad-input tests have no generic bad values for it, and test it
    by hand, beside the function's other tests.
    """
    return Kind("structure", lambda name, value: value, (what,))


def _resolve(name: str, kind) -> Kind:
    if isinstance(kind, Kind):
        return kind
    if isinstance(kind, str) and kind in KINDS:
        return KINDS[kind]
    raise TypeError(f"argument {name!r} is declared with an unknown kind {kind!r}; use one of {sorted(KINDS)} "
                    f"or a Kind")


def arguments(**declared):
    """Declare the kind of each argument of a function, a method or a class's constructor, and check them.

    Examples
    --------
    >>> from attnlib._arguments import arguments
    >>> @arguments(n="size", scale="tol")
    ... def grow(n, scale=1.0):
    ...     return n * scale
    >>> grow(3, scale=2)
    6.0
    >>> grow(3.0)
    Traceback (most recent call last):
    ...
    TypeError: n must be a positive integer; received 3.0 (float)
    """
    kinds = {name: _resolve(name, kind) for name, kind in declared.items()}

    def decorate(target):
        if isinstance(target, type):
            target.__init__ = _checked(target.__init__, kinds, target.__qualname__)
            target.__arguments__ = MappingProxyType(kinds)
            return target
        return _checked(target, kinds, target.__qualname__)

    return decorate


def _checked(func, kinds: dict, where: str):
    sig = inspect.signature(func)
    unknown = sorted(set(kinds) - set(sig.parameters))
    if unknown:
        raise TypeError(f"{where} declares kinds for {unknown}, which are not among its arguments "
                        f"{list(sig.parameters)}")
    order = [name for name in sig.parameters if name in kinds]
    star = {name for name, p in sig.parameters.items() if p.kind is p.VAR_KEYWORD}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()  # a default goes through its check too: rng=None becomes a Generator
        passed = bound.arguments
        outermost = not _INSIDE.get()
        for name in order:
            kind = kinds[name]
            if name in star:
                passed[name] = {k: kind(k, v) if outermost else kind.converted(v) for k, v in passed[name].items()}
            else:
                passed[name] = kind(name, passed[name]) if outermost else kind.converted(passed[name])
        if not outermost:
            return func(*bound.args, **bound.kwargs)
        token = _INSIDE.set(True)
        try:
            return func(*bound.args, **bound.kwargs)
        finally:
            _INSIDE.reset(token)

    wrapper.__arguments__ = MappingProxyType(kinds)
    return wrapper


#: True while a public call's body runs: the public calls it makes only convert their arguments
_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("attnlib_inside_a_public_call", default=False)


@contextlib.contextmanager
def validating():
    """Run the caller's own code (a learner's function, a target callable) with validation on.

    Inside a public call, the library's public functions only convert their arguments; code that
    a public function receives from its caller and runs is not the library's, so its calls into
    the library are checked again.

    Examples
    --------
    >>> from attnlib._arguments import arguments, validating
    >>> @arguments(n="size")
    ... def inner(n):
    ...     return n
    >>> @arguments(fn="function")
    ... def outer(fn):
    ...     with validating():
    ...         return fn()
    >>> outer(lambda: inner(0))
    Traceback (most recent call last):
    ...
    ValueError: n must be a positive integer; received 0
    """
    token = _INSIDE.set(False)
    try:
        yield
    finally:
        _INSIDE.reset(token)


def declared(func) -> dict:
    """The kinds declared for ``func`` (a function, a method or a class), by argument name; ``{}`` if none."""
    return dict(getattr(func, "__arguments__", {}))
