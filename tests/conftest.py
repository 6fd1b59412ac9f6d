import os

# Before any Qt or pygame import: no real window from SDL, Qt offscreen unless a display is set up.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The scenario index (sim/scenario_index.py) of a test run lives in a folder of its own.
if "TOM_ARENA_CACHE" not in os.environ:
    import tempfile

    os.environ["TOM_ARENA_CACHE"] = tempfile.mkdtemp(prefix="tom-arena-test-cache-")
