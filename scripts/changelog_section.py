"""One release's notes from CHANGELOG.md, and the check that a pushed tag is the version released.

    python scripts/changelog_section.py 0.2.0                # the body of "## [0.2.0] - 2026-12-04"
    python scripts/changelog_section.py --check-tag v0.2.0   # the tag is "v" + pyproject.toml's
                                                             # version, which has a released section

Called by .github/workflows/release.yml: its build job checks the pushed tag before building
anything, and its GitHub release takes its notes from the section. CHANGELOG.md keeps a changelog
(keepachangelog.com 1.1.0): a released section is a heading ``## [X.Y.Z] - YYYY-MM-DD``, and its
body runs to the next ``## `` heading (or to the link definitions that close the file). Fails with
exit status 1 and a message naming what to fix when the section is missing or empty, or when the
tag is not the version of pyproject.toml.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?\s*$")
LINK_DEFINITION = re.compile(r"^\[[^\]]+\]: \S+\s*$")


class ChangelogError(ValueError):
    """The changelog, the tag or the version is not what a release needs."""


def section(changelog: str, version: str) -> str:
    """The body of the released section ``## [version] - date``, without blank lines around it."""
    lines = changelog.splitlines()
    starts = [(i, m) for i, m in ((i, HEADING.match(line)) for i, line in enumerate(lines)) if m]
    found = [(i, m) for i, m in starts if m["version"] == version]
    if not found:
        raise ChangelogError(f"CHANGELOG.md has no section '## [{version}] - YYYY-MM-DD': move the entries "
                             "under '## [Unreleased]' to it (CONTRIBUTING.md, Releasing)")
    if len(found) > 1:
        raise ChangelogError(f"CHANGELOG.md has {len(found)} sections '## [{version}]'; a version has one")
    start, match = found[0]
    if match["date"] is None:
        raise ChangelogError(f"CHANGELOG.md's section '## [{version}]' has no date: it is not released "
                             "(a released section is '## [X.Y.Z] - YYYY-MM-DD')")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    body = lines[start + 1:end]
    if end == len(lines):  # the last section: the file's link definitions are not part of it
        while body and (not body[-1].strip() or LINK_DEFINITION.match(body[-1])):
            body.pop()
    text = "\n".join(body).strip("\n")
    if not text.strip():
        raise ChangelogError(f"CHANGELOG.md's section '## [{version}]' is empty")
    return text + "\n"


def project_version(pyproject: str) -> str:
    """``version`` of ``[project]`` in the text of pyproject.toml."""
    try:
        return tomllib.loads(pyproject)["project"]["version"]
    except KeyError as error:
        raise ChangelogError("pyproject.toml has no [project] version") from error


def check_tag(tag: str, changelog: str, pyproject: str) -> str:
    """The version a tag releases; raises unless the tag is ``v`` + pyproject.toml's version and
    the changelog has that version's released section."""
    version = project_version(pyproject)
    if tag != f"v{version}":
        raise ChangelogError(f"the tag {tag!r} is not 'v' + pyproject.toml's version {version!r} (v{version}): "
                             "tag the commit that sets the version (CONTRIBUTING.md, Releasing)")
    section(changelog, version)
    return version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("version", nargs="?", help="print the body of this version's section, e.g. 0.2.0")
    what.add_argument("--check-tag", metavar="TAG", help="fail unless TAG is 'v' + pyproject.toml's version "
                      "and CHANGELOG.md has that version's released section")
    parser.add_argument("--changelog", type=Path, default=ROOT / "CHANGELOG.md", help=argparse.SUPPRESS)
    parser.add_argument("--pyproject", type=Path, default=ROOT / "pyproject.toml", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    changelog = args.changelog.read_text(encoding="utf-8")
    try:
        if args.check_tag is not None:
            version = check_tag(args.check_tag, changelog, args.pyproject.read_text(encoding="utf-8"))
            print(f"{args.check_tag}: pyproject.toml's version {version}, with its section in CHANGELOG.md")
        else:
            sys.stdout.write(section(changelog, args.version))
    except ChangelogError as error:
        print(f"changelog_section.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
