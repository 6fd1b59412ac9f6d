#!/usr/bin/env bash
# Set up (idempotent), run the static checks (ruff, mypy), then the whole test suite on every core
# (pytest-xdist: -n auto --dist loadgroup; TOM_ARENA_WORKERS=N sets the number of workers, 0 runs
# in this process alone). Extra arguments go to pytest. TOM_ARENA_LINT=0 skips the static checks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test,llm,ray  # the LLM tests run against the embedded model; the Ray tests start a local cluster
if [ "${TOM_ARENA_LINT:-1}" != 0 ]; then
  .venv/bin/ruff check . || { echo "test: ruff check failed (rules in pyproject.toml [tool.ruff]; see docs/testing.md)" >&2; exit 1; }
  .venv/bin/mypy || { echo "test: mypy failed on sim/ and experiments/ (see docs/testing.md)" >&2; exit 1; }
fi
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy
workers="${TOM_ARENA_WORKERS:-auto}"
xdist=()
if [ "$workers" != 0 ]; then
  xdist=(-n "$workers" --dist loadgroup)  # tests/conftest.py groups what must not run side by side
fi
exec .venv/bin/python -m pytest ${xdist[@]+"${xdist[@]}"} "$@"
