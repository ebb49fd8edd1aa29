"""The preface's chapter map: which chapter needs which, drawn from the chapters' own boxes.

    python scripts/chapter_map.py            # print the dependencies
    python scripts/chapter_map.py --write    # redraw book/images/chapter-map.svg (and .pdf)

Each chapter's "Before you start" box names the earlier chapters it uses, as ``{doc}`` links on
its ``**Needs:**`` line (``scripts/pedagogy.py`` reads them). The map draws the chapters top to
bottom, coloured by part, with an arc from a chapter to each later chapter that needs it directly:
a need that follows through other chapters (5 needs 4, which needs 3) is not drawn again. The
SVG records its dependencies in its description, so ``tests/test_book_pedagogy.py`` can tell
that the picture is current without comparing drawings.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pedagogy  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "book" / "images" / "chapter-map.svg"
DESCRIPTION = re.compile(r"chapter map: ([^<]*)")


def parts() -> list[tuple[str, list[str]]]:
    """(part caption, chapter stems) of the numbered parts of _toc.yml."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [(p["caption"], [Path(c["file"]).name for c in p["chapters"]])
            for p in toc["parts"] if p.get("numbered")]


def edges() -> list[tuple[str, str]]:
    """(needed, needing) for every chapter's **Needs:** links, in chapter order."""
    return [(need, path.stem) for path in pedagogy.CHAPTERS for need in pedagogy.needs(path)]


def direct(pairs) -> list[tuple[str, str]]:
    """The pairs that no chain of other pairs implies (the transitive reduction): the arcs drawn."""
    pairs = list(pairs)
    reach = {a: {b for x, b in pairs if x == a} for a, _ in pairs}
    changed = True
    while changed:  # the transitive closure, by repeated extension (eleven chapters)
        changed = False
        for a in reach:
            more = set().union(*(reach.get(b, set()) for b in reach[a])) - reach[a]
            if more:
                reach[a] |= more
                changed = True
    return [(a, b) for a, b in pairs
            if not any(c != b and b in reach.get(c, set()) for c in reach[a])]


def describe(pairs) -> str:
    return "chapter map: " + "; ".join(f"{b} needs {a}" for a, b in pairs)


def recorded(svg: Path = SVG) -> str | None:
    """The dependencies the drawn map records, as :func:`describe` writes them."""
    if not svg.exists():
        return None
    found = DESCRIPTION.search(svg.read_text())
    return "chapter map: " + html.unescape(found.group(1).strip()) if found else None


def title(stem: str) -> str:
    cells = json.loads((ROOT / "book" / f"{stem}.ipynb").read_text())["cells"]
    return pedagogy.source(cells[0]).splitlines()[0].lstrip("# ").strip()


def draw(path: Path = SVG) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Arc

    sys.path.insert(0, str(ROOT))
    from attnlib.viz._style import COLORS

    matplotlib.rcParams["svg.hashsalt"] = "chapter-map"
    layout = parts()
    order = [stem for _, stems in layout for stem in stems]
    colour = {stem: COLORS[i] for i, (_, stems) in enumerate(layout) for stem in stems}
    y = {stem: -i for i, stem in enumerate(order)}
    fig, ax = plt.subplots(figsize=(6.0, 0.5 * len(order) + 0.4))
    for need, stem in direct(edges()):
        top, bottom = y[need], y[stem]
        height = top - bottom
        ax.add_patch(Arc((0, (top + bottom) / 2), width=0.55 * height, height=height, theta1=90, theta2=270,
                         color=colour[need], lw=1.6))
        ax.annotate("", xy=(0, bottom), xytext=(-0.12, bottom),
                    arrowprops={"arrowstyle": "-|>", "color": colour[need], "lw": 1.2})
    for stem in order:
        number = int(stem[2:4])
        ax.text(0.1, y[stem], f"{number}  {title(stem)}", va="center", ha="left", fontsize=14,
                bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": colour[stem], "lw": 1.6})
    span = max((y[a] - y[b] for a, b in direct(edges())), default=1)
    left = -0.3 * span - 0.75
    for i, (caption, stems) in enumerate(layout):
        top, bottom = y[stems[0]] + 0.35, y[stems[-1]] - 0.35
        ax.plot([left + 0.05] * 2, [top, bottom], color=COLORS[i], lw=4, solid_capstyle="butt")
        ax.text(left + 0.35, (top + bottom) / 2, caption.split(":")[0], rotation=90,
                va="center", ha="center", fontsize=14, color="0.2")
    ax.set_xlim(left, 6.2)
    ax.set_ylim(-len(order) + 0.4, 0.6)
    ax.axis("off")
    fig.patch.set_facecolor("white")
    fig.savefig(path, format="svg", bbox_inches="tight",
                metadata={"Date": None, "Description": describe(edges()), "Title": "Chapter map"})
    # the PDF edition takes the same drawing as PDF (the figure is images/chapter-map.*)
    fig.savefig(path.with_suffix(".pdf"), format="pdf", bbox_inches="tight",
                metadata={"CreationDate": None, "ModDate": None, "Title": "Chapter map"})
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="redraw book/images/chapter-map.svg")
    args = parser.parse_args(argv)
    for need, stem in edges():
        print(f"{stem} needs {need}")
    if args.write:
        draw()
        print(f"wrote {SVG.relative_to(ROOT)}")
    elif recorded() != describe(edges()):
        print("the drawn map is not current: python scripts/chapter_map.py --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
