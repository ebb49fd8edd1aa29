#!/usr/bin/env bash
# Install Debian's Chromium for the browser test (tests/test_book_browser.py), if it is missing.
#
#     bash scripts/install_chromium.sh
#
# The test drives /usr/bin/chromium through Python Playwright. It never downloads a browser
# of its own (no `playwright install`): the distribution's package is the one used. Needs
# apt-get (Debian or Ubuntu) and root or sudo. Elsewhere, install Chromium or Chrome yourself
# and point the test at it with CHROMIUM=/path/to/chromium.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
  exit 0
fi
# shellcheck source=scripts/_apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/_apt.sh"
apt_install "install Chromium yourself and set CHROMIUM=/path/to/chromium" chromium
echo "installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
