"""The machinery shared by every check: run a learner's function on cases, compare, explain."""

from __future__ import annotations

import signal
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from .._arguments import validating
from ._diagnose import Clues, diagnose

#: Seconds one case may take before the check gives up on the learner's function.
CASE_TIMEOUT = 10.0

#: What a check says, once, where it cannot limit a case's time.
NO_TIME_LIMIT = ("attnlib.checks: this Python has neither signal.setitimer nor threads (in the browser, "
                 "under Pyodide?), so the checks run your function without a time limit; if a check "
                 "does not return, interrupt it and look for an endless loop")
_said_no_time_limit = False


class CheckFailure(AssertionError):
    """A learner's function disagreed with the reference on some input."""


class Refused(CheckFailure):
    """Raised from inside a learner's function by a check's guard (a forbidden shortcut): passed on
    as it is, not reported as an exception of the learner's code."""


@dataclass(frozen=True)
class Case:
    """One input to a learner's function and the reference output.

    ``expected`` is an array, or a tuple of arrays when the function returns
    several; ``names`` labels those outputs in messages. ``extra`` holds what
    a check's ``convert`` needs and the learner's function does not see (for
    example held-out inputs).
    """

    name: str
    args: tuple
    expected: object
    names: tuple = ()
    kwargs: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)


def describe(args: Sequence, names: Sequence[str]) -> str:
    """``"X of shape (2, 3, 4), Theta of shape (1, 4, 4)"``: what the learner received."""
    parts = []
    for name, value in zip(names, args, strict=False):
        if isinstance(value, np.ndarray):
            parts.append(f"{name} of shape {value.shape}")
        else:
            parts.append(f"{name}={value!r}")
    return ", ".join(parts)


class CaseTimeout(BaseException):
    """Raised inside a learner's function that ran past its time (a BaseException, so that an
    ``except Exception`` in the learner's code cannot swallow it)."""


def call_with_timeout(fn: Callable, args: tuple, kwargs: dict, seconds: float | None):
    """``fn(*args, **kwargs)``, raising :class:`CaseTimeout` if it runs longer than ``seconds``.

    The mechanism is a ``SIGALRM`` timer (``signal.setitimer``) when we are on the
    main thread of a POSIX process, which is where Jupyter, Colab and plain
    Python run a cell's code. The signal handler raises between two bytecodes,
    so it stops a pure-Python infinite loop, which a thread with a timeout
    cannot do (Python threads cannot be killed), and unlike a subprocess it
    needs no pickling of a function defined in a notebook, and no fork of a
    kernel. It cannot interrupt one long call into C (a huge numpy product)
    before that call returns. Elsewhere (Windows, or a check run from a worker
    thread) the function runs in a daemon thread that is abandoned after
    ``seconds``: the check reports the timeout, and the learner is told to
    restart the kernel, since that thread keeps running. Where no thread can
    start either (Pyodide, in the browser), the function runs without a time
    limit, and the first such call says so (``NO_TIME_LIMIT``).

    ``fn`` is the learner's code, not the library's: it runs inside
    :func:`attnlib._arguments.validating`, so that its own calls into the library check their
    arguments although the check that runs it is a public call.
    """
    fn = partial(_validated, fn)
    if seconds is None:
        return fn(*args, **kwargs)
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        def on_alarm(signum, frame):
            raise CaseTimeout

        previous = signal.signal(signal.SIGALRM, on_alarm)
        start = time.monotonic()
        outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return fn(*args, **kwargs)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if outer_delay:  # someone else's timer was running: give back what is left of it
                left = outer_delay - (time.monotonic() - start)
                signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), outer_interval)
    result: dict = {}

    def target():
        try:
            result["value"] = fn(*args, **kwargs)
        except BaseException as err:  # handed to the caller below
            result["error"] = err

    worker = threading.Thread(target=target, daemon=True)
    try:
        worker.start()
    except RuntimeError:  # "can't start new thread"
        _say_no_time_limit()
        return fn(*args, **kwargs)
    worker.join(seconds)
    if worker.is_alive():
        raise CaseTimeout("the function is still running in a background thread; restart the kernel to stop it")
    if "error" in result:
        raise result["error"]
    return result["value"]


