"""Text that a figure module renders: numbers as prose writes them, and Markdown tables.

Shared by the views (the tables of :mod:`attnlib.viz.sculpt`) and by the book's own helpers
(``book/bookkit.py``, whose ``glue`` formats the numbers a chapter's prose quotes), so that a
number reads the same in a table and in a sentence.
"""

from __future__ import annotations

import math
import numbers
import re

__all__ = ["format_value", "markdown_table"]

#: minus and digits as superscripts: the exponent of 10 in prose (no math mode there)
_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")
#: the multiplication sign of 8.2x10^-15
_TIMES = "\u00d7"


def _prose_exponent(text: str) -> str:
    """'8.2e-15' -> '8.2×10⁻¹⁵' (prose has no math mode); '1.5e+00' -> '1.5'."""

    def repl(match):
        mantissa, exponent = match.group(1), int(match.group(2))
        if exponent == 0:
            return mantissa
        power = "10" + str(exponent).translate(_SUPERSCRIPT)
        return power if mantissa in ("1", "1.0") else f"{mantissa}{_TIMES}{power}"

    return re.sub(r"(\d+(?:\.\d+)?)[eE]([-+]?\d+)", repl, text)


def format_value(value, fmt: str | None = None) -> str:
    """``value`` as prose shows it, formatted with ``fmt`` (scientific notation as ``8.2×10⁻¹⁵``).

    Examples
    --------
    >>> format_value(3), format_value(0.8234, ".2f"), format_value(8.2e-15, ".1e")
    ('3', '0.82', '8.2×10⁻¹⁵')
    >>> format_value(0.953, ".0%"), format_value("3/3")
    ('95%', '3/3')
    """
    if isinstance(value, bool):
        raise TypeError(f"value must be a number or a string, got the bool {value!r}: glue the word you mean")
    if isinstance(value, str):
        if fmt is not None:
            raise ValueError(f"fmt={fmt!r} given for the string {value!r}: format the number before joining it")
        return value
    if not isinstance(value, numbers.Real):
        raise TypeError(f"value must be an int, a float or a str, got {type(value).__name__}")
    if fmt is not None and not isinstance(fmt, str):
        raise TypeError(f"fmt must be a format spec such as '.2f', got {type(fmt).__name__}")
    if isinstance(value, numbers.Integral):
        return format(int(value), fmt or "d")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value must be finite, got {value}: say in words what the computation found")
    if not fmt:
        raise ValueError(
            f"the float {value!r} needs fmt, e.g. '.2f' or '.1e': round it to what the computation resolves, "
            "so that every machine shows the same text")
    return _prose_exponent(format(value, fmt))


def markdown_table(header, rows):
    """A table of results, shown as a rendered Markdown table when the cell's value.

    Parameters
    ----------
    header : sequence of str
        Column titles.
    rows : sequence of sequences
        One row per line, as many entries as ``header``; entries are shown with ``str``, so format
        numbers first (``format_value``).

    Returns
    -------
    IPython.display.Markdown
        End the cell with it; the page, the PDF, Jupyter and Colab render the table.

    Examples
    --------
    >>> print(markdown_table(["method", "success"], [["sculpt", "3/3"]]).data)
    | method | success |
    |---|---|
    | sculpt | 3/3 |
    """
    from IPython.display import Markdown

    header = [str(h) for h in header]
    if not header:
        raise ValueError("header must name at least one column")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for k, row in enumerate(rows):
        row = [str(v) for v in row]
        if len(row) != len(header):
            raise ValueError(f"rows[{k}] has {len(row)} entries, expected {len(header)} (one per column of header)")
        if any("|" in v or "\n" in v for v in row):
            raise ValueError(f"rows[{k}] has an entry with '|' or a newline, which would break the table: {row}")
        lines.append("| " + " | ".join(row) + " |")
    return Markdown("\n".join(lines))
