"""How a page teaches, measured: the mechanical rules of the second edition (issues 37 and 38).

    python scripts/pedagogy.py                          # every chapter: a table, then each problem
    python scripts/pedagogy.py book/ch05_certificate.ipynb
    python scripts/pedagogy.py --write                  # update each chapter's study time line

The rules, read from the chapters' sources (``tests/test_book_pedagogy.py`` holds every chapter to
them):

- **A page a student can finish.** The *core path* is the markdown prose before ``## Exercises``,
  outside exercises, solutions, hints, dropdowns and folded side paths (``% audit-start`` ...
  ``% audit-end``), without code, display maths or comments: at most ``CORE_WORDS`` words a page and
  ``CELL_WORDS`` a markdown cell.
- **The first cell** holds "What you will learn", "Before you start" (a ``**Needs:**`` line whose
  ``{doc}`` links name the earlier chapters the page uses, drawn as the preface's chapter map, and
  a ``**Study time:**`` line computed here) and a folded "Symbols in this chapter" box.
- **Each main section ends with a "Key idea" box**; after the Summary, a ``## Check yourself``
  section asks 3-5 questions, each with a folded answer.
- **Exercises**: at least one at the point of use (before ``## Exercises``, with a stub cell the
  build does not run, tagged ``skip-execution``); a folded hint before the solution of every ★★ and
  ★★★; no solution whose code does not run (code goes into a gated ``solution-start`` ...
  ``solution-end`` solution, which executes); solution cells neither use the chapter's ``rng`` nor
  define a name that a later cell uses (the student edition drops them).
- **Show what the page uses**: no cell whose input is removed from the page defines a name that
  another cell uses, and no cell rebinds a name the chapter imported.

The study time is reading the core path at ``READING_WPM`` words a minute, ``CODE_MINUTES`` a
code cell of the core path, and the exercises' own minutes (their ``(★★, 20 min)`` marks), rounded
to a quarter of an hour.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("ch[0-9][0-9]_*.ipynb"))

#: "About 3,000 words" a page (issue 37), and no cell over about 400: the limits, with a little room.
CORE_WORDS = 3050
CELL_WORDS = 400
READING_WPM = 60
CODE_MINUTES = 1.0

#: Tags that take a cell's input off the page.
REMOVED = {"remove-input", "remove-cell"}
FOLDED_CODE = {"hide-input", "hide-cell"}
#: Calls a cell may make and still only hand numbers to the prose: glue, read a results file, print.
PLUMBING = {"glue", "benchmark_results", "print", "format_value", "markdown_table"}
#: Calls that only format or pick what a plumbing cell passes on.
FORMATTING = {"len", "float", "int", "str", "round", "sum", "min", "max", "sorted", "dict", "list", "zip",
              "enumerate", "items", "values", "keys", "get", "replace", "format", "join", "fill"}
FENCE = re.compile(r"^(`{3,}|:{3,})\s*(\{([\w:-]+)\})?\s*(.*)$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.M)
MINUTES = re.compile(r"\((★+),\s*(\d+)\s*min\)")
EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}\s*(.*)$")
STUDY = re.compile(r"^\*\*Study time:\*\*.*$", re.M)
NEEDS = re.compile(r"^\*\*Needs:\*\*(.*(?:\n(?![ \t]*$|\*\*|`{3,}).*)*)", re.M)  # the line and its wrapped continuation
DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?(ch\d\d_\w+)>?`")
AUDIT_START = re.compile(r"^% audit-start\s*$", re.M)
AUDIT_END = re.compile(r"^% audit-end\s*$", re.M)
#: Sections that need no Key idea box.
NO_KEY_IDEA = ("Summary", "Check yourself", "Exercises")


def source(cell) -> str:
    text = cell["source"]
    return "".join(text) if isinstance(text, list) else text


def tags(cell) -> set:
    return set(cell.get("metadata", {}).get("tags", []))


@dataclass
class Block:
    """A fenced block of a markdown cell: its directive (or language), options, title and body."""

    name: str
    title: str
    options: dict
    body: str


def blocks(text: str):
    """Split markdown into prose pieces (str) and fenced blocks (Block), at the top level."""
    lines = text.splitlines()
    i, prose = 0, []
    while i < len(lines):
        match = FENCE.match(lines[i].strip())
        if not match:
            prose.append(lines[i])
            i += 1
            continue
        if prose:
            yield "\n".join(prose)
            prose = []
        fence = match.group(1)
        name = match.group(3) or ("code" if fence[0] == "`" else "")
        title = match.group(4) if match.group(3) else ""
        i += 1
        options, body = {}, []
        while i < len(lines) and re.match(r"^:[\w-]+:", lines[i].strip()) and not body:
            key, _, value = lines[i].strip()[1:].partition(":")
            options[key] = value.strip()
            i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                break
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        yield Block(name, title, options, "\n".join(body))
    if prose:
        yield "\n".join(prose)


def folded(block: Block) -> bool:
    return ("dropdown" in block.options.get("class", "").split()
            or block.name in {"exercise", "solution", "code", "math", "index", "glossary"}
            or not block.name.replace("prf:", "").replace("-", "").isalpha())


def prose_words(text: str) -> int:
    """Words of prose: code, display maths, comments and label lines left out."""
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"^%.*$", " ", text, flags=re.M)  # MyST comments
    text = re.sub(r"^\(\S+\)=\s*$", " ", text, flags=re.M)
    text = STUDY.sub(" ", text)  # the study time line is computed from the rest
    text = re.sub(r"^( {4}|\t).*$", " ", text, flags=re.M)  # indented code
    return len(text.split())


def core_words_of(text: str) -> int:
    total = 0
    for piece in blocks(text):
        if isinstance(piece, str):
            total += prose_words(piece)
        elif not folded(piece) and piece.name not in {"solution-start", "solution-end"}:
            total += prose_words(piece.title) + core_words_of(piece.body)
    return total


@dataclass
class Page:
    path: Path
    cells: list
    core: dict = field(default_factory=dict)        # markdown cell index -> core words
    core_code: int = 0
    exercise_minutes: int = 0
    problems: list = field(default_factory=list)

    @property
    def core_words(self) -> int:
        return sum(self.core.values())

    @property
    def largest_cell(self) -> int:
        return max(self.core.values(), default=0)

    def study_minutes(self) -> tuple[int, int, int]:
        return (round(self.core_words / READING_WPM), round(self.core_code * CODE_MINUTES),
                self.exercise_minutes)

    def study_line(self) -> str:
        reading, code, exercises = self.study_minutes()
        quarters = max(1, round((reading + code + exercises) / 15))
        hours, rest = divmod(quarters, 4)
        frac = {0: "", 1: "¼", 2: "½", 3: "¾"}[rest]
        total = f"{hours}{frac} hours" if hours else f"{15 * rest} minutes"
        if hours == 1 and not frac:
            total = "1 hour"
        return (f"**Study time:** about {total}: reading {reading} min, the code {code} min, "
                f"the exercises {exercises} min.")


def walk(path: Path) -> Page:
    """Measure one chapter: its core path, and the places where it breaks a rule."""
    cells = json.loads(path.read_text())["cells"]
    page = Page(path, cells)
    in_audit = in_solution = in_exercises = False
    section = None
    key_ideas: dict[str, bool] = {}
    for index, cell in enumerate(cells):
        text = source(cell)
        if cell["cell_type"] == "markdown":
            heading = HEADING.search(text)
            for level, title in HEADING.findall(text):
                if len(level) == 2:
                    section = title
                    key_ideas.setdefault(title, False)
                    if title.startswith("Exercises"):
                        in_exercises = True
            if "{admonition} Key idea" in text and section is not None:
                key_ideas[section] = True
            starts_audit = AUDIT_START.search(text) is not None
            starts_solution = "{solution-start}" in text
            if not (in_audit or in_solution or in_exercises):
                before = re.split(r"^(?:`{3,}\{solution-start\}|% audit-start\s*$)", text, maxsplit=1,
                                  flags=re.M)[0]
                words = core_words_of(before)
                if words or heading:
                    page.core[index] = words
            if AUDIT_END.search(text):
                in_audit = False
                after = text[AUDIT_END.search(text).end():]
                page.core[index] = page.core.get(index, 0) + core_words_of(after)
            if "{solution-end}" in text:
                in_solution = False
            in_audit = in_audit or starts_audit
            in_solution = in_solution or starts_solution
        elif not (in_audit or in_solution or in_exercises) and not tags(cell) & (REMOVED | {"skip-execution"}):
            page.core_code += 1
            if not tags(cell) & FOLDED_CODE and only_plumbing(cell):
                page.problems.append(f"cell {index} only glues numbers or reads results files: fold it "
                                     "(tag hide-input) or move it into a side path")
    page.exercise_minutes = sum(int(m) for cell in cells if cell["cell_type"] == "markdown"
                                for line in source(cell).splitlines() if EXERCISE.match(line.strip())
                                for _, m in MINUTES.findall(line))
    page.problems += size_problems(page) + first_cell_problems(page) + section_problems(page, key_ideas)
    page.problems += exercise_problems(cells) + name_problems(cells)
    return page


def size_problems(page: Page) -> list[str]:
    out = []
    if page.core_words > CORE_WORDS:
        out.append(f"core path of {page.core_words} words (at most {CORE_WORDS})")
    out += [f"cell {i}: {w} words on the core path (at most {CELL_WORDS})"
            for i, w in page.core.items() if w > CELL_WORDS]
    return out


def first_cell_problems(page: Page) -> list[str]:
    first = source(page.cells[0])
    out = []
    for title in ("What you will learn", "Before you start", "Symbols in this chapter"):
        if "{admonition} " + title not in first:
            out.append(f"the first cell has no '{title}' box")
    if not NEEDS.search(first):
        out.append("'Before you start' has no **Needs:** line")
    symbols = first.split("{admonition} Symbols in this chapter", 1)
    if len(symbols) == 2 and ":class: dropdown" not in symbols[1].split("\n", 3)[1]:
        out.append("the 'Symbols in this chapter' box is not folded (:class: dropdown)")
    found = STUDY.search(first)
    if not found or found.group(0) != page.study_line():
        out.append(f"study time is not current (python scripts/pedagogy.py --write): want '{page.study_line()}'")
    if found and re.match(r"\n[ \t]*[^\s*`:]", first[found.end():]):
        out.append("the **Study time:** line splits a paragraph: it goes after the whole **Needs:** paragraph")
    if re.search(r"What you will learn.*?```", first, re.S) and re.search(
            r"(Lemma|Proposition|Theorem|Corollary) \d", first.split("What you will learn", 1)[1].split("```", 1)[0]):
        out.append("'What you will learn' names lemma or proposition numbers: say it in words")
    return out


def section_problems(page: Page, key_ideas: dict) -> list[str]:
    out = [f"section '{title}' does not end with a Key idea box" for title, has in key_ideas.items()
           if not has and not title.startswith(NO_KEY_IDEA)]
    check = [source(c) for c in page.cells if c["cell_type"] == "markdown"]
    text = "\n".join(check)
    if "## Check yourself" not in text:
        out.append("no '## Check yourself' section")
    else:
        part = text.split("## Check yourself", 1)[1].split("\n## ", 1)[0]
        answers = len(re.findall(r"\{admonition\} Answer\s*\n:class: dropdown", part))
        if not 3 <= answers <= 5:
            out.append(f"'Check yourself' has {answers} folded answers (3 to 5)")
    return out


def exercise_problems(cells: list) -> list[str]:
    out, open_exercises, seen_point_of_use = [], {}, False
    in_exercises = False
    for index, cell in enumerate(cells):
        text = source(cell)
        if cell["cell_type"] == "code":
            if "skip-execution" in tags(cell) and not in_exercises and open_exercises:
                seen_point_of_use = True
            if "skip-execution" in tags(cell) and not {"nbval-skip", "raises-exception"} <= tags(cell):
                out.append(f"cell {index}: a stub needs the tags nbval-skip and raises-exception too (so that "
                           "nbval skips it and JupyterLab's Run All goes past its NotImplementedError)")
            continue
        in_exercises = in_exercises or bool(re.search(r"^## Exercises", text, re.M))
        for piece in blocks(text):
            if not isinstance(piece, Block):
                continue
            if piece.name == "exercise":
                label = piece.options.get("label", "")
                stars = (MINUTES.search(piece.title) or [None, ""])[1]
                open_exercises[label] = {"stars": len(stars), "hint": False}
            elif piece.name == "admonition" and piece.title.startswith("Hint"):
                if "dropdown" not in piece.options.get("class", ""):
                    out.append(f"cell {index}: a hint that is not folded (:class: hint dropdown)")
                for state in open_exercises.values():
                    state["hint"] = state["hint"] or not state.get("solved")
            elif piece.name in ("solution", "solution-start"):
                label = piece.title.strip()
                state = open_exercises.get(label)
                if state is None:
                    continue
                if state["stars"] >= 2 and not state["hint"]:
                    out.append(f"{label}: a ★★ or ★★★ exercise with no folded hint before its solution")
                if piece.name == "solution" and (re.search(r"^( {4}|\t)\S", piece.body, re.M) or "```" in piece.body):
                    out.append(f"{label}: a solution with code that does not run (use solution-start ... solution-end)")
                del open_exercises[label]
    if not seen_point_of_use:
        out.append("no exercise at the point of use (an exercise before '## Exercises' with a stub "
                   "cell tagged skip-execution)")
    return out


def only_plumbing(cell) -> bool:
    """Whether a code cell does nothing a reader would type: every call in it glues a number, reads a
    benchmark's results file, prints or formats, and at least one glues or reads."""
    tree = _code(cell)
    if tree is None:
        return False
    called = [node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
              for node in ast.walk(tree) if isinstance(node, ast.Call)]
    return (any(name in PLUMBING - {"print"} for name in called)
            and all(name in PLUMBING | FORMATTING for name in called))


