"""Grading support shipped with every assignment (students' copy and the autograder's copy).

The autograder copies its own version of this file over the student's before grading, so what
runs at grading time is always this code. It gives the tests three guarantees:

- **a time limit**: ``call`` and ``check`` run the student's code under a timer; an infinite loop
  fails that test after ``SECONDS`` and the other tests go on. A function that timed out once is
  not run again in the same session (its later tests fail at once), so a looping submission
  costs one time limit per function, not one per test. ``arm_cells`` also stops any notebook
  cell that runs longer than ``CELL_SECONDS`` (grading included), so a loop at the top level of
  a cell cannot hang the execution either;
- **no library shortcut**: while the student's function runs, every function of ``attnlib``
  called *directly from the student's code* raises ``LibraryCallForbidden`` (calls the library
  makes internally, and calls of the names a question allows, go through). So answering
  "write softmax" with ``attnlib.softmax`` scores zero on that question;
- **readable feedback**: ``check`` runs one of the book's ``attnlib.checks`` on the student's
  function and lets its message (which input failed, and how) be what the student sees;
  ``expect_close`` does the same for the assignment's own cases.

``hand_in`` writes the zip to hand in, on a laptop, Binder or Colab (where otter's export cannot
read the notebook from disk).
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

#: Seconds one test may spend in the student's code.
SECONDS = 5.0
#: Seconds one notebook cell may run once ``arm_cells`` has been called.
CELL_SECONDS = 120.0
#: Library modules loaded before guarding, so that a lazily imported one is guarded too.
GUARDED_MODULES = ("attnlib", "attnlib.rkhs", "attnlib.lower_bounds", "attnlib.sculpt")


class TimeLimitExceeded(Exception):
    """The student's code ran longer than its time limit (an infinite loop?)."""


class LibraryCallForbidden(Exception):
    """The student's code called the library function that the question asks them to write."""


_timed_out: set[str] = set()


# --- time limits --------------------------------------------------------------------------------


@contextlib.contextmanager
def time_limit(seconds: float, what: str = "this code"):
    """Raise ``TimeLimitExceeded`` in the block after ``seconds`` (nested limits keep the outer one)."""
    if not hasattr(signal, "setitimer"):  # Windows: no timer; run without a limit
        yield
        return
    outer_handler = signal.getsignal(signal.SIGALRM)
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    start = time.monotonic()

    def alarm(signum, frame):
        # remember the notebook's functions that were running, so that later tests skip them
        while frame is not None:
            if frame.f_globals.get("__name__") == "__main__" and not frame.f_code.co_name.startswith("<"):
                _timed_out.add(frame.f_code.co_name)
            frame = frame.f_back
        # re-raised every 0.5 s, in case the code catches the first one
        raise TimeLimitExceeded(f"{what} ran longer than {seconds:g} s and was stopped: is there an "
                                "infinite loop, or a loop over every example where numpy would do?")

    signal.signal(signal.SIGALRM, alarm)
    limit = seconds if outer_left <= 0 else min(seconds, outer_left)
    signal.setitimer(signal.ITIMER_REAL, limit, 0.5)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, outer_handler)
        if outer_left > 0:
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - start), 1e-3), 0.5)


def arm_cells(seconds: float = CELL_SECONDS) -> None:
    """Stop every later cell of this IPython session that runs longer than ``seconds``.

    Otter's own last cell, which runs the remaining tests one by one under their own limits,
    is left alone.
    """
    try:
        ip = get_ipython()  # noqa: F821 (defined in IPython only)
    except NameError:
        return
    state = {}

    def pre(info):
        if "Checker.check_if_not_already_checked" in (info.raw_cell or ""):
            return
        state["limit"] = time_limit(seconds, "this cell")
        state["limit"].__enter__()

    def post(result):
        limit = state.pop("limit", None)
        if limit is not None:
            limit.__exit__(None, None, None)

    for event, hook in (("pre_run_cell", pre), ("post_run_cell", post)):
        for old in [h for h in ip.events.callbacks[event] if getattr(h, "__name__", "") == hook.__name__
                    and getattr(h, "__module__", "") == __name__]:
            ip.events.unregister(event, old)
        ip.events.register(event, hook)


# --- no library shortcuts -----------------------------------------------------------------------


def _template(*args, **kwargs):
    return __assignment_guard__("KEY", args, kwargs)  # noqa: F821 (put in the module's globals)


def _functions():
    """Every plain Python function of the loaded attnlib modules (not the checks), with a key."""
    import importlib

    for name in GUARDED_MODULES:
        importlib.import_module(name)
    seen = set()
    for modname, module in sorted(sys.modules.items()):
        if not (modname == "attnlib" or modname.startswith("attnlib.")) or modname.startswith("attnlib.checks"):
            continue
        members = list(vars(module).values())
        members += [v for cls in vars(module).values() if isinstance(cls, type) for v in vars(cls).values()]
        for f in members:
            f = getattr(f, "__func__", f)  # static and class methods
            if (isinstance(f, type(_template)) and id(f) not in seen and f.__closure__ is None
                    and (f.__module__ or "").startswith("attnlib")):
                seen.add(id(f))
                yield f


