"""Pin the README's install line and every chapter's Colab install cell to the commit of a release.

On Colab a chapter's install cell installs ``attnlib`` and downloads the book's own helpers,
``book/bookkit.py``, both from the same commit: the script pins the two together.

    python scripts/pin_release.py            # the commit that released pyproject.toml's version
    python scripts/pin_release.py COMMIT     # or this one

The repository's history carries no release tags that a fresh clone could be trusted to have, so a
release is pinned by its commit: ``attnlib @ git+<repository.url>@<commit>``. The commit is, by
default, the one that set ``pyproject.toml``'s version to the newest release of ``CHANGELOG.md``
(step 2 of "Releasing" in CONTRIBUTING.md); the script checks that its version is that release,
then rewrites the install lines (and the chapters' download of ``book/bookkit.py``) in place.
``tests/test_release.py`` fails until they agree, and whenever ``attnlib/`` or ``book/bookkit.py``
changes after the pinned release (Colab readers would run the chapters on the older code).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
URL = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
#: ``git+<url>`` with an optional ``@<ref>``, up to the closing quote of the install argument
INSTALL = re.compile(r'(git\+' + re.escape(URL) + r')(?:@[\w.-]+)?(?=\\?")')
#: the chapters' download of the book's helpers on Colab: ``<raw files of the repository>/<ref>/book/bookkit.py``
HELPERS = re.compile(r"(" + re.escape(URL.replace("https://github.com/", "https://raw.githubusercontent.com/", 1))
                     + r")/[\w.-]+(?=/book/bookkit\.py)")


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def newest_release() -> str:
    found = re.search(r"(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", (ROOT / "CHANGELOG.md").read_text())
    if not found:
        raise SystemExit("CHANGELOG.md has no released section (## [X.Y.Z] - YYYY-MM-DD)")
    return found.group(1)


def version_at(commit: str) -> str:
    return tomllib.loads(git("show", f"{commit}:pyproject.toml"))["project"]["version"]


def release_commit(version: str) -> str:
    """The oldest commit of HEAD's history whose pyproject.toml has this version."""
    for commit in git("rev-list", "--reverse", "HEAD", "--", "pyproject.toml").splitlines():
        if version_at(commit) == version:
            return commit
    raise SystemExit(f"no commit of this history sets pyproject.toml's version to {version}")


def pin(text: str, commit: str) -> tuple[str, int]:
    return INSTALL.subn(rf"\1@{commit}", text)


def pin_helpers(text: str, commit: str) -> tuple[str, int]:
    return HELPERS.subn(rf"\1/{commit}", text)


def setup_cell(notebook: dict) -> dict:
    return next(c for c in notebook["cells"] if c["cell_type"] == "code")


def main(argv: list[str]) -> int:
    version = newest_release()
    commit = git("rev-parse", argv[0] + "^{commit}") if argv else release_commit(version)
    if version_at(commit) != version:
        raise SystemExit(f"{commit[:12]} has version {version_at(commit)}, not the newest release {version}")
    readme = ROOT / "README.md"
    text, count = pin(readme.read_text(), commit)
    if count != 1:
        raise SystemExit(f"README.md: expected one install line from {URL}, found {count}")
    readme.write_text(text)
    for path in sorted((ROOT / "book").glob("ch*.ipynb")):
        notebook = json.loads(path.read_text())
        cell = setup_cell(notebook)
        source = "".join(cell["source"])
        new, count = pin(source, commit)
        if count != 1:
            raise SystemExit(f"{path.relative_to(ROOT)}: expected one Colab install line, found {count}")
        new, count = pin_helpers(new, commit)
        if count != 1:
            raise SystemExit(f"{path.relative_to(ROOT)}: expected one Colab download of book/bookkit.py, found {count}")
        cell["source"] = new.splitlines(keepends=True)
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    print(f"pinned the README and every chapter to {commit} (release {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
