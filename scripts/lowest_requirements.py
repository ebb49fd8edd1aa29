"""The lowest versions that pyproject.toml allows, as exact pins: CI installs them to prove the floors.

    python scripts/lowest_requirements.py --extra viz > lowest.txt
    python -m pip install -c lowest.txt -e ".[viz]"

Prints one ``name==version`` line for each dependency of ``[project]`` and of the extras asked for,
at the floor its ``>=`` states (an exact ``==`` pin is printed as it is). A dependency with no floor
is refused with a message naming it: its lowest version would be whatever the index holds, which
nobody has tested. ``.ci/run`` installs these pins into a fresh venv and runs the library's tests
and doctests there (not the chapters: printed digits may differ between versions).
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ``name[extras] >= 1.2, < 3 ; marker`` -> the name and its floor (or exact pin)
FLOOR = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:>=|==)\s*([0-9][^,;\s]*)")


def lowest(pyproject: dict, extras: list[str]) -> list[str]:
    """``name==floor`` for every dependency of the project and of ``extras``."""
    project = pyproject["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [extra for extra in extras if extra not in optional]
    if unknown:
        raise ValueError(f"extras must be among {sorted(optional)}; got {unknown}")
    pins = []
    for requirement in [*project["dependencies"], *(r for extra in extras for r in optional[extra])]:
        match = FLOOR.match(requirement)
        if match is None:
            raise ValueError(f"{requirement!r} in pyproject.toml has no floor: write it as 'name>=version'")
        pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", action="append", default=[], help="an optional dependency group (repeatable)")
    args = parser.parse_args(argv)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    try:
        print("\n".join(lowest(pyproject, args.extra)))
    except ValueError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
