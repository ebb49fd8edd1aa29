"""Every cell of a chapter runs again after the whole chapter ran (issue 37).

    python scripts/rerun_cells.py book/ch05_certificate.ipynb [more.ipynb ...]

A reader goes back: changes a number in an earlier cell and runs it again, after the chapter has
run to its end. That fails when a later cell rebound a name the earlier one uses (``train = ...``
after ``from attnlib import train``), or consumed what it needs. This script runs each chapter in
one kernel, then runs every code cell a second time in order, past the set-up cells at the top
(the imports, which a reader does not re-run), and names each cell that fails the second time.
``scripts/check_kernels.sh`` runs it on the chapters it checks; it takes about twice as long as
executing them, which is why the README's test command does not (``tests/test_book_pedagogy.py``
shows on a small notebook that it catches a rebinding).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
from book_web import inline_figures_in_kernels  # noqa: E402

#: Tags of the set-up cells at the top of a chapter, which the second pass leaves out.
SETUP = {"remove-input", "hide-input"}


def second_pass(cells: list) -> list[int]:
    """Indices (among the code cells) that run again: all but the set-up cells at the top."""
    code = [c for c in cells if c.cell_type == "code"]
    start = 0
    while start < len(code) and SETUP & set(code[start].metadata.get("tags", [])):
        start += 1
    return list(range(start, len(code)))


def rerun(path: Path, timeout: int = 600) -> list[str]:
    """Run ``path`` and then its cells again; return one line per cell that failed the second time."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    again = second_pass(nb.cells)
    nb.cells = [copy.deepcopy(c) for c in code] + [copy.deepcopy(code[i]) for i in again]
    for cell in nb.cells:
        cell.outputs = []
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    client.execute()
    failures = []
    for i, cell in zip(again, nb.cells[len(code):], strict=True):
        for out in cell.outputs:
            if out.output_type == "error":
                first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
                failures.append(f"{path.name}, code cell {i} ({first[:50]!r}) fails when run again: "
                                f"{out.ename}: {out.evalue}")
    return failures


def main(argv: list[str]) -> int:
    inline_figures_in_kernels()
    if not argv:
        print(__doc__)
        return 2
    failures = [line for name in argv for line in rerun(Path(name))]
    for line in failures:
        print(line)
    print(f"{len(argv)} chapter(s) run twice: {len(failures)} cell(s) fail when run again")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
