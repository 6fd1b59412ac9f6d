"""How the backends size their chunks of episodes (the arithmetic, and the local backend's forked
workers; the Ray cluster itself is exercised by tests/test_experiments_ray.py)."""

from __future__ import annotations

import os

from hypothesis import given, settings, strategies as st

from experiments.backends import RAY_CHUNK_SECONDS, RAY_CHUNKS_PER_WORKER, LocalBackend, chunk_size


def test_short_episodes_go_many_to_a_call() -> None:
    assert chunk_size(0.01, 10_000, 2) == int(RAY_CHUNK_SECONDS / 0.01)


def test_long_episodes_go_one_to_a_call() -> None:
    assert chunk_size(30.0, 500, 8) == 1


def test_the_last_episodes_are_shared_out() -> None:
    # 60 left for 2 workers: no chunk takes more than a third of a worker's share
    assert chunk_size(0.001, 60, 2) == 60 // (2 * RAY_CHUNKS_PER_WORKER)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 100, allow_nan=False), st.integers(1, 100_000), st.integers(1, 64))
def test_a_chunk_is_never_empty_nor_more_than_a_share(seconds: float, remaining: int, workers: int) -> None:
    size = chunk_size(seconds, remaining, workers)
    assert 1 <= size <= max(1, -(-remaining // (RAY_CHUNKS_PER_WORKER * workers)))


def _where(task: int) -> tuple[int, int]:
    return task, os.getpid()


def test_the_local_backend_hands_consecutive_episodes_to_one_worker() -> None:
    """Forked workers take chunks of consecutive tasks, sized as Ray's are, so that a worker's
    memos serve the episodes after the one that filled them; every result comes back once."""
    backend = LocalBackend(2)
    results = list(backend.run(_where, range(60)))
    assert sorted(task for task, _ in results) == list(range(60))
    pid = dict(results)
    # the first task of each worker goes alone; then chunks of up to a sixth of what is left
    runs = sum(1 for k in range(1, 60) if pid[k] != pid[k - 1])
    assert len(set(pid.values())) <= 2 and runs < 30
