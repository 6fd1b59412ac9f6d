import os

# Before any Qt or pygame import: no real window from SDL, Qt offscreen unless a display is set up.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The scenario index (sim/scenario_index.py) of a test run lives in a folder of its own.
if "TOM_ARENA_CACHE" not in os.environ:
    import tempfile

    os.environ["TOM_ARENA_CACHE"] = tempfile.mkdtemp(prefix="tom-arena-test-cache-")



# Running on several workers (pytest-xdist; scripts/test.sh passes -n auto --dist loadgroup): the
# tests of the files of one group run on one worker, one at a time, never beside another file of
# the same group (docs/testing.md, "Workers"). Everything else is safe to run anywhere, test by
# test: each worker has its own scenario index (above) and tmp_path, and Xvfb picks a free display.
XDIST_GROUPS = {
    # llama.cpp's embedded model: one server at a time, not one per worker (memory, both cores)
    "embedded-model": ("test_llm_embedded.py", "test_llm_slots.py", "test_teamroom_llm.py", "test_experiments_llm.py",
                       "test_cobel_llm.py", "test_tradecraft_llm.py", "test_ui_llm_seat.py"),
    # a local Ray cluster: `ray start` takes fixed ports beside the one it is given (client server 10001)
    "ray": ("test_experiments_ray.py",),
    # files whose module fixture does the work of all their tests, once per worker that runs one:
    # the Xvfb cases in a child pytest (about 50 s under load), the kitchen episode with ProToM
    "xvfb-cases": ("test_ui_xvfb.py",),
    "belief-view-episode": ("test_ui_belief_view.py",),
    "belief-lists-episode": ("test_ui_belief_lists.py",),
}


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` with the groups above. (xdist's own ``xdist_group`` mark renames the
    test ids through an attribute pytest 9 no longer reads, so it groups nothing; the scheduler
    below groups by file name, which is xdist's public hook.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    group_of = {name: group for group, names in XDIST_GROUPS.items() for name in names}

    class FileGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of.get(nodeid.split("::", 1)[0].rsplit("/", 1)[-1], nodeid)

    return FileGroupScheduling(config, log)
