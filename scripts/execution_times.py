"""Print the slowest cells of the last book build, from _build/execution_times.json.

    python scripts/execution_times.py                      # the 5 slowest cells
    python scripts/execution_times.py --slowest 10
    python scripts/execution_times.py --max-chapter 60     # also fail if a chapter took over 60 s
    python scripts/execution_times.py /tmp/b1/_build/execution_times.json

Every build writes _build/execution_times.txt (to read) and execution_times.json
(for this script) through book/_ext/execution_timing.py; .ci/run prints the five
slowest cells after the strict build.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

from execution_timing import format_slowest  # noqa: E402


def over(records: list[dict], seconds: float) -> list[dict]:
    """The chapters executed by the build whose total time exceeded ``seconds``."""
    return [r for r in records if r.get("source") == "executed" and (r.get("total") or 0) > seconds]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=ROOT / "_build" / "execution_times.json")
    parser.add_argument("--slowest", type=int, default=5, metavar="N", help="how many cells to print")
    parser.add_argument("--max-chapter", type=float, metavar="SECONDS",
                        help="exit 1 if a chapter executed by the build took longer")
    args = parser.parse_args(argv)
    if not args.path.exists():
        print(f"{args.path} does not exist: build the book first (jupyter-book build .)", file=sys.stderr)
        return 2
    records = json.loads(args.path.read_text())
    print(format_slowest(records, args.slowest))
    failures = [] if args.max_chapter is None else over(records, args.max_chapter)
    for record in failures:
        print(f"{record['notebook']} took {record['total']:.1f} s, over {args.max_chapter:g} s", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
