"""Every figure function of attnlib.viz draws with the book's style and hands back a closed figure.

A figure left open in pyplot is shown twice in a notebook with the inline backend (as the cell's
value and again at the end of the cell) but once under Agg, so its chapter's nbval output would
depend on the backend: exactly what @styled prevents.
"""

import importlib
import inspect

import pytest

VIEWS = ["attnlib.viz.attention", "attnlib.viz.training", "attnlib.viz.rkhs", "attnlib.viz.tasks",
         "attnlib.viz.sculpt", "attnlib.viz.lower_bounds", "attnlib.viz.diagrams"]


def figure_functions():
    for path in VIEWS:
        module = importlib.import_module(path)
        for name, obj in vars(module).items():
            if name.startswith("plot_") and inspect.isfunction(obj) and (obj.__module__ == path
                                                                         or obj.__module__.startswith(path + ".")):
                yield f"{path}.{name}", obj


@pytest.mark.parametrize(("name", "func"), list(figure_functions()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_figure_function_is_styled(name, func):
    from attnlib.viz._style import styled

    marker = styled(lambda: None)
    inner = func
    while inner is not None and getattr(inner, "__code__", None) is not marker.__code__:
        inner = getattr(inner, "__wrapped__", None)  # @arguments, outside @styled, checks before anything is drawn
    assert inner is not None, f"{name} is not wrapped by @styled"


def test_the_views_are_all_listed():
    import pkgutil

    import attnlib.viz

    found = {f"attnlib.viz.{m.name}" for m in pkgutil.iter_modules(attnlib.viz.__path__) if not m.name.startswith("_")}
    assert found == set(VIEWS)