@contextlib.contextmanager
def no_library(allow: tuple[str, ...] = ()):
    """Within the block, a direct call of an attnlib function from outside attnlib raises.

    ``allow`` names functions (by their ``__name__``) that the question lets students use.
    """
    patched = []

    def guard(key, args, kwargs):
        original, name = originals[key]
        caller = sys._getframe(2).f_globals.get("__name__", "")
        if name in allow or caller == "attnlib" or caller.startswith("attnlib."):
            return original(*args, **kwargs)
        raise LibraryCallForbidden(f"your code calls attnlib's {name}: this question asks you to write "
                                   "it yourself, with numpy")

    originals = {}
    try:
        for f in _functions():
            key = f"{f.__module__}.{f.__qualname__}#{id(f)}"
            copy = type(f)(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
            copy.__kwdefaults__ = f.__kwdefaults__
            originals[key] = (copy, f.__name__)
            consts = tuple(key if c == "KEY" else c for c in _template.__code__.co_consts)
            stub = _template.__code__.replace(co_consts=consts, co_name=f.__code__.co_name)
            f.__globals__["__assignment_guard__"] = guard
            patched.append((f, f.__code__))
            f.__code__ = stub
        yield
    finally:
        for f, code in patched:
            f.__code__ = code


# --- what the tests call ------------------------------------------------------------------------


def call(fn, *args, seconds: float = SECONDS, allow: tuple[str, ...] = (), **kwargs):
    """``fn(*args, **kwargs)`` with a time limit and without library shortcuts."""
    name = getattr(fn, "__name__", "your function")
    if name in _timed_out:
        raise TimeLimitExceeded(f"{name} already ran out of time in an earlier test; it was not run again")
    try:
        with no_library(allow), time_limit(seconds, f"{name}(...)"):
            return fn(*args, **kwargs)
    except TimeLimitExceeded:
        _timed_out.add(name)
        raise


def guarded(fn, seconds: float = SECONDS, allow: tuple[str, ...] = ()):
    """``fn`` wrapped by ``call``: what ``check`` hands to the book's checks."""
    def wrapper(*args, **kwargs):
        return call(fn, *args, seconds=seconds, allow=allow, **kwargs)
    wrapper.__name__ = getattr(fn, "__name__", "your function")
    return wrapper


def check(book_check, fn, *, seconds: float = 3 * SECONDS, allow: tuple[str, ...] = ()) -> bool:
    """Run one of ``attnlib.checks`` on the student's function, quietly; its failure is the message."""
    name = getattr(fn, "__name__", "your function")
    if name in _timed_out:
        raise TimeLimitExceeded(f"{name} already ran out of time in an earlier test; it was not run again")
    try:
        with contextlib.redirect_stdout(io.StringIO()), time_limit(seconds, f"{book_check.__name__}({name})"):
            book_check(guarded(fn, seconds, allow))
    except TimeLimitExceeded:
        _timed_out.add(name)
        raise
    return True


def expect_close(got, expected, what: str, *, atol: float = 1e-8, rtol: float = 1e-6) -> bool:
    """Compare an answer with the expected value, and say what differs."""
    expected = np.asarray(expected, dtype=float)
    try:
        got = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{what}: got a {type(got).__name__}, expected an array of numbers") from None
    if got.shape != expected.shape:
        raise AssertionError(f"{what}: shape {got.shape}, expected {expected.shape}")
    bad = ~np.isclose(got, expected, atol=atol, rtol=rtol, equal_nan=False)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} entries differ, first at index {index}: "
                             f"got {got[index]:.6g}, expected {expected[index]:.6g}")
    return True


# --- handing in ---------------------------------------------------------------------------------


def hand_in(grader, name: str) -> str:
    """Write ``<name>.zip`` to hand in, and on Colab download it.

    On a laptop or Binder this is otter's export. On Colab the notebook is not a file on disk, so
    it is fetched from the Colab front end, written next to the tests, zipped, and downloaded.
    """
    if getattr(type(grader), "_grading_mode", False) or getattr(grader, "_grading_mode", False):
        return ""  # the autograder runs this notebook: nothing to hand in
    if "google.colab" not in sys.modules:
        return grader.export(f"{name}.ipynb", pdf=False)
    from google.colab import _message, files  # type: ignore[import-not-found]

    notebook = _message.blocking_request("get_ipynb", timeout_sec=60)["ipynb"]
    path = Path(f"{name}.ipynb")
    path.write_text(json.dumps(notebook))
    out = Path(f"{name}_{time.strftime('%Y_%m_%dT%H_%M_%S')}.zip")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(path)
    files.download(str(out))
    return str(out)