def _code(cell) -> ast.Module | None:
    lines = [line for line in source(cell).splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


class _TopLevel(ast.NodeVisitor):
    """Names a cell binds at the top level (not inside functions or comprehensions), and imports."""

    def __init__(self):
        self.bound, self.imported = set(), set()

    def visit_Import(self, node):
        self.imported |= {(a.asname or a.name).split(".")[0] for a in node.names}

    visit_ImportFrom = visit_Import

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store):
            self.bound.add(node.id)

    def visit_FunctionDef(self, node):
        self.bound.add(node.name)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        pass

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda


def bindings(tree) -> tuple[set, set]:
    visitor = _TopLevel()
    visitor.visit(tree)
    return visitor.bound, visitor.imported


def used(tree) -> set:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def name_problems(cells: list) -> list[str]:
    out = []
    code = [(i, c, _code(c)) for i, c in enumerate(cells) if c["cell_type"] == "code"]
    code = [(i, c, t) for i, c, t in code if t is not None and "skip-execution" not in tags(c)]
    imported = set()
    for _, _, tree in code:
        imported |= bindings(tree)[1]
    for i, cell, tree in code:
        bound, _ = bindings(tree)
        clash = sorted(bound & imported)
        if clash:
            out.append(f"cell {i} rebinds what the chapter imported: {', '.join(clash)}")
        if tags(cell) & REMOVED:
            defined = bound | bindings(tree)[1]
            users = sorted({name for j, _, other in code if j != i for name in used(other) & defined})
            if users:
                out.append(f"cell {i} is removed from the page but defines what other cells use: {', '.join(users)}")
    solution_cells, inside = [], False
    for i, cell in enumerate(cells):
        text = source(cell)
        if cell["cell_type"] == "markdown":
            if "{solution-start}" in text:
                inside = True
            if "{solution-end}" in text:
                inside = False
        elif inside:
            solution_cells.append(i)
    trees = dict((i, t) for i, _, t in code)
    for i in solution_cells:
        tree = trees.get(i)
        if tree is None:
            continue
        if "rng" in used(tree) | bindings(tree)[0]:
            out.append(f"cell {i} (a solution) uses the chapter's rng: give it its own generator")
        later = {name for j, other in trees.items() if j > i and j not in solution_cells for name in used(other)}
        leaked = sorted(bindings(tree)[0] & later - imported)
        leaked = [n for n in leaked if not any(n in bindings(t)[0] for j, t in trees.items()
                                               if j not in solution_cells)]
        if leaked:
            out.append(f"cell {i} (a solution) defines what a later cell uses: {', '.join(leaked)}")
    return out


