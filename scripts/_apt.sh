# shellcheck shell=bash
# Sourced by scripts/install_*.sh: install Debian packages with apt-get, as root or through sudo.
#
#     apt_install "what to install it yourself elsewhere" package [package ...]
#
# Without apt-get it prints the first argument (how to get the packages elsewhere) and fails.
apt_install() {
  local elsewhere="$1"; shift
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "no apt-get here: $elsewhere" >&2
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q "$@"
}
