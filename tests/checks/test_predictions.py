"""compare_prediction: one line per predicted value, right or wrong; errors for the wrong kind."""

import numpy as np
import pytest

from attnlib.checks import compare_prediction


def said(capsys, *args, **kwargs) -> str:
    compare_prediction(*args, **kwargs)
    return capsys.readouterr().out


def test_an_exact_prediction_is_right(capsys):
    expected = "heads:\n  you predicted 6, the run gives 6\n    exactly right.\n"
    assert said(capsys, 6, np.int64(6), what="heads") == expected


def test_a_prediction_within_rounding_is_right(capsys):
    assert "exactly right" in said(capsys, 0.3, 0.1 + 0.2)


@pytest.mark.parametrize(("predicted", "actual", "words"), [
    (2, 4, "off by 2 (the run is 2 times yours)"),
    (4, 1, "off by 3 (the run is 1/4 of yours)"),
    (1, -1, "off by 2 (the sign is the other one)"),
    (0, 3, "off by 3."),
])
def test_a_wrong_number_says_how_far(capsys, predicted, actual, words):
    assert words in said(capsys, predicted, actual)


def test_words_and_booleans(capsys):
    assert said(capsys, "Grows", "grows").endswith("right.\n")
    assert said(capsys, True, np.bool_(False)).endswith("not this time.\n")


def test_one_line_per_value(capsys):
    lines = said(capsys, [1, 2], np.array([1, 3]), what="slopes").splitlines()
    assert lines == ["slopes:", "  value 1: you predicted 1, the run gives 1", "    exactly right.",
                     "  value 2: you predicted 2, the run gives 3", "    off by 1 (the run is 1.5 times yours)."]


def test_lines_fit_the_page_column(capsys):
    """The chapters print these: every line within the 79 columns of tests/test_book_layout.py."""
    text = said(capsys, -123456.789, 0.000123456, what="the smallest eigenvalue of Lambda_D at d = 16")
    assert max(len(line) for line in text.splitlines()) <= 79


@pytest.mark.parametrize("blank", [None, ...])
def test_a_blank_prediction_asks_for_one(capsys, blank):
    assert "write your prediction first" in said(capsys, blank, 3)


@pytest.mark.parametrize(("args", "kwargs", "exc", "pattern"), [
    ((1, [1, 2]), {}, ValueError, "prediction has 1 value.*actual has 2"),
    ((object(), 1), {}, TypeError, "prediction must be a number"),
    ((1, np.array(["a"])), {}, TypeError, "actual must hold numbers"),
    ((1, float("nan")), {}, ValueError, "actual must be finite"),
    ((1, 1), {"what": 3}, TypeError, "what must be a non-empty string"),
])
def test_the_wrong_kind_is_named(args, kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        compare_prediction(*args, **kwargs)
