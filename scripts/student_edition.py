"""Build the student edition of the book (no solutions), and check that it has none.

    python scripts/student_edition.py            # build into _build/student/_build/html, then check
    python scripts/student_edition.py --check    # only check an existing student build

The student edition is built from a solution-free copy of the repository, written to
``_build/student/src`` (the tracked files without ``assignments/``, ``tests/``, ``.ci/`` and
``benchmarks/``, with every ``{solution}`` block and every gated solution, ``{solution-start}`` to
``{solution-end}`` with the code cells between them, cut out of the chapters), with sphinx-exercise's
``hide_solutions`` option and a configuration derived from ``_config.yml`` at build time (so the
two editions never drift apart) whose ``repository.branch`` is ``student``. So:

- the ".ipynb" download button serves the page's source, which is the solution-free copy;
- the Binder, Colab and Live Code (Thebe) buttons open ``book/<chapter>.ipynb`` on the branch
  ``student`` of the repository, which the instructor publishes from ``_build/student/src``
  (``ghp-import -n -p -f -b student _build/student/src``): the same solution-free copies.

The check reads the body of every ``{solution}`` directive in the chapters and fails if any
distinctive line of one appears in the student HTML, if any solution element was rendered, if a
launch button points at another branch, or if any launch or download target (the file in
``_build/student/src`` a Binder or Colab link opens, or the ``.ipynb`` a download link serves)
holds solution text.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urljoin, urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "_build" / "student"
HTML = OUTPUT / "_build" / "html"
#: The solution-free copy of the repository: the student edition's source, published as STUDENT_BRANCH.
SOURCE = OUTPUT / "src"
STUDENT_BRANCH = "student"
#: Tracked folders that never go to students (assignment masters, tests that quote solutions, CI).
EXCLUDE = ("assignments/", "tests/", ".ci/", "benchmarks/")

SOLUTION = re.compile(r"```\{solution\}[^\n]*\n(.*?)\n```(?=\s*$|\s*\n)", re.S | re.M)


def student_config() -> dict:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["title"] = f"{config['title']} (student edition)"
    config.setdefault("repository", {})["branch"] = STUDENT_BRANCH
    config.setdefault("sphinx", {}).setdefault("config", {})["hide_solutions"] = True
    # Jupyter Book resolves local extension paths against the config file, which lives in a
    # temporary folder here: make them absolute.
    local = config["sphinx"].get("local_extensions") or {}
    config["sphinx"]["local_extensions"] = {name: str((ROOT / path).resolve()) for name, path in local.items()}
    # The chapters are committed with their outputs (scripts/execute_notebooks.py; nbval checks
    # them against a fresh run), and the student edition only cuts cells: it renders those
    # outputs and does not execute the chapters again. (Cutting the gated solutions' code cells
    # changes a chapter's hash, so the full build's jupyter cache could not serve it.)
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    return config


FENCE = re.compile(r"^(`{3,}|:{3,})\{solution\}")


def strip_solutions(text: str) -> str:
    """``text`` without its ``{solution}`` blocks (fenced by three or more backticks or colons)."""
    out, closing = [], None
    for line in text.splitlines(keepends=True):
        if closing is None:
            match = FENCE.match(line.strip())
            if match:
                closing = match.group(1)
                continue
            out.append(line)
        elif line.strip() == closing:
            closing = None
    return "".join(out)


GATED_START = re.compile(r"^(`{3,}|:{3,})\{solution-start\}", re.M)
GATED_END = re.compile(r"^(`{3,}|:{3,})\{solution-end\}[^\n]*\n(`{3,}|:{3,})[ \t]*(\n|$)", re.M)


def _text(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def strip_gated(cells: list[dict]) -> tuple[list[dict], list[str]]:
    """``cells`` without their gated solutions, and the text of each solution cut.

    A gated solution runs from a ``{solution-start}`` directive in a markdown cell to the next
    ``{solution-end}``: the code cells between them (the solution that executes in the full
    build), and the markdown around them. Text before the start and after the end stays.
    """
    out, bodies, body = [], [], None
    for cell in cells:
        text = _text(cell)
        markdown = cell["cell_type"] == "markdown"
        if body is None:
            start = GATED_START.search(text) if markdown else None
            if start is None:
                out.append(cell)
                continue
            if text[:start.start()].strip():
                out.append({**cell, "source": text[:start.start()]})
            body, text = [], text[start.start():]
        end = GATED_END.search(text) if markdown else None
        if end is None:
            body.append(text)
            continue
        body.append(text[:end.start()])
        bodies.append("\n".join(body))
        body = None
        if text[end.end():].strip():
            out.append({**cell, "source": text[end.end():]})
    if body is not None:
        raise ValueError("a {solution-start} without its {solution-end}: the rest of the chapter would be cut")
    return out, bodies


def strip_notebook(nb: dict) -> dict:
    nb["cells"], _ = strip_gated(nb["cells"])
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = strip_solutions(_text(cell))
    return nb


def tracked_files(root: Path = ROOT) -> list[str]:
    done = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def write_student_sources(dest: Path = SOURCE, root: Path = ROOT, files: list[str] | None = None) -> int:
    """Copy the tracked files to ``dest`` without solutions; returns how many solution blocks were cut."""
    if dest.exists():
        shutil.rmtree(dest)
    cut = 0
    for name in files if files is not None else tracked_files(root):
        if name.startswith(EXCLUDE) or not (root / name).is_file():
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name.startswith("book/") and name.endswith(".ipynb"):
            nb = json.loads((root / name).read_text())
            before = sum(len(SOLUTION.findall(_text(c))) for c in nb["cells"] if c["cell_type"] == "markdown")
            before += len(strip_gated(nb["cells"])[1])
            target.write_text(json.dumps(strip_notebook(nb), indent=1, ensure_ascii=False) + "\n")
            cut += before
        elif name.startswith("book/") and name.endswith(".md"):
            text = (root / name).read_text()
            cut += len(SOLUTION.findall(text))
            target.write_text(strip_solutions(text))
        else:
            shutil.copy2(root / name, target)
    return cut


def build() -> None:
    write_student_sources()
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        yaml.safe_dump(student_config(), f, sort_keys=False, allow_unicode=True)
        path = f.name
    try:
        subprocess.run(
            ["jupyter-book", "build", str(SOURCE), "--config", path, "--path-output", str(OUTPUT),
             "-W", "-n", "--keep-going"],
            check=True,
        )
    finally:
        Path(path).unlink()


def _sources(root: Path):
    """(markdown text, code text, gated solutions' text) of every page of the book; the first two
    without the gated solutions."""
    for page in sorted((root / "book").glob("*")):
        if page.suffix == ".ipynb":
            cells, gated = strip_gated(json.loads(page.read_text())["cells"])
            markdown = "\n".join(_text(c) for c in cells if c["cell_type"] == "markdown")
            code = "\n".join(_text(c) for c in cells if c["cell_type"] == "code")
            # a figure's caption and alt text (myst-nb cell metadata) are public text on the page too
            figures = [c.get("metadata", {}).get("mystnb", {}) for c in cells]
            code += "\n" + "\n".join(f"{m.get('figure', {}).get('caption', '')}\n{m.get('image', {}).get('alt', '')}"
                                     for m in figures if m)
            yield markdown, code, gated
        elif page.suffix == ".md":
            yield page.read_text(), "", []


def solution_texts(root: Path = ROOT) -> list[str]:
    """The body of every solution directive in the book's sources, gated solutions included."""
    return [body for markdown, _, gated in _sources(root) for body in SOLUTION.findall(markdown) + gated]


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[^A-Za-z ]+", " ", text).split())


def public_text(root: Path = ROOT) -> str:
    """Everything a student may see: the sources with the solution blocks cut out, and the
    library, whose docstrings make up the API reference."""
    library = [_normalise(path.read_text()) for path in sorted((root / "attnlib").rglob("*.py"))]
    book = [_normalise(SOLUTION.sub(" ", markdown) + "\n" + code) for markdown, code, _ in _sources(root)]
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


class _Links(HTMLParser):
    def __init__(self, text: str):
        super().__init__()
        self.hrefs: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def launch_targets(html_dir: Path) -> list[tuple[str, str, str, str]]:
    """(page, kind, branch, path) of every Binder, Colab and source download (.ipynb, .md) link in the HTML.

    ``path`` is the notebook's path in the repository (Binder, Colab; ``branch`` is the branch
    they open) or the file's path under ``html_dir`` (download; ``branch`` is empty).
    """
    found = []
    for page in sorted(html_dir.rglob("*.html")):
        rel = page.relative_to(html_dir).as_posix()
        for href in _Links(page.read_text()).hrefs:
            url = urlsplit(href)
            if "/v2/gh/" in url.path:                                # Binder: /v2/gh/org/name/branch?urlpath=tree/path
                parts = url.path.split("/v2/gh/", 1)[1].split("/")
                urlpath = parse_qs(url.query).get("urlpath", [""])[0]
                found.append((rel, "Binder", unquote("/".join(parts[2:])), re.sub(r"^(lab/)?tree/", "", urlpath)))
            elif url.netloc.startswith("colab.") and "/github/" in url.path:
                # Colab: /github/org/name/blob/branch/path
                parts = url.path.split("/github/", 1)[1].split("/")
                found.append((rel, "Colab", parts[3], "/".join(parts[4:])))
            elif not url.scheme and "_sources/" in url.path and url.path.endswith((".ipynb", ".md")):
                target = urlsplit(urljoin(rel, url.path)).path
                found.append((rel, "download", "", target))
    return found


def text_leaks(text: str, prints: list[str]) -> list[str]:
    """Solution fingerprints, or a ``{solution}`` directive, in the text of a notebook or page."""
    normal = _normalise(text)
    found = [p for p in prints if p in normal]
    if "{solution}" in text:
        found.append("a {solution} directive")
    return found


def target_leaks(html_dir: Path, source_dir: Path, root: Path = ROOT, branch: str = STUDENT_BRANCH) -> list[str]:
    """What is wrong with the launch and download targets of a student build."""
    visible = public_text(root)
    prints = [p for body in solution_texts(root) for p in fingerprints(body) if p not in visible]
    problems = []
    targets = launch_targets(html_dir)
    if not any(kind == "download" for _, kind, _, _ in targets):
        problems.append("no source download link (.ipynb, .md) in the student edition")
    for page, kind, on, path in targets:
        if kind == "download":
            file = html_dir / path
        else:
            if on != branch:
                problems.append(f"{page}: the {kind} button opens branch {on!r}, not {branch!r}")
                continue
            file = source_dir / path
        if not file.is_file():
            problems.append(f"{page}: the {kind} button points at {path}, which the student edition does not have")
            continue
        problems += [f"{page}: the {kind} target {path} holds {p!r}" for p in text_leaks(file.read_text(), prints)]
    for name in EXCLUDE:
        if (source_dir / name).exists():
            problems.append(f"the student source holds {name}")
    return problems


def check(html_dir: Path = HTML, source_dir: Path = SOURCE) -> int:
    if not html_dir.exists():
        print(f"no student build at {html_dir}; run python scripts/student_edition.py first")
        return 2
    n_solutions = len(solution_texts())
    problems = leaks(html_dir) + target_leaks(html_dir, source_dir)
    if problems:
        print(f"solution text found in the student edition ({len(problems)}):")
        for p in problems[:40]:
            print("  ", p)
        return 1
    targets = launch_targets(html_dir)
    counts = {k: sum(t[1] == k for t in targets) for k in ("Binder", "Colab", "download")}
    print(f"student edition at {html_dir}: none of the {n_solutions} solutions appears in it, nor in its "
          f"{counts['Binder']} Binder, {counts['Colab']} Colab and {counts['download']} download targets "
          f"(branch {STUDENT_BRANCH!r}, published from {source_dir})")
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
