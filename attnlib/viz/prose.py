"""Numbers and tables that a chapter's prose renders from its own computation.

The book's rule is that prose cannot drift from the computation: a number the text reports is
rendered from the value the chapter computed, never typed by hand.

* :func:`glue` formats a computed value once, in the kernel, and hands the text to myst-nb's
  ``glue`` under a name; the prose shows it with ``{glue:text}`name```. The formatted text is
  what the page shows, so round to what the computation resolves (every OpenBLAS kernel must
  print the same). Without myst-nb (Colab installs only ``attnlib[viz]``) it glues nothing and
  shows nothing: print the returned text in the cell, and readers there see it right above the
  prose.
* :func:`markdown_table` renders a table of results as the output of a cell, so no result table
  is typed into a chapter's markdown.
* :func:`benchmark_results` reads a benchmark's committed results file,
  ``benchmarks/results/<name>.json``, so that every chapter quoting the benchmark quotes the same
  run.
"""

from __future__ import annotations

import json
import math
import numbers
import re
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

__all__ = ["glue", "markdown_table", "benchmark_results", "BenchmarkResults"]

_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _prose_exponent(text: str) -> str:
    """'8.2e-15' -> '8.2×10⁻¹⁵' (prose has no math mode); '1.5e+00' -> '1.5'."""

    def repl(match):
        mantissa, exponent = match.group(1), int(match.group(2))
        if exponent == 0:
            return mantissa
        power = "10" + str(exponent).translate(_SUPERSCRIPT)
        return power if mantissa in ("1", "1.0") else f"{mantissa}×{power}"

    return re.sub(r"(\d+(?:\.\d+)?)[eE]([-+]?\d+)", repl, text)


def format_value(value, fmt: str | None = None) -> str:
    """The text :func:`glue` shows for ``value``, formatted with ``fmt``.

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


def glue(name: str, value, fmt: str | None = None) -> str:
    """Give the chapter's prose a computed value under ``name``; return the text it shows.

    Parameters
    ----------
    name : str
        Key of the value, lower case with hyphens, prefixed by the chapter (``"ch09-adam-starts"``).
        The prose writes ``{glue:text}`ch09-adam-starts```.
    value : int, float or str
        What the cell computed. A float needs ``fmt``; a string is shown as it is.
    fmt : str, optional
        A format spec (``".2f"``, ``".0%"``, ``".1e"``, ``","``). Scientific notation is shown as
        prose writes it, ``8.2×10⁻¹⁵``.

    Returns
    -------
    str
        The formatted text, to print in the cell as well (readers without myst-nb see it there).

    Examples
    --------
    >>> glue("ch00-example", 0.8234, ".2f")
    '0.82'
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"name must be lower case letters, digits and hyphens, like 'ch09-adam-starts'; got {name!r}")
    text = format_value(value, fmt)
    try:
        from IPython import get_ipython
        from myst_nb import glue as myst_glue
    except ImportError:  # Colab and plain Python: the cell's print shows the value
        return text
    if get_ipython() is not None:  # only a kernel has outputs to hold the value
        myst_glue(name, text, display=False)
    return text


def markdown_table(header, rows):
    """A table of results, shown as a rendered Markdown table when the cell's value.

    Parameters
    ----------
    header : sequence of str
        Column titles.
    rows : sequence of sequences
        One row per line, as many entries as ``header``; entries are shown with ``str``, so format
        numbers first (:func:`format_value`).

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


# --------------------------------------------------------------------------- benchmark results


@dataclass(frozen=True)
class BenchmarkResults:
    """One committed run of a benchmark: what it measured, when, where, and with what.

    ``results`` is the benchmark's own JSON; ``sources`` maps every file it measured (paths
    relative to the repository) to its SHA-256, which ``tests/test_benchmark_results.py``
    compares with the files as they are now.
    """

    name: str
    command: str
    date: str
    commit: str
    machine: str
    threads: str
    results: dict
    sources: dict

    def __repr__(self) -> str:
        return f"BenchmarkResults({self.name!r}, {self.date}, commit {self.commit[:10]}, `{self.command}`)"


def _local_candidates(name: str):
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        yield folder / "benchmarks" / "results" / f"{name}.json"
    yield Path(__file__).resolve().parents[2] / "benchmarks" / "results" / f"{name}.json"


def _installed_from():
    """(repository URL, commit) that pip installed attnlib from, if it came from a git URL."""
    try:
        info = json.loads(metadata.distribution("attnlib").read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, json.JSONDecodeError):
        return None
    url, commit = info.get("url", ""), info.get("vcs_info", {}).get("commit_id")
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?/?", url)
    return (match.group(1), commit) if match and commit else None


def benchmark_results(name: str) -> BenchmarkResults:
    """The committed results of ``benchmarks/<name>.py``, read from ``benchmarks/results/<name>.json``.

    The file is looked for in the current folder and its parents (a chapter runs in ``book/``),
    then beside this installation of ``attnlib`` (an editable install, Binder); where ``attnlib``
    was installed by pip from GitHub (Colab), it is read from the repository at the installed
    commit.

    Examples
    --------
    >>> benchmark_results("sculpt").name
    'sculpt'
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name.replace("_", "-")):
        raise ValueError(f"name must be a benchmark's name, like 'sculpt'; got {name!r}")
    text = None
    for path in _local_candidates(name):
        if path.is_file():
            text = path.read_text()
            break
    if text is None:
        origin = _installed_from()
        if origin is None:
            raise FileNotFoundError(
                f"benchmarks/results/{name}.json not found in {Path.cwd()} or its parents, nor beside attnlib; "
                f"run python benchmarks/{name}.py from the repository, or open the chapter in a clone of it")
        repo, commit = origin
        url = f"https://raw.githubusercontent.com/{repo}/{commit}/benchmarks/results/{name}.json"
        with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (a fixed https host)
            text = response.read().decode()
    data = json.loads(text)
    missing = {"benchmark", "command", "date", "commit", "machine", "threads", "results", "sources"} - set(data)
    if missing or data["benchmark"] != name:
        raise ValueError(f"benchmarks/results/{name}.json is not a results file of benchmark {name!r}: "
                         f"missing {sorted(missing)}, benchmark={data.get('benchmark')!r}")
    return BenchmarkResults(data["benchmark"], data["command"], data["date"], data["commit"], data["machine"],
                            str(data["threads"]), data["results"], data["sources"])