def needs(path: Path) -> list[str]:
    """The chapters that ``path``'s "Before you start" box says it needs (stems, in order)."""
    first = source(json.loads(path.read_text())["cells"][0])
    found = NEEDS.search(first)
    return DOC.findall(found.group(1)) if found else []


def write_study_time(page: Page) -> bool:
    """Put the page's study time line after its **Needs:** line; True if the file changed."""
    nb = json.loads(page.path.read_text())
    first = source(nb["cells"][0])
    line = page.study_line()
    if STUDY.search(first):
        new = STUDY.sub(line, first, count=1)
    elif NEEDS.search(first):
        found = NEEDS.search(first)
        new = first[:found.end()] + "\n" + line + first[found.end():]
    else:
        return False
    if new == first:
        return False
    nb["cells"][0]["source"] = new.splitlines(keepends=True)
    page.path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("chapters", nargs="*", type=Path)
    parser.add_argument("--write", action="store_true", help="update each chapter's study time line")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.chapters] or CHAPTERS
    failed = 0
    print(f"{'chapter':28} {'core words':>10} {'largest cell':>12} {'study (min)':>12}  problems")
    for path in paths:
        page = walk(path)
        if args.write and write_study_time(page):
            page = walk(path)
        failed += bool(page.problems)
        minutes = sum(page.study_minutes())
        print(f"{path.stem:28} {page.core_words:>10} {page.largest_cell:>12} {minutes:>12}  {len(page.problems)}")
    for path in paths:
        for problem in walk(path).problems:
            print(f"{path.stem}: {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
