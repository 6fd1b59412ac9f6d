#!/usr/bin/env bash
# Idempotent set-up for ToM Arena: the Debian packages it needs (installed only when
# missing), a virtual environment in .venv, and the pinned Python packages of
# pyproject.toml (reinstalled only when pyproject.toml or the extras change).
#
# usage: scripts/setup.sh [EXTRAS]      e.g. scripts/setup.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"

# Qt's xcb platform and a virtual display for the desktop app and its tests; bubblewrap, the sandbox in which the team room runs
# submitted code (sim/teamroom/sandbox.py), and libseccomp, which builds the sandbox's seccomp filter (through pyseccomp).
apt_packages=(
  bubblewrap libseccomp2
  xvfb fonts-dejavu-core
  libegl1 libgl1 libglx0 libglvnd0 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0
  libxkbcommon0 libxkbcommon-x11-0 libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-glx0
  libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render0
  libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0
  libxcb-xkb1
)
# the tests also press keys and click on the virtual display (ui/shots/walk.py, the study's joining apps)
if [[ ",$extras," == *",test,"* ]]; then
  apt_packages+=(xdotool)
fi
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
# llama.cpp (the embedded model's server) builds from source. A native build uses every
# instruction the CPU reports, AMX included, and crashes on its first answer where the kernel
# does not enable them, or on another CPU when a wheel is shared through pip's cache. So it is
# built portable (AVX2, FMA, F16C on x86-64) once per version into a cache of the project's own,
# and that wheel is installed before the extras, which then find it satisfied.
if [[ ",$extras," == *",llm,"* ]]; then
  llama="$(grep -o 'llama-cpp-python\[server\]==[0-9.]*' pyproject.toml | sed 's/.*==//')"
  wheels="${TOM_ARENA_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/tom-arena/wheels}/llama-cpp-python-$llama-portable"
  wheel="$(ls "$wheels"/llama_cpp_python-"$llama"-*.whl 2>/dev/null | head -n 1 || true)"
  if [ -z "$wheel" ]; then
    echo "setup: building llama-cpp-python $llama, portable (once; about 10 minutes on 2 cores)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" .venv/bin/python -m pip wheel -q --disable-pip-version-check --no-deps \
      --no-cache-dir -w "$wheels.partial" "llama-cpp-python==$llama"
    mkdir -p "$wheels" && mv "$wheels.partial"/llama_cpp_python-*.whl "$wheels"/ && rm -rf "$wheels.partial"
    wheel="$(ls "$wheels"/llama_cpp_python-"$llama"-*.whl | head -n 1)"
  fi
  if [ "$(cat .venv/.tom-arena-llama 2>/dev/null)" != "$wheel" ]; then
    echo "setup: installing the portable llama-cpp-python $llama"
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"
    echo "$wheel" > .venv/.tom-arena-llama
  fi
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

# The kitchen's differential test compares its overcooked_ai rules with overcooked_ai 1.1.0
# itself, which lives in a side environment (it needs numpy < 2).
if [[ ",$extras," == *",test,"* ]]; then
  scripts/overcooked_env.sh
fi
