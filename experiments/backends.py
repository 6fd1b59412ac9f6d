"""Where episodes run: a local process pool (the default) or a Ray cluster (optional extra).

A backend takes a function and its tasks and yields the results as they finish, in any order;
the runner writes each one to the results file at once. The function and the tasks are plain
picklable values (``experiments.runner.run_episode`` and ``EpisodeTask``), so both backends
run exactly the same code on exactly the same inputs: the same seeds give the same episodes.
"""

from __future__ import annotations

import ctypes
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol

from experiments.design import ExperimentError

ROOT = Path(__file__).resolve().parent.parent
#: what a Ray cluster does not need of the working tree (the environment is installed there)
RAY_EXCLUDES = [".venv/", ".git/", "runs/", "bench/results/", "**/__pycache__/", ".pytest_cache/",
                ".hypothesis/", "*.egg-info/", "build/", "*.gguf"]


class Backend(Protocol):
    name: str
    #: how many episodes run at once
    workers: int

    def run(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        """``fn(task)`` for every task; results as they finish."""

    def close(self) -> None: ...

    def describe(self) -> str: ...


#: prctl option: the signal a process gets when the thread that started it ends (Linux)
PR_SET_PDEATHSIG = 1


def exit_with_parent(parent: int) -> None:
    """Pool worker initializer: the worker ends when the process that started it ends, however
    it ends (``kill -9`` included), instead of playing on as an orphan. On Linux the kernel sends
    it SIGKILL (``prctl(PR_SET_PDEATHSIG)``); elsewhere a thread watches the parent's id."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before the call
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    threading.Thread(target=_watch_parent, args=(parent,), name="exit-with-parent", daemon=True).start()


def _watch_parent(parent: int, every: float = 0.5) -> None:
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)


def run_concurrently(fn: Callable[[Any], Any], tasks: list[Any], concurrent: int) -> Iterator[Any]:
    """``fn(task)`` for every task, ``concurrent`` at once on threads (episodes whose time goes
    to waiting for a model's answers); results as they finish. An error ends the run: the
    episodes not started yet are cancelled, the running ones finish first."""
    with ThreadPoolExecutor(max_workers=concurrent, thread_name_prefix="tom-arena-episode") as pool:
        queue = iter(tasks)
        running = {pool.submit(fn, task) for task in itertools.islice(queue, 2 * concurrent)}
        try:
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = next(queue, None)
                    if task is not None:
                        running.add(pool.submit(fn, task))
                    yield future.result()
        finally:
            for future in running:
                future.cancel()


def run_chunk(fn: Callable[[Any], Any], chunk: list[Any], concurrent: int) -> list[Any]:
    """A chunk's results, ``concurrent`` episodes at once, in the chunk's order."""
    done = {id(task): None for task in chunk}
    results = list(run_concurrently(lambda t: (id(t), fn(t)), chunk, concurrent))
    done.update(results)
    return list(done.values())


def timed_chunk(fn: Callable[[Any], Any], chunk: list[Any], concurrent: int = 1) -> tuple[list[Any], float]:
    """A chunk's results in its order (``concurrent`` episodes at once) and the seconds it took."""
    started = time.perf_counter()
    results = run_chunk(fn, chunk, concurrent) if concurrent > 1 else [fn(task) for task in chunk]
    return results, time.perf_counter() - started


class LocalBackend:
    """``jobs`` worker processes (forked where the platform allows); 1 runs in this process.
    The workers end with the process that started them (``exit_with_parent``)."""

    name = "local"

    def __init__(self, jobs: int = 2, concurrent: int = 1) -> None:
        if jobs < 1:
            raise ExperimentError(f"--jobs must be at least 1, got {jobs}")
        if concurrent < 1:
            raise ExperimentError(f"--concurrent must be at least 1, got {concurrent}")
        self.workers = jobs
        #: episodes in flight in each worker (threads): for episodes that wait on a model endpoint
        self.concurrent = concurrent
        self._pool: ProcessPoolExecutor | None = None

    def describe(self) -> str:
        where = (f"local, {self.workers} worker process{'es' if self.workers > 1 else ''}" if self.workers > 1
                 else "local, in this process")
        return where + (f", {self.concurrent} episodes at once in each" if self.concurrent > 1 else "")

    def run(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        tasks = list(tasks)
        if self.workers == 1 or len(tasks) <= 1:
            if self.concurrent > 1:
                yield from run_concurrently(fn, tasks, self.concurrent)
            else:
                for task in tasks:
                    yield fn(task)
            return
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context(method),
                                         initializer=exit_with_parent, initargs=(os.getpid(),))
        # Tasks go in chunks of consecutive episodes, sized as Ray's are (``chunk_size``: one each
        # at first, then about ``RAY_CHUNK_SECONDS`` of work at the seconds per episode measured so
        # far): consecutive episodes share a scenario, so a worker reuses what its memos learnt
        # from the one before (plans, rollouts, ProToM's plan agreements), where episodes handed
        # out one by one would make every worker learn every scenario. One chunk per worker is in
        # flight, so memory stays flat, the order stays close to the plan (slow scenarios first),
        # and an interrupt leaves little to cancel. With several episodes at once in each worker,
        # a chunk's episodes run on threads.
        queue = list(tasks)
        queue.reverse()  # popped from the end: in plan order
        seconds = episodes = 0.0
        running: set[Future[tuple[list[Any], float]]] = set()

        def submit() -> None:
            if not queue:
                return
            size = (self.concurrent if not episodes else
                    max(self.concurrent, chunk_size(seconds / episodes, len(queue), self.workers)))
            chunk = [queue.pop() for _ in range(min(size, len(queue)))]
            running.add(self._pool.submit(timed_chunk, fn, chunk, self.concurrent))  # type: ignore[union-attr]

        try:
            for _ in range(self.workers):
                submit()
            while running:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                running.difference_update(finished)
                for future in finished:
                    results, took = future.result()
                    seconds += took
                    episodes += len(results)
                    submit()  # the next chunk goes out before these results are written
                    yield from results
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def ray_available() -> str | None:
    """None when Ray can be imported, else why not (with the fix)."""
    try:
        import ray  # noqa: F401
    except ImportError as exc:
        return (f"Ray is not installed ({exc}); install the optional extra: "
                "scripts/setup.sh ray  (or .venv/bin/pip install -e '.[ray]')")
    return None


#: the work a Ray call should carry (seconds): long enough that the per-call cost (scheduling,
#: moving arguments and results: milliseconds) is a few percent of it
RAY_CHUNK_SECONDS = 0.5
#: no chunk larger than this share of what is left per worker: the last chunks finish together
RAY_CHUNKS_PER_WORKER = 3
#: the object store of a new local cluster (Ray's minimum): results travel inline in the calls'
#: replies, so the store holds next to nothing, and it need not reserve memory
RAY_OBJECT_STORE_BYTES = 75 * 1024 * 1024
#: Ray internals a new local cluster does without: the metrics exported to Prometheus and the
#: timeline (their threads in every worker and daemon share the cores with the episodes)
RAY_SYSTEM_CONFIG = {"enable_metrics_collection": False, "enable_timeline": False}
#: said on stderr before a new local cluster starts (``--backend ray`` without ``--address``)
RAY_LOCAL_NOTE = ("note: --backend ray without --address starts a new Ray cluster on this machine for this run "
                  "(12-16 s and more on 2 cores, as long as a small sweep's episodes); for repeated sweeps start "
                  "one once with 'ray start --head' and pass --address (docs/experiments.md, \"Ray\")")


#: the top-level modules of this program
PACKAGES = ("agents", "experiments", "generators", "main", "sim", "ui")


def use_shipped_tree(folder: str) -> bool:
    """Make the program's tree at ``folder`` (the working directory a cluster's node received
    from the driver) the one its modules are imported from, even where a copy of ToM Arena is
    installed on the node (another checkout installed in editable mode, an older release),
    which would otherwise run instead of the driver's code. False when ``folder`` holds no tree."""
    root = Path(folder).resolve()
    if not (root / "experiments" / "backends.py").is_file():
        return False
    if sys.path[:1] != [str(root)]:
        sys.path.insert(0, str(root))
    for name in list(sys.modules):
        if name.split(".")[0] in PACKAGES:
            file = getattr(sys.modules[name], "__file__", None)
            if file and not Path(file).resolve().is_relative_to(root):
                del sys.modules[name]  # imported again, from the shipped tree
    return True


class _EpisodeWorker:
    """One Ray actor per worker slot: a process that stays, with its imports and its caches
    (built worlds, loaded scenarios: ``experiments.runner._WORLDS``), running chunks of tasks
    and returning each chunk's results in one message. The class travels by value (a node
    may not know it); its process imports the program from the tree the driver shipped."""

    def __init__(self, shipped: bool) -> None:
        if shipped:
            use_shipped_tree(os.getcwd())  # Ray starts the workers in the shipped working directory
        import experiments.runner  # noqa: F401 - import once, when the worker starts, not in a task

    def node(self) -> str:
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def prepare(self, fn: Callable[[Any], Any], arg: Any) -> None:
        """Set up the worker's state once, before its first episode (``make_backend``'s ``warm``)."""
        fn(arg)

    def run(self, fn: Callable[[Any], Any], chunk: list[Any], concurrent: int = 1) -> tuple[list[Any], float]:
        return timed_chunk(fn, chunk, concurrent)


def chunk_size(episode_seconds: float, remaining: int, workers: int) -> int:
    """Tasks per Ray call: ``RAY_CHUNK_SECONDS`` of work at the measured seconds per episode,
    at most a ``RAY_CHUNKS_PER_WORKER``-th of each worker's share of what is left, at least 1."""
    by_time = int(RAY_CHUNK_SECONDS / max(episode_seconds, 1e-6))
    by_share = -(-remaining // (RAY_CHUNKS_PER_WORKER * workers))
    return max(1, min(by_time, by_share))


class RayBackend:
    """Episodes on a Ray cluster: a new local one when ``address`` is None (``workers`` CPUs),
    else the cluster at ``address`` (``auto``, ``HOST:PORT`` or ``ray://HOST:10001``), which
    receives this working tree (without ``.venv``, ``.git`` and ``runs``) as the tasks' working
    directory. ``workers`` caps the workers (default: the cluster's CPUs).

    Each worker is an actor (one CPU) started with the backend, which keeps its process, imports
    and caches for the whole sweep; ``warm`` (a function and its argument, both picklable) runs
    once in each worker at start-up, so that it starts its first chunk with what a forked local
    worker inherits (``experiments.runner.prepare_worker``: the modules and built worlds the
    episodes use). A new local cluster starts without the dashboard, usage statistics, metrics
    export and timeline, with the smallest object store. Tasks go in chunks: one task each at first, then as many as
    take ``RAY_CHUNK_SECONDS`` at the seconds per episode measured so far (``chunk_size``); a
    chunk's results come back in one message. ``episodes_per_node`` counts where they ran."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None, concurrent: int = 1,
                 warm: tuple[Callable[[Any], Any], Any] | None = None) -> None:
        if concurrent < 1:
            raise ExperimentError(f"--concurrent must be at least 1, got {concurrent}")
        self.concurrent = concurrent
        problem = ray_available()
        if problem:
            raise ExperimentError(problem)
        import ray

        self._ray = ray
        self.address = address
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        env: dict[str, str] = {}
        if address is None:
            print(RAY_LOCAL_NOTE, file=sys.stderr, flush=True)
            kwargs.update(num_cpus=workers or os.cpu_count() or 1, object_store_memory=RAY_OBJECT_STORE_BYTES,
                          _system_config=dict(RAY_SYSTEM_CONFIG))
            # The driver's own tree: workers import experiments/, sim/ and agents/ from it. Given
            # to the cluster's daemons through the environment they start with (not as a runtime
            # environment), the workers Ray starts ahead with the cluster serve the actors.
            path = os.environ.get("PYTHONPATH")
            env = {"PYTHONPATH": str(ROOT) + (os.pathsep + path if path else ""), "RAY_USAGE_STATS_ENABLED": "0"}
        else:
            _check_reachable(address)
            kwargs["address"] = address
            kwargs["runtime_env"] = {"working_dir": str(ROOT), "excludes": RAY_EXCLUDES}
        saved = {name: os.environ.get(name) for name in env}
        os.environ.update(env)
        try:
            ray.init(**kwargs)
        except Exception as exc:  # ConnectionError, RuntimeError, ValueError for bad addresses
            where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
            raise ExperimentError(f"cannot start or reach {where}: {type(exc).__name__}: {exc}") from None
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, min(workers, cpus) if workers else cpus)
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        # No task events: Ray would report each call's states to its control store (for its
        # dashboard and state API, which the runner does not use).
        options: dict[str, Any] = {"num_cpus": 1, "max_restarts": 2, "max_task_retries": 2,
                                   "enable_task_events": False}
        actor = ray.remote(**options)(_EpisodeWorker)
        self._actors: list[Any] = [actor.remote(address is not None) for _ in range(self.workers)]
        #: the node each worker runs on (Ray's node id), and how many episodes each node ran
        self.nodes = ray.get([a.node.remote() for a in self._actors])
        if warm is not None:
            shared = ray.put(warm[1])
            try:
                ray.get([a.prepare.remote(warm[0], shared) for a in self._actors])
            except Exception as exc:  # e.g. a node importing another copy of the program
                self.close()
                cause = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
                raise ExperimentError(f"the Ray workers could not set up: {cause[0][:300]}") from None
        self.episodes_per_node: dict[str, int] = {}

    def describe(self) -> str:
        where = self.address or "a local cluster"
        return (f"ray on {where}, {self.workers} task{'s' if self.workers > 1 else ''} at once"
                + (f", {self.concurrent} episodes at once in each" if self.concurrent > 1 else ""))

    def run(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        ray = self._ray
        queue = list(tasks)
        queue.reverse()  # popped from the end: in plan order
        seconds = episodes = 0.0
        running: dict[Any, int] = {}  # call -> worker index

        def submit(worker: int) -> None:
            if not queue:
                return
            size = (self.concurrent if not episodes else
                    max(self.concurrent, chunk_size(seconds / episodes, len(queue), self.workers)))
            chunk = [queue.pop() for _ in range(min(size, len(queue)))]
            running[self._actors[worker].run.remote(fn, chunk, self.concurrent)] = worker

        try:
            for worker in range(self.workers):
                submit(worker)
            while running:
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    worker = running.pop(ref)
                    results, took = ray.get(ref)
                    seconds += took
                    episodes += len(results)
                    node = self.nodes[worker]
                    self.episodes_per_node[node] = self.episodes_per_node.get(node, 0) + len(results)
                    submit(worker)  # the next chunk goes out before these results are written
                    yield from results
        finally:
            for ref in running:  # an interrupted sweep: close() ends the workers
                ray.cancel(ref)

    def close(self) -> None:
        if self._ray.is_initialized():
            for actor in getattr(self, "_actors", []):
                self._ray.kill(actor)
            self._actors = []
            self._ray.shutdown()


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once on a HOST:PORT nobody listens on (Ray itself retries for minutes)."""
    import socket

    target = address.removeprefix("ray://")
    host, colon, port = target.rpartition(":")
    if not colon or not port.isdigit():
        return  # "auto" and other forms: Ray resolves them
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ExperimentError(f"cannot start or reach the Ray cluster at {address}: nothing answers on "
                              f"{host}:{port} ({exc.strerror or exc}); is 'ray start --head' running there?") from None


def make_backend(name: str, *, jobs: int | None = None, address: str | None = None,
                 concurrent: int = 1, warm: tuple[Callable[[Any], Any], Any] | None = None) -> Backend:
    """``warm``: a function and its argument that set up a worker's state once (Ray's workers;
    the local backend's forked workers inherit the state of the process that planned the sweep)."""
    if name == "local":
        if address:
            raise ExperimentError("--address is for --backend ray")
        return LocalBackend(2 if jobs is None else jobs, concurrent)
    if name == "ray":
        return RayBackend(address, jobs, concurrent, warm)
    raise ExperimentError(f"--backend must be local or ray, got {name!r}")
