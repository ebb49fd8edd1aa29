"""Execute chapter notebooks in place, top to bottom, reproducibly.

    python scripts/execute_notebooks.py book/ch01_attention.ipynb [more.ipynb ...]

Each notebook runs in a fresh kernel of the current Python environment, with
book/ as the working directory, and is saved with its outputs. Timing metadata
and widget state (random model ids) are not stored, so re-running a notebook
changes nothing but figures' pixels when the code changed. Any error stops the
run with a non-zero exit status.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def execute(path: Path, timeout: int = 600) -> float:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.resolve())}},
        record_timing=False,
        store_widget_state=True,  # False trips an nbclient bug with Output widgets; stripped below
    )
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)
    return seconds


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    for name in argv:
        seconds = execute(Path(name))
        print(f"{name}: executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
