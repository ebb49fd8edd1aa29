"""The repr wrapper that keeps printed results inside the book's 79-character code column."""

from attnlib._validation import wrap_fields


def test_short_fields_stay_on_one_line():
    assert wrap_fields("Fit", ["a=1", "b=2"]) == "Fit(a=1, b=2)"
    assert wrap_fields("Empty", []) == "Empty()"


def test_long_fields_break_after_a_comma_under_the_opening_parenthesis():
    fields = [f"field{k}={'x' * 10}" for k in range(8)]
    text = wrap_fields("Result", fields, width=40)
    lines = text.splitlines()
    assert all(len(line) <= 40 for line in lines), text
    assert all(line.startswith(" " * len("Result(")) for line in lines[1:])
    # nothing lost or reordered: joining the lines gives the one-line form back
    assert " ".join(line.strip() for line in lines) == "Result(" + ", ".join(fields) + ")"


def test_a_field_longer_than_the_width_keeps_its_own_line():
    text = wrap_fields("R", ["a=1", "b=" + "y" * 50, "c=3"], width=20)
    assert text.splitlines() == ["R(a=1,", "  b=" + "y" * 50 + ",", "  c=3)"]
