#!/usr/bin/env bash
# Check the GitHub Actions workflows (.github/workflows/) statically, without the network:
#
#     bash scripts/check_workflows.sh
#
# actionlint: the syntax, the expressions and their types, the inputs of the actions it knows, the
# runner labels, and every run: script through shellcheck when shellcheck is installed (not
# required). zizmor: the security audits (template injection, unpinned actions, excessive
# permissions, credentials persisted by checkout, ...) in its strictest persona short of the
# auditor's (pedantic), at every severity and confidence, offline (the audits that ask GitHub's
# API, such as known-vulnerable action versions, are left out), and with no configuration file, so
# that a finding can only be silenced next to the line it concerns, by zizmor's own comment with the
# reason after it: `# zizmor: ignore[AUDIT] why`. Any finding of either tool fails.
#
# Called by .ci/run, which installs both tools (pinned) into its tools venv and puts that first on
# PATH; the tools are taken from PATH, and their versions printed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

for tool in actionlint zizmor; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "check_workflows.sh: $tool is not on PATH (see CONTRIBUTING.md, Continuous integration)" >&2
    exit 1
  fi
done
shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
if [ ${#workflows[@]} -eq 0 ]; then
  echo "check_workflows.sh: no workflow in .github/workflows/" >&2
  exit 1
fi

echo "actionlint: $(actionlint -version | head -n 1); zizmor: $(zizmor --version | sed 's/^zizmor //')"
if command -v shellcheck >/dev/null 2>&1; then
  echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p'): actionlint checks the run: scripts with it"
else
  echo "shellcheck not installed: actionlint checks the workflows without it"
fi
echo "checking ${workflows[*]}"
# Both run, so that one run shows every finding; either one's finding fails.
status=0
actionlint -no-color "${workflows[@]}" || status=1
zizmor --offline --persona=pedantic --no-config --strict-collection --color=never --no-progress \
  "${workflows[@]}" || status=1
if [ "$status" -ne 0 ]; then
  echo "check_workflows.sh: FAILED: fix the findings above (or silence one of zizmor's with its reason)" >&2
fi
exit "$status"
