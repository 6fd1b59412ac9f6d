#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test,llm,ray  # the LLM tests run against the embedded model; the Ray tests start a local cluster
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy
exec .venv/bin/python -m pytest "$@"
