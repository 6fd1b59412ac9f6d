#!/usr/bin/env bash
# overcooked_ai 1.1.0 (with numpy < 2, which it needs) in a side environment of its own, for the
# kitchen's differential test (tests/test_overcooked_rules.py): it is never installed into the
# project's .venv. Idempotent: cached under ~/.cache/tom-arena/overcooked-venv (or
# $TOM_ARENA_OVERCOOKED_VENV) and made again only when its stamp is missing.
set -euo pipefail
venv="${TOM_ARENA_OVERCOOKED_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tom-arena/overcooked-venv}"
want="overcooked-ai==1.1.0 numpy<2"
[ "$(cat "$venv/.tom-arena-overcooked" 2>/dev/null)" = "$want" ] && exit 0
echo "setup: installing overcooked_ai 1.1.0 into $venv (the reference of the kitchen's differential test)"
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "numpy<2" "overcooked-ai==1.1.0"
"$venv/bin/python" -c "import overcooked_ai_py.mdp.overcooked_mdp" 2>/dev/null
echo "$want" > "$venv/.tom-arena-overcooked"
