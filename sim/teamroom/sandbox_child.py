"""The inside of the sandbox: loads one submission and answers one test input at a time.

Started by ``sim.teamroom.sandbox`` (never imported by the app), inside bubblewrap where the
machine allows it. It reads a header line from stdin,
``{"file", "function", "case_seconds", "cpu_seconds", "memory_mb", "processes"}``, limits
itself with ``resource``, loads the submission from ``file`` and answers ``{"load": null}`` or
``{"load": "SyntaxError: ..."}``; then, for each line ``{"id", "args": [...], "kwargs": {...}}``
it reads, it answers one line: ``{"value": v}``, ``{"error": "ValueError: ..."}`` or
``{"timeout": true}``, each with the request's ``id``.

Nothing here is a security boundary: the submission runs in this process and can do what this
process can. The boundary is outside (the box, and the parent, which sends inputs one at a
time, keeps the clock and compares the answers with expected values this process never sees).
The limits below keep ordinary mistakes (an endless loop, a memory blow-up, a stray print) from
spoiling the answers, and keep a careless fork or socket from happening at all.
"""

import io
import json
import os
import resource
import signal
import sys


def leave_network():
    """Unboxed (``--unsafe-sandbox``): at least no network, where a namespace can be had."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        for flags in (0x40000000, 0x10000000 | 0x40000000):  # CLONE_NEWNET, with CLONE_NEWUSER
            if libc.unshare(flags) == 0:
                return
    except Exception:  # noqa: BLE001 - no ctypes or no unshare: the blocked imports remain
        pass


def limit(cpu_seconds, memory_mb, processes):
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    memory = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (4 * 1024 * 1024, 4 * 1024 * 1024))
    resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


def no_processes():
    """Ordinary code has no business starting processes or opening sockets."""
    import posix

    for name in ("fork", "forkpty", "system", "popen", "execv", "execve", "execl", "execle", "execlp",
                 "execlpe", "execvp", "execvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv",
                 "spawnve", "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp", "kill", "killpg",
                 "register_at_fork"):
        for module in (os, posix):
            if hasattr(module, name):
                delattr(module, name)
    for name in ("socket", "_socket", "ssl", "_ssl", "ctypes", "_ctypes", "subprocess", "_posixsubprocess",
                 "multiprocessing", "_multiprocessing", "asyncio", "select", "selectors"):
        sys.modules[name] = None


class CaseTimeout(BaseException):
    """Raised by the alarm: a BaseException, so ``except Exception`` in the code does not hide it."""


def on_alarm(signum, frame):
    raise CaseTimeout()


def short_error(exc):
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 300 else text[:297] + "..."


def answer_of(function, case, seconds):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        value = function(*case.get("args", []), **case.get("kwargs", {}))
        signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        return {"timeout": True}
    except BaseException as exc:  # noqa: BLE001 - whatever the code raises is its answer
        signal.setitimer(signal.ITIMER_REAL, 0)
        return {"error": short_error(exc)}
    try:
        return {"value": json.loads(json.dumps(value, allow_nan=False))}
    except (TypeError, ValueError, RecursionError):
        return {"error": f"TypeError: the result ({type(value).__name__}) is not a JSON value"}


def main():
    # Requests and answers travel on private copies of stdin and stdout; the standard ones
    # become /dev/null, so prints (Python's or C's) cannot mix with the answers.
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    header = json.loads(requests.readline())
    if header.get("unboxed"):
        leave_network()
    limit(int(header["cpu_seconds"]), int(header["memory_mb"]), int(header["processes"]))
    sys.stdout = sys.stderr = io.StringIO()
    sys.stdin = io.StringIO()
    seconds = float(header["case_seconds"])
    namespace = {"__name__": "solution"}
    signal.signal(signal.SIGALRM, on_alarm)
    load = None
    try:
        with open(header["file"], encoding="utf-8") as fh:
            code = compile(fh.read(), "solution.py", "exec")
        no_processes()
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            exec(code, namespace)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        load = "timeout while defining the code"
    except SyntaxError as exc:
        load = f"SyntaxError: {exc.msg} (line {exc.lineno})"
    except BaseException as exc:  # noqa: BLE001 - whatever the code raises is its result
        load = short_error(exc)
    function = namespace.get(header["function"])
    if load is None and not callable(function):
        load = f"NameError: the code defines no function {header['function']!r}"
    answers.write(json.dumps({"id": header["id"], "load": load}) + "\n")
    answers.flush()
    if load is not None:
        return
    for line in requests:
        request = json.loads(line)
        answers.write(json.dumps({"id": request["id"], **answer_of(function, request, seconds)}) + "\n")
        answers.flush()
        sys.stdout.seek(0)
        sys.stdout.truncate()


if __name__ == "__main__":
    main()
