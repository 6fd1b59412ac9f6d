#!/usr/bin/env bash
# Idempotent set-up for ToM Arena: the Debian packages it needs (installed only when
# missing), a virtual environment in .venv, and the pinned Python packages of
# pyproject.toml (reinstalled only when pyproject.toml or the extras change).
#
# usage: scripts/setup.sh [EXTRAS]      e.g. scripts/setup.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"

# Qt's xcb platform and a virtual display for the desktop app and its tests.
apt_packages=(
  xvfb fonts-dejavu-core
  libegl1 libgl1 libglx0 libglvnd0 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0
  libxkbcommon0 libxkbcommon-x11-0 libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-glx0
  libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render0
  libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0
  libxcb-xkb1
)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$python" -m venv .venv
fi
# The stamp holds one line per install: the hash of pyproject.toml and the extras installed.
# Nothing is installed when a line with the same hash covers every extra asked for.
stamp=".venv/.tom-arena-installed"
hash="$(sha256sum pyproject.toml | cut -d' ' -f1)"
covered() {
  local line have extra
  [ -f "$stamp" ] || return 1
  while read -r line; do
    [ "${line%% *}" = "$hash" ] || continue
    have=",${line#* extras=},"
    for extra in ${extras//,/ }; do
      [[ "$have" == *",$extra,"* ]] || continue 2
    done
    return 0
  done < "$stamp"
  return 1
}
if ! covered; then
  echo "setup: installing Python packages${extras:+ (with $extras)}"
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras:+[$extras]}"
  [ -f "$stamp" ] && grep -q "^$hash " "$stamp" || : > "$stamp"  # a new pyproject.toml: old lines are void
  echo "$hash extras=${extras}" >> "$stamp"
fi
