"""Execute chapter notebooks in place, top to bottom, reproducibly.

    python scripts/execute_notebooks.py book/ch01_attention.ipynb [more.ipynb ...]

Each notebook runs in a fresh kernel of the current Python environment, with
book/ as the working directory, and is saved with its outputs. Timing metadata
is not stored. The widget state is (``metadata.widgets``: the page needs it to
draw the precomputed explorers of attnlib.widgets without a kernel), with its
random model ids renamed to ids derived from the notebook's path and the order
in which the widgets were made, so re-running a notebook changes nothing but
figures' pixels when the code did not change. Any error stops the run with a
non-zero exit status.

The kernel is driven by the build's own client (book/_ext/execution_timing.py):
each cell is held to the build's per-cell budget (``execution_cell_budget`` in
_config.yml), a cell past it stops the run with a message naming the notebook
and the cell, and the time of the kernel start, the cells and the shutdown is
printed for each notebook.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

from book_web import inline_figures_in_kernels  # noqa: E402
from execution_timing import (  # noqa: E402
    DEFAULT_CELL_BUDGET,
    METADATA_KEY,
    CellBudgetExceeded,
    TimedNotebookClient,
    format_slowest,
)


def cell_budget(config: Path = ROOT / "_config.yml") -> float:
    """The build's per-cell budget in seconds, from _config.yml."""
    sphinx_config = (yaml.safe_load(config.read_text()).get("sphinx") or {}).get("config") or {}
    return sphinx_config.get("execution_cell_budget", DEFAULT_CELL_BUDGET)


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def stable_widget_ids(nb, label: str):
    """The notebook with every widget model id replaced by one derived from ``label`` and its order.

    The kernel names widget models by random UUIDs; they appear as keys of the saved
    state, inside it as ``IPY_MODEL_<id>`` references, and in the outputs' widget views.
    """
    state = (nb.metadata.get("widgets") or {}).get(WIDGET_STATE, {}).get("state")
    if not state:
        nb.metadata.pop("widgets", None)
        return nb
    text = nbformat.writes(nb)
    for i, old in enumerate(list(state)):
        new = hashlib.sha256(f"{label}:{i}".encode()).hexdigest()[:32]
        text = re.sub(re.escape(old), new, text)
    return nbformat.reads(text, as_version=4)


def execute(path: Path, timeout: int = 600, budget: float | None = None) -> dict:
    """Execute ``path`` in place; return its timing record (see execution_timing.TimedNotebookClient)."""
    nb = nbformat.read(path, as_version=4)
    try:
        label = path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        label = str(path)
    client = TimedNotebookClient(
        nb,
        label=label,
        cell_budget=cell_budget() if budget is None else budget,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.resolve())}},
        store_widget_state=True,  # False trips an nbclient bug with Output widgets; stripped below
    )
    client.execute()
    timing = nb.metadata.pop(METADATA_KEY)
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nb = stable_widget_ids(nb, label)
    nbformat.write(nb, path)
    return timing


def summary(timing: dict) -> str:
    return (f"{timing['notebook']}: executed in {timing['total']:.1f} s (kernel start {timing['kernel_start']:.1f} s, "
            f"{len(timing['cells'])} cells {timing['cells_total']:.1f} s, shutdown {timing['shutdown']:.1f} s)")


def main(argv: list[str]) -> int:
    # A kernel that inherits MPLBACKEND=Agg stores "<Figure ...>" text instead of the figure:
    # drop a non-inline backend before any kernel starts, as the build does.
    inline_figures_in_kernels()
    if not argv:
        print(__doc__)
        return 2
    timings = []
    for name in argv:
        try:
            timings.append(execute(Path(name)))
        except CellBudgetExceeded as err:
            print(f"FAILED: {err}", file=sys.stderr)
            return 1
        print(summary(timings[-1]))
    print(format_slowest(timings, 5))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
