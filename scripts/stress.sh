#!/usr/bin/env bash
# The tests whose outcome could hang on the machine's pace (the GUI, signals, the study's apps,
# the sandbox) run beside CPU hogs: a test that passes only on a quiet machine fails here.
#
# usage: scripts/stress.sh [PYTEST ARGS...]
#   TOM_ARENA_HOGS=N      busy processes beside the tests (default 4: two per core on 2 cores)
#   TOM_ARENA_WORKERS=N   pytest-xdist workers, as in scripts/test.sh (default auto; 0: one process)
# Arguments go to pytest; when none of them names a test file or folder, the default files below
# run. Needs .venv (scripts/setup.sh test); it runs no set-up and no static checks itself.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  echo "stress: no .venv here; run scripts/setup.sh test first" >&2
  exit 2
fi
hogs="${TOM_ARENA_HOGS:-4}"
workers="${TOM_ARENA_WORKERS:-auto}"
files=(tests/test_ui_*.py tests/test_teamroom_gui.py tests/test_study_*.py tests/test_sandbox_escape.py)
for arg in "$@"; do
  case "$arg" in
    tests/*|./tests/*|*.py|*.py::*) files=(); break ;;
  esac
done

pids=()
stop_hogs() {
  for pid in ${pids[@]+"${pids[@]}"}; do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap stop_hogs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for _ in $(seq 1 "$hogs"); do
  yes > /dev/null &
  pids+=($!)
done
echo "stress: $hogs CPU hogs (pids ${pids[*]:-none}) beside pytest on $(nproc) cores" >&2

export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy
xdist=()
if [ "$workers" != 0 ]; then
  xdist=(-n "$workers" --dist loadgroup)
fi
status=0
.venv/bin/python -m pytest ${xdist[@]+"${xdist[@]}"} ${files[@]+"${files[@]}"} "$@" || status=$?
exit "$status"
