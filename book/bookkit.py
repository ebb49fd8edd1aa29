"""The book's own helpers for its chapters; not part of ``attnlib``.

What only the book needs lives here, so that importing the library changes
nothing for a researcher (``tests/test_imports.py``):

* :func:`show_as_vector` has IPython store every matplotlib figure as SVG,
  which the web page shows, and PDF, which the printed book typesets. Each
  chapter's hidden first cell calls it.
* :func:`glue` formats a computed value once, in the kernel, and hands the
  text to myst-nb's ``glue`` under a name; the prose shows it with
  ``{glue:text}`name```. The formatted text is what the page shows, so round
  to what the computation resolves (every OpenBLAS kernel must print the
  same). Without myst-nb (Colab installs only ``attnlib[viz]``) it glues
  nothing and shows nothing: print the returned text in the cell, and
  readers there see it right above the prose.
* :func:`format_value` is that text, and :func:`markdown_table` renders a
  table of results as the output of a cell, so that no result table is typed
  into a chapter's markdown. Both are the library's (``attnlib.viz._text``),
  which the tables of ``attnlib.viz.sculpt`` use too.
* :func:`benchmark_results` reads a benchmark's committed results file,
  ``benchmarks/results/<name>.json``, so that every chapter quoting the
  benchmark quotes the same run.

Where a chapter runs, this file is beside it: the book's build, its nbval
tests and Binder run the kernel in ``book/``. Colab has no checkout: the
chapter's install cell downloads this file into the kernel's folder from the
commit it installs ``attnlib`` from (``scripts/pin_release.py`` pins both,
``tests/test_release.py`` checks that they agree).
"""

from __future__ import annotations

import json
import re
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from attnlib.viz._text import format_value, markdown_table

__all__ = [
    "show_as_vector",
    "glue",
    "format_value",
    "markdown_table",
    "benchmark_results",
    "BenchmarkResults",
]

_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
#: the repository around this file, when the chapter runs from a checkout
REPOSITORY = Path(__file__).resolve().parents[1]
#: the fields of a results file (benchmarks/_results.py writes them)
FIELDS = {"benchmark", "command", "date", "commit", "machine", "threads",
          "results", "sources"}


def show_as_vector(shell=None) -> None:
    """Have IPython display matplotlib figures as SVG and PDF, not PNG.

    The web page picks the SVG and the LaTeX build the PDF (myst-nb's render
    priorities), so the book shows vector figures in both. They are saved as
    the library's ``attnlib.viz._style.svg_text`` and ``pdf_bytes`` save them
    (tight bounding box, no date, stable ids), which the figure tests measure.
    Outside IPython it does nothing.

    Parameters
    ----------
    shell : InteractiveShell, optional
        The IPython shell whose display formatters to set (default: the
        running one, if any).
    """
    from attnlib.viz._style import pdf_bytes, svg_text
    from matplotlib.figure import Figure

    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    display = getattr(shell, "display_formatter", None)
    formatters = getattr(display, "formatters", None)
    if not formatters:
        return
    # the inline backend picks its formats once, when it loads: load it first,
    # then override
    try:
        import matplotlib_inline.backend_inline  # noqa: F401
    except ImportError:
        pass
    for mime in ("image/png", "image/jpeg", "image/svg+xml",
                 "application/pdf"):
        formatters[mime].type_printers.pop(Figure, None)
    formatters["image/svg+xml"].for_type(Figure, svg_text)
    formatters["application/pdf"].for_type(Figure, pdf_bytes)


