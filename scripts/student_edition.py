"""Build the student edition of the book (no solutions), and check that it has none.

    python scripts/student_edition.py            # build into _build/student/_build/html, then check
    python scripts/student_edition.py --check    # only check an existing student build

The student edition is the book built with sphinx-exercise's ``hide_solutions``
option, from a configuration derived from ``_config.yml`` at build time (so the
two editions never drift apart), into a separate output folder. The check reads
the body of every ``{solution}`` directive in the chapters and fails if any
distinctive line of one appears in the student HTML, or if any solution element
was rendered at all.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "_build" / "student"
HTML = OUTPUT / "_build" / "html"

SOLUTION = re.compile(r"```\{solution\}[^\n]*\n(.*?)\n```(?=\s*$|\s*\n)", re.S | re.M)


def student_config() -> dict:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["title"] = f"{config['title']} (student edition)"
    config.setdefault("sphinx", {}).setdefault("config", {})["hide_solutions"] = True
    # Jupyter Book resolves local extension paths against the config file, which lives in a
    # temporary folder here: make them absolute.
    local = config["sphinx"].get("local_extensions") or {}
    config["sphinx"]["local_extensions"] = {name: str((ROOT / path).resolve()) for name, path in local.items()}
    return config


def build() -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        yaml.safe_dump(student_config(), f, sort_keys=False, allow_unicode=True)
        path = f.name
    try:
        subprocess.run(
            ["jupyter-book", "build", str(ROOT), "--config", path, "--path-output", str(OUTPUT),
             "-W", "-n", "--keep-going"],
            check=True,
        )
    finally:
        Path(path).unlink()


def _sources(root: Path):
    """(markdown text, code text) of every page of the book."""
    for page in sorted((root / "book").glob("*")):
        if page.suffix == ".ipynb":
            cells = json.loads(page.read_text())["cells"]
            markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
            code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
            yield markdown, code
        elif page.suffix == ".md":
            yield page.read_text(), ""


def solution_texts(root: Path = ROOT) -> list[str]:
    """The body of every solution directive in the book's sources."""
    return [body for markdown, _ in _sources(root) for body in SOLUTION.findall(markdown)]


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[^A-Za-z ]+", " ", text).split())


def public_text(root: Path = ROOT) -> str:
    """Everything a student may see: the sources with the solution blocks cut out, and the
    library, whose docstrings make up the API reference."""
    library = [_normalise(path.read_text()) for path in sorted((root / "attnlib").rglob("*.py"))]
    book = [_normalise(SOLUTION.sub(" ", markdown) + "\n" + code) for markdown, code in _sources(root)]
    return " ".join(book + library)


def fingerprints(body: str) -> list[str]:
    """Distinctive plain-text lines of a solution: long enough not to occur by chance."""
    lines = []
    for line in body.splitlines():
        line = line.strip()
        if line.startswith(":"):
            continue
        words = _normalise(line).split()
        if len(words) >= 6:
            lines.append(" ".join(words[:6]))
    return lines


def page_text(path: Path) -> str:
    raw = re.sub(r"<script.*?</script>|<style.*?</style>", " ", path.read_text(), flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", raw))
    return _normalise(text)


def leaks(html_dir: Path, root: Path = ROOT) -> list[str]:
    """Solution fingerprints or solution elements found in the HTML under ``html_dir``."""
    found = []
    visible = public_text(root)
    prints = [p for body in solution_texts(root) for p in fingerprints(body) if p not in visible]
    for page in sorted(html_dir.rglob("*.html")):
        raw = page.read_text()
        if re.search(r'class="[^"]*\bsolution\b', raw):
            found.append(f"{page.relative_to(html_dir)}: a solution element is rendered")
        text = page_text(page)
        found.extend(f"{page.relative_to(html_dir)}: {p!r}" for p in prints if p in text)
    return found


def check(html_dir: Path = HTML) -> int:
    if not html_dir.exists():
        print(f"no student build at {html_dir}; run python scripts/student_edition.py first")
        return 2
    n_solutions = len(solution_texts())
    problems = leaks(html_dir)
    if problems:
        print(f"solution text found in the student edition ({len(problems)}):")
        for p in problems[:40]:
            print("  ", p)
        return 1
    print(f"student edition at {html_dir}: none of the {n_solutions} solutions appears in it")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check an existing build")
    args = parser.parse_args(argv)
    if not args.check:
        build()
    return check()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
