#!/usr/bin/env bash
# Set up (idempotent) and run ToM Arena on its default scenario. Extra arguments go to main.py.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ $# -eq 0 ]; then
  set -- run two-rooms --agents planner,boltzmann --episodes 3 --out runs/default
fi
exec .venv/bin/python main.py "$@"