def glue(name: str, value, fmt: str | None = None) -> str:
    """Give the prose a computed value under ``name``; return its text.

    Parameters
    ----------
    name : str
        Key of the value, lower case with hyphens, prefixed by the chapter
        (``"ch09-adam-starts"``). The prose writes
        ``{glue:text}`ch09-adam-starts```.
    value : int, float or str
        What the cell computed. A float needs ``fmt``; a string is shown as
        it is.
    fmt : str, optional
        A format spec (``".2f"``, ``".0%"``, ``".1e"``, ``","``). Scientific
        notation is shown as prose writes it, ``8.2×10⁻¹⁵``.

    Returns
    -------
    str
        The formatted text, to print in the cell as well (readers without
        myst-nb see it there).

    Examples
    --------
    >>> glue("ch00-example", 0.8234, ".2f")
    '0.82'
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            "name must be lower case letters, digits and hyphens, like "
            f"'ch09-adam-starts'; got {name!r}")
    text = format_value(value, fmt)
    try:
        from IPython import get_ipython
        from myst_nb import glue as myst_glue
    except ImportError:  # Colab and plain Python: the cell's print shows it
        return text
    if get_ipython() is not None:  # only a kernel has outputs to hold it
        myst_glue(name, text, display=False)
    return text


# ------------------------------------------------------- benchmark results


@dataclass(frozen=True)
class BenchmarkResults:
    """One committed run of a benchmark: what it measured, when, where, how.

    ``results`` is the benchmark's own JSON; ``sources`` maps every file it
    measured (paths relative to the repository) to its SHA-256, which
    ``tests/test_benchmark_results.py`` compares with the files as they are
    now.
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
        return (f"BenchmarkResults({self.name!r}, {self.date}, "
                f"commit {self.commit[:10]}, `{self.command}`)")


def _local_candidates(name: str):
    here = Path.cwd().resolve()
    for folder in (here, *here.parents, REPOSITORY):
        yield folder / "benchmarks" / "results" / f"{name}.json"


def _installed_from():
    """(repository, commit) pip installed attnlib from, if from GitHub."""
    try:
        dist = metadata.distribution("attnlib")
        info = json.loads(dist.read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, json.JSONDecodeError):
        return None
    url = info.get("url", "")
    commit = info.get("vcs_info", {}).get("commit_id")
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?/?",
                         url)
    return (match.group(1), commit) if match and commit else None


def benchmark_results(name: str) -> BenchmarkResults:
    """The committed results of ``benchmarks/<name>.py``.

    The file ``benchmarks/results/<name>.json`` is looked for in the current
    folder and its parents (a chapter runs in ``book/``), then in the
    repository around this file. Where no checkout is at hand and ``attnlib``
    was installed by pip from GitHub (Colab), it is read from the repository
    at the installed commit, the one this file was downloaded from.

    Examples
    --------
    >>> benchmark_results("sculpt").name
    'sculpt'
    """
    if not (isinstance(name, str)
            and _NAME.fullmatch(name.replace("_", "-"))):
        raise ValueError(
            f"name must be a benchmark's name, like 'sculpt'; got {name!r}")
    text = None
    for path in _local_candidates(name):
        if path.is_file():
            text = path.read_text()
            break
    if text is None:
        origin = _installed_from()
        if origin is None:
            raise FileNotFoundError(
                f"benchmarks/results/{name}.json not found in {Path.cwd()} "
                f"or its parents, nor in {REPOSITORY}; run python "
                f"benchmarks/{name}.py from the repository, or open the "
                "chapter in a clone of it")
        repo, commit = origin
        url = (f"https://raw.githubusercontent.com/{repo}/{commit}/"
               f"benchmarks/results/{name}.json")
        # a fixed https host
        with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310
            text = response.read().decode()
    data = json.loads(text)
    missing = FIELDS - set(data)
    if missing or data["benchmark"] != name:
        raise ValueError(
            f"benchmarks/results/{name}.json is not a results file of "
            f"benchmark {name!r}: missing {sorted(missing)}, "
            f"benchmark={data.get('benchmark')!r}")
    return BenchmarkResults(
        data["benchmark"], data["command"], data["date"], data["commit"],
        data["machine"], str(data["threads"]), data["results"],
        data["sources"])
