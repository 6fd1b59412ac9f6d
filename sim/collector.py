"""Python's cyclic garbage collector during episodes: what a session has built stays out of its walks.

The collector's full collections walk every object it tracks: the interpreter's modules, the
world, the session's events, the planners' plans. In an episode they came in the middle of
decisions at random (25-155 ms of CPU each with six or eight ProToM agents under load, about ten in 120 ticks;
docs/protom.md, "The dearest decisions"). So the Session ``hold``s after its set-up and after
every step: what is alive then is frozen (``gc.freeze``), and the collections inside the next
step walk only what that step made. Objects are still freed by their reference counts as
before; only cycles among frozen objects wait.

``release`` (when an episode ends: done, stopped, its tick limit) unfreezes everything and runs
the full collection the collector would have run itself, once the frozen objects have grown by a
quarter since the last one (the collector's own rule for full collections, which keeps the
cycles left behind by earlier episodes bounded). An episode that never ends (dropped half-way)
leaves its objects frozen until another one ends. Nothing a session computes depends on when
objects are collected.
"""

from __future__ import annotations

import gc

#: the objects frozen just after the last full collection here (None: none yet in this process)
_settled: int | None = None
#: a full collection when the frozen objects exceed this share of ``_settled``
GROWTH = 1.25


def hold() -> None:
    """Freeze every object the collector tracks now (the session's set-up, a step just made)."""
    global _settled
    gc.freeze()
    if _settled is None:
        _settled = gc.get_freeze_count()


def release() -> None:
    """Unfreeze (an episode ended), with a full collection when the frozen objects grew by a
    quarter since the last one."""
    global _settled
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    if _settled is None or frozen > GROWTH * _settled:
        gc.collect()
        gc.freeze()  # counted without listing them, then back to the collector
        _settled = gc.get_freeze_count()
        gc.unfreeze()
