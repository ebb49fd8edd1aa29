"""The exercise table of the instructor's guide, computed from the chapters' (★, N min) marks.

    python scripts/exercise_times.py           # print the table
    python scripts/exercise_times.py --write   # update it in book/instructors.md

Every exercise title ends with its difficulty and time, e.g. ``(★★, 20 min)``, and its
text starts with its kind (*Pen and paper.*, *Coding.*, *Predict, then run.*, or
*Pen and paper, then coding.*, which counts as both). The table has one row per
chapter of ``_toc.yml``; ``tests/test_book.py`` checks that the guide's copy is current.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "book" / "instructors.md"
START, END = "<!-- exercise-times:start -->", "<!-- exercise-times:end -->"
EXERCISE = re.compile(r"`{3,4}\{exercise\}([^\n]*)\n:label: ([\w-]+)\n(.*?)\n`{3,4}\n", re.S)
KINDS = {"*Pen and paper.*": ("pen",), "*Coding.*": ("coding",), "*Predict, then run.*": ("predict",),
         "*Pen and paper, then coding.*": ("pen", "coding")}


def chapters() -> list[Path]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [ROOT / f"{f}.ipynb" for f in files if (ROOT / f"{f}.ipynb").exists()]


def chapter_stats(path: Path) -> dict:
    cells = json.loads(path.read_text())["cells"]
    title = "".join(cells[0]["source"]).splitlines()[0].lstrip("# ").strip()
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    stats = {"number": int(re.match(r"ch(\d+)", path.stem).group(1)), "title": title, "count": 0,
             "stars": [0, 0, 0], "pen": 0, "coding": 0, "predict": 0, "minutes": 0}
    for heading, label, body in EXERCISE.findall(text):
        mark = re.search(r"\((★{1,3}), (\d+) min\)\s*$", heading)
        if not mark:
            raise ValueError(f"{path.name}: exercise {label} has no (★, N min) mark: {heading!r}")
        stats["count"] += 1
        stats["stars"][len(mark.group(1)) - 1] += 1
        stats["minutes"] += int(mark.group(2))
        for kind in next((v for k, v in KINDS.items() if body.lstrip().startswith(k)), ()):
            stats[kind] += 1
    return stats


#: the columns of the table, and their widths (a list-table with widths, so that print and phones
#: keep every column readable)
HEADER = ("chapter", "exercises", "★ / ★★ / ★★★", "pen and paper", "coding", "predict, then run", "minutes")
WIDTHS = (29, 12, 14, 10, 10, 13, 12)


def table() -> str:
    rows = [chapter_stats(p) for p in chapters()]
    cells = [HEADER]
    for r in rows:
        cells.append((f"{r['number']}. {r['title']}", r["count"], " / ".join(map(str, r["stars"])), r["pen"],
                      r["coding"], r["predict"], r["minutes"]))
    total = {k: sum(r[k] for r in rows) for k in ("count", "pen", "coding", "predict", "minutes")}
    stars = [sum(r["stars"][i] for r in rows) for i in range(3)]
    cells.append(("**all chapters**", total["count"], " / ".join(map(str, stars)), total["pen"], total["coding"],
                  total["predict"], f"{total['minutes']} ({total['minutes'] / 60:.1f} h)"))
    lines = ["```{list-table}", ":header-rows: 1", f":widths: {' '.join(map(str, WIDTHS))}", ""]
    for row in cells:
        lines += [("* - " if j == 0 else "  - ") + str(cell) for j, cell in enumerate(row)]
    return "\n".join([*lines, "```"])


def guide_table(text: str) -> str:
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"update the table in {GUIDE.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    new = table()
    if args.write:
        text = GUIDE.read_text()
        head, rest = text.split(START, 1)
        GUIDE.write_text(f"{head}{START}\n{new}\n{END}{rest.split(END, 1)[1]}")
    print(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
