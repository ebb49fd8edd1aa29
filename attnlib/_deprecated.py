"""Old import paths, kept working for one release with a ``DeprecationWarning``.

The library was reorganised into one folder per part of the book (``rkhs/``,
``lower_bounds/``, ``viz/``, ``widgets/``). Every module path and name that
worked before still works, and says where it lives now:

* ``MOVED_MODULES`` -- old module paths such as ``attnlib.viz_rkhs``. Importing one
  warns once and gives a module that forwards every attribute to its new home.
  No file sits at the old path (so the API reference documents each name once).
* ``moved_names`` -- a module ``__getattr__`` for single names that moved to
  another module, e.g. ``attnlib.tasks.associative_memory.identifiability_sweep``.
* ``renamed`` -- an old function name kept as an alias of the new one.

``tests/test_deprecated.py`` lists every old path and checks it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: old module path -> the modules that now hold its names (searched in order).
MOVED_MODULES: dict[str, tuple[str, ...]] = {
    "attnlib._coefficients": ("attnlib.rkhs.coefficients",),
    "attnlib._normal_equations": ("attnlib.rkhs._normal_equations",),
    "attnlib.experiments_linear": ("attnlib.rkhs.experiments",),
    "attnlib.boolean_fourier": ("attnlib.lower_bounds.fourier",),
    "attnlib.parities": ("attnlib.lower_bounds.parities",),
    "attnlib.viz_rkhs": ("attnlib.viz.rkhs",),
    "attnlib.viz_tasks": ("attnlib.viz.tasks",),
    "attnlib.viz_sculpt": ("attnlib.viz.sculpt",),
    "attnlib.viz_lower_bounds": ("attnlib.viz.lower_bounds",),
    "attnlib.widgets_rkhs": ("attnlib.widgets.rkhs",),
    "attnlib.widgets_tasks": ("attnlib.widgets.tasks",),
    "attnlib.widgets_sculpt": ("attnlib.widgets.sculpt",),
    "attnlib.widgets_lower_bounds": ("attnlib.widgets.lower_bounds",),
    "attnlib.sculpt.phases": ("attnlib.sculpt.sum_w", "attnlib.sculpt.proxy"),
    "attnlib.checks.automata": ("attnlib.checks.tasks",),
    "attnlib.checks.boolean_fourier": ("attnlib.checks.lower_bounds",),
}


def _message(old: str, new: str) -> str:
    return f"{old} has moved to {new}; the old path will be removed in the next release"


class _Forward(types.ModuleType):
    """A stand-in module at an old path: every attribute comes from the new modules."""

    def __getattr__(self, name):
        if name.startswith("__"):  # asked by the import machinery before the module is ready
            raise AttributeError(name)
        for target in self.__dict__["_targets"]:
            module = importlib.import_module(target)
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __dir__(self):
        names = set()
        for target in self.__dict__["_targets"]:
            names.update(n for n in dir(importlib.import_module(target)) if not n.startswith("__"))
        return sorted(names)


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old module paths of ``MOVED_MODULES`` (there is no file at them)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED_MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = _Forward(spec.name)
        module.__dict__["_targets"] = MOVED_MODULES[spec.name]
        return module

    def exec_module(self, module):
        targets = MOVED_MODULES[module.__name__]
        # stacklevel 2 is the importing line: the import machinery's own frames are skipped
        warnings.warn(_message(module.__name__, " and ".join(targets)), DeprecationWarning, stacklevel=2)
        module.__doc__ = f"Deprecated: moved to {' and '.join(targets)}."
        names = []
        for target in targets:
            new = importlib.import_module(target)
            names += list(getattr(new, "__all__", []))
        if names:
            module.__all__ = names


def install() -> None:
    """Make the old module paths importable (idempotent)."""
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(_OldPaths())


def moved_names(module_name: str, moved: dict[str, str], submodules: tuple[str, ...] = ()):
    """A module ``__getattr__``: names that moved (``{name: new module}``) with a warning, and
    the ``submodules`` imported on first use, without one."""

    def __getattr__(name):
        if name in submodules:
            return importlib.import_module(f"{module_name}.{name}")
        if name in moved:
            warnings.warn(_message(f"{module_name}.{name}", f"{moved[name]}.{name}"), DeprecationWarning,
                          stacklevel=2)
            return getattr(importlib.import_module(moved[name]), name)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


def renamed(old: str, new):
    """``new`` under its old name ``old``, warning on every call."""

    @functools.wraps(new)
    def alias(*args, **kwargs):
        warnings.warn(f"{old} has been renamed {new.__name__}; the old name will be removed in the next release",
                      DeprecationWarning, stacklevel=2)
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated alias of :func:`{new.__module__}.{new.__name__}`."
    alias.__module__ = __name__  # not listed with the new name's module in the API reference
    return alias


def renamed_keyword(func: str, old: str, old_value, new: str, new_value):
    """The value of keyword ``new``, taking the deprecated spelling ``old`` if the caller used it."""
    if old_value is None:
        return new_value
    warnings.warn(f"{func}: the keyword {old} has been renamed {new}; the old name will be removed in the next "
                  f"release", DeprecationWarning, stacklevel=3)
    return old_value
