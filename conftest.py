"""Shared pytest set-up: names available to every docstring example."""

import numpy as np
import pytest

import attnlib


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    doctest_namespace["np"] = np
    doctest_namespace["attnlib"] = attnlib
    for name in attnlib.__all__:
        doctest_namespace[name] = getattr(attnlib, name)
