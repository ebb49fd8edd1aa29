"""Build the PDF edition of the book: one typeset PDF, full or student edition.

    python scripts/book_pdf.py              # the full book -> _build/latex/book.pdf
    python scripts/book_pdf.py --student    # the student edition (no solutions), from the
                                            # solution-free copy scripts/student_edition.py writes
                                            # -> _build/student/_build/latex/book.pdf

Both run ``jupyter-book build <source> --builder pdflatex``: Sphinx's LaTeX writer with
sphinx-jupyterbook-latex, typeset by XeLaTeX through latexmk (the configuration is the
``latex:`` block and the ``latex_*`` settings of ``_config.yml``). Notebooks are not executed
again: the full edition reuses the jupyter cache of the HTML build (``execute_notebooks: cache``) in the same
output folder. The PDF is then copied next to the HTML edition (``_build/html`` or
``_build/student/_build/html``) under ``book_pdf_name``, where the download menu links it.

Without ``xelatex`` and ``latexmk`` the build is skipped (exit status 0) with a message saying
how to install them: ``bash scripts/install_latex.sh``. ``--require`` makes that a failure (CI).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import student_edition  # noqa: E402

TOOLS = ("xelatex", "latexmk")
#: Like the HTML build in .ci/run, any Sphinx warning of the LaTeX build fails it.
STRICT = ("-W", "--keep-going")


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def pdf_name() -> str:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return config.get("sphinx", {}).get("config", {}).get("book_pdf_name", "learning-attention-provably.pdf")


def page_count(pdf: Path) -> int | None:
    if shutil.which("pdfinfo") is None:
        return None
    out = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("Pages:"):
            return int(line.split()[1])
    return None


def build(student: bool) -> Path:
    """Run the LaTeX build; return the PDF."""
    if student:
        if not student_edition.SOURCE.exists():
            student_edition.write_student_sources()
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            yaml.safe_dump(student_edition.student_config(), f, sort_keys=False, allow_unicode=True)
            config = f.name
        command = ["jupyter-book", "build", str(student_edition.SOURCE), "--config", config,
                   "--path-output", str(student_edition.OUTPUT), "--builder", "pdflatex", *STRICT]
        output = student_edition.OUTPUT / "_build"
    else:
        config = None
        command = ["jupyter-book", "build", str(ROOT), "--builder", "pdflatex", *STRICT]
        output = ROOT / "_build"
    try:
        done = subprocess.run(command)
    finally:
        if config:
            Path(config).unlink()
    pdf = output / "latex" / "book.pdf"
    if done.returncode != 0 or not pdf.exists():
        raise SystemExit(f"the PDF build failed (exit status {done.returncode}); see the LaTeX log "
                         f"{output / 'latex' / 'book.log'}")
    html = output / "html"
    if html.is_dir():
        shutil.copy2(pdf, html / pdf_name())
    return pdf


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--student", action="store_true", help="the student edition (no solutions)")
    parser.add_argument("--require", action="store_true", help="fail, not skip, without TeX")
    args = parser.parse_args(argv)
    missing = missing_tools()
    if missing:
        print(f"PDF edition {'failed (--require)' if args.require else 'skipped'}: {', '.join(missing)} not found. "
              "Install TeX with "
              "`bash scripts/install_latex.sh` (Debian/Ubuntu; see CONTRIBUTING.md), then rerun "
              f"`python scripts/book_pdf.py{' --student' if args.student else ''}`.")
        return 1 if args.require else 0
    start = time.monotonic()
    pdf = build(args.student)
    pages = page_count(pdf)
    edition = "student edition" if args.student else "full edition"
    print(f"PDF ({edition}): {pdf.relative_to(ROOT)}, {pages if pages is not None else '?'} pages, "
          f"{pdf.stat().st_size / 1e6:.1f} MB, built in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