def _validated(fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` with validation on (in the thread that runs it)."""
    with validating():
        return fn(*args, **kwargs)


def _say_no_time_limit() -> None:
    global _said_no_time_limit
    if not _said_no_time_limit:
        _said_no_time_limit = True
        warnings.warn(NO_TIME_LIMIT, RuntimeWarning, stacklevel=4)


def _compare_one(check: str, case: Case, label: str, got, expected: np.ndarray, rtol: float, atol: float, inputs: str,
                 order_hint: str | None = None, clues: Clues | Callable | None = None, slip: str | None = None):
    """Compare one output; on a mismatch raise :class:`CheckFailure` naming the entry furthest off, the
    share that differ, and what :func:`diagnose` can tell (``clues``, or a function returning them,
    called only then)."""
    where = f"{check}: on case '{case.name}' ({inputs})"
    if got is None:
        raise CheckFailure(f"{where}, your function returned None for {label}. Did you forget a return statement?")
    raw_dtype = getattr(got, "dtype", None)
    try:
        raw = np.asarray(got)
        if raw.dtype.kind == "c":
            raise CheckFailure(f"{where}, {label} is complex ({raw.dtype}); expected real numbers")
        if raw.dtype.kind not in "biuf":
            raise TypeError
        got = raw.astype(float)
    except (TypeError, ValueError):
        raise CheckFailure(f"{where}, {label} is a {type(got).__name__}, not an array of numbers") from None
    slip_line = f" Common slip: {slip}" if slip else ""
    if got.shape != expected.shape:
        clues = _resolve(clues)
        hint = ""
        if got.shape == expected.shape[::-1]:
            hint = " Is it transposed?"
        elif got.size == expected.size:
            hint = " Same number of entries: check the order of your axes."
        known = [f" Your {label} equals {what}." for what, v in (clues.variants.items() if clues else ())
                 if v is not None and np.shape(v) == got.shape and np.allclose(got, v, rtol=10 * rtol, atol=10 * atol)]
        raise CheckFailure(f"{where}, {label} has shape {got.shape}; expected shape {expected.shape}.{hint}"
                           f"{''.join(known[:1])}{slip_line}")
    finite = np.isfinite(expected)
    bad = finite & ~np.isfinite(got)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise CheckFailure(
            f"{where}, {label} has {got[idx]} at index {idx}; expected {expected[idx]:.6g}. "
            f"Look for overflow in exp or a division by zero.{slip_line}"
        )
    err = np.abs(got - expected)
    tol = atol + rtol * np.abs(expected)
    wrong = err > tol
    if wrong.any():
        idx = tuple(int(i) for i in np.unravel_index(np.argmax(err - tol), err.shape))
        share = f"{int(wrong.sum())} of {wrong.size} entries differ"
        hint = ""
        if order_hint and expected.ndim >= 1 and np.all(finite) and np.allclose(
                np.sort(got, axis=-1), np.sort(expected, axis=-1), rtol=rtol, atol=atol):
            hint = f" The right values in the wrong order: {order_hint}"
        shown_got, shown_expected = f"{got[idx]:.6g}", f"{expected[idx]:.6g}"
        precision = ""
        if shown_got == shown_expected:  # six digits hide the difference: show how large it is
            rel = err[idx] / abs(expected[idx]) if expected[idx] != 0 else float("inf")
            size = f"relative error {rel:.2g}" if np.isfinite(rel) else f"absolute error {err[idx]:.2g}"
            shown_got = f"{shown_got} ({size}, above the tolerance rtol={rtol:g}, atol={atol:g})"
        if raw_dtype is not None and np.dtype(raw_dtype).kind == "f" and np.dtype(raw_dtype).itemsize < 8:
            precision = (f" Your answer is {np.dtype(raw_dtype)}, which holds about "
                         f"{np.finfo(raw_dtype).precision} digits; compute in float64.")
        named = "" if hint or precision else " ".join([""] + diagnose(
            got, expected, wrong & finite, rtol=rtol, atol=atol, clues=_resolve(clues), label=label))
        raise CheckFailure(
            f"{where}, {label} at index {idx} is {shown_got}; expected {shown_expected} ({share})."
            f"{hint}{precision}{named}{slip_line}"
        )


def _resolve(clues) -> Clues | None:
    """The clues, computed now if given as a function; a clue that fails to compute is dropped, so that
    the detectors can never break a check."""
    if not callable(clues):
        return clues
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return clues()
    except Exception:
        return None


def _clues_for(case: Case, index: int | None, label: str, sizes, groups, axes, variants) -> Clues:
    """The :class:`Clues` of one output (``index`` into a tuple of outputs, or None for a single one)."""
    known = dict(variants(case)) if variants else {}
    known = {what: (v[index] if index is not None and isinstance(v, tuple) else v) for what, v in known.items()}
    if index is not None:  # two outputs of one shape returned in the wrong order
        for j, (other, name) in enumerate(zip(case.expected, case.names, strict=True)):
            if j != index:
                known[f"the expected {name}: are your outputs in the wrong order?"] = other
    return Clues(sizes=dict(sizes(case)) if sizes else {},
                 groups=tuple(groups(case, label)) if groups else (),
                 axes=tuple(axes(case, label) if callable(axes) else axes or ()),
                 variants=known)


def run_check(check: str, fn: Callable, cases: Sequence[Case], arg_names: Sequence[str], *,
              rtol: float = 1e-7, atol: float = 1e-9, convert: Callable | None = None,
              label: str = "the output", order_hint: str | None = None,
              timeout: float | None = None, slip: str | None = None, sizes: Callable | None = None,
              groups: Callable | None = None, axes=None, variants: Callable | None = None) -> None:
    """Run ``fn`` on every case; print one line if all agree, else raise :class:`CheckFailure`.

    ``convert(got, case)``, if given, turns what the learner's function returned
    into the arrays to compare (for example heads into the function they
    compute); it raises :class:`CheckFailure` itself for answers of the wrong
    kind. ``label`` names the compared output in messages, and ``order_hint``
    is added when the values are right but permuted along the last axis.
    Each case may take at most ``timeout`` seconds (default ``CASE_TIMEOUT``,
    read at call time; see ``call_with_timeout``);
    a function that loops forever fails the check instead of hanging it.

    When a comparison fails, :func:`attnlib.checks._diagnose.diagnose` names the kind of
    mistake where the pattern is plain, helped by what the check knows: ``sizes(case)``, the
    sizes the case reveals (``{"n": 4, "d": 3}``), to name a constant factor;
    ``groups(case, label)``, named index groups along an axis; ``axes``, the names of the
    output's axes (a tuple, or ``axes(case, label)``); ``variants(case)``, a dict from the
    description of a known slip to what it returns (an array, or a tuple like the outputs).
    ``slip``, one line on the check's most common slip, ends every failed comparison's message.
    """
    timeout = CASE_TIMEOUT if timeout is None else timeout
    for case in cases:
        inputs = describe(case.args, arg_names)
        args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in case.args)
        try:
            with np.errstate(all="ignore"):
                got = call_with_timeout(fn, args, case.kwargs, timeout)
        except Refused:
            raise
        except CaseTimeout as err:
            detail = f" ({err})" if str(err) else ""
            raise CheckFailure(
                f"{check}: your function did not finish within {timeout:g} s on case '{case.name}' ({inputs}); "
                f"look for a loop that never ends{detail}"
            ) from None
        except Exception as err:  # the learner's code failed: say where, keep their traceback short
            raise CheckFailure(
                f"{check}: your function raised {type(err).__name__}: {err} on case '{case.name}' ({inputs})"
            ) from None
        for a, b, name in zip(args, case.args, arg_names, strict=True):
            if isinstance(b, np.ndarray) and not np.array_equal(a, b, equal_nan=True):
                raise CheckFailure(f"{check}: on case '{case.name}', your function changed its input {name} in place")
        if got is None:
            raise CheckFailure(
                f"{check}: on case '{case.name}' ({inputs}), your function returned None. "
                "Did you forget a return statement?"
            )
        if convert is not None:
            try:
                with np.errstate(all="ignore"):
                    got = convert(got, case)
            except CheckFailure:
                raise
            except Exception as err:  # the learner's answer could not be read or evaluated
                raise CheckFailure(
                    f"{check}: on case '{case.name}' ({inputs}), your answer could not be evaluated: "
                    f"{type(err).__name__}: {err}"
                ) from None
        if isinstance(case.expected, tuple):
            if not isinstance(got, (tuple, list)) or len(got) != len(case.expected):
                raise CheckFailure(
                    f"{check}: on case '{case.name}' ({inputs}), expected {len(case.expected)} outputs "
                    f"({', '.join(case.names)}); received {type(got).__name__}"
                    + (f" of length {len(got)}" if isinstance(got, (tuple, list)) else "")
                )
            for i, (g, e, name) in enumerate(zip(got, case.expected, case.names, strict=True)):
                _compare_one(check, case, name, g, e, rtol, atol, inputs, order_hint,
                             partial(_clues_for, case, i, name, sizes, groups, axes, variants), slip)
        else:
            _compare_one(check, case, label, got, case.expected, rtol, atol, inputs, order_hint,
                         partial(_clues_for, case, None, label, sizes, groups, axes, variants), slip)
    print(f"{check}: all {len(cases)} cases passed.")


def returned_heads(check: str, got, case: Case, d: int):
    """The learner's layer, given as ``Heads`` or a pair ``(Theta, W)`` of (m, d, d) arrays, as ``Heads``."""
    from ..heads import Heads

    where = f"{check}: on case '{case.name}'"
    if isinstance(got, Heads):
        Theta, W = got.Theta, got.W
    elif isinstance(got, (tuple, list)) and len(got) == 2:
        try:
            Theta, W = (np.asarray(g) for g in got)
            if Theta.dtype.kind not in "biuf" or W.dtype.kind not in "biuf":
                raise TypeError
            Theta, W = Theta.astype(float), W.astype(float)
        except (TypeError, ValueError):
            raise CheckFailure(f"{where}, Theta and W must be arrays of real numbers") from None
    else:
        raise CheckFailure(f"{where}, return attnlib.Heads or a pair (Theta, W); received {type(got).__name__}")
    if Theta.ndim == 2:
        Theta, W = Theta[None], W[None] if np.ndim(W) == 2 else W
    if Theta.ndim != 3 or Theta.shape[1:] != (d, d) or np.shape(W) != Theta.shape:
        raise CheckFailure(f"{where}, Theta and W must both have shape (m, {d}, {d}); received "
                           f"{Theta.shape} and {np.shape(W)}")
    if not (np.isfinite(Theta).all() and np.isfinite(W).all()):
        raise CheckFailure(f"{where}, your heads contain nan or inf")
    return Heads(Theta, W)


def case_rng(offset: int) -> np.random.Generator:
    """The generator of one check's random cases: fixed, so a check always tries the same inputs.

    Each check has its own ``offset`` (attention 101-199, rkhs 201-, tasks 300, lower bounds 400-,
    sculpt 601-), so two checks never share a stream.
    """
    return np.random.default_rng(20260000 + offset)
