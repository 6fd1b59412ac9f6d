"""The child side of the sandbox: runs one submission's function on test inputs.

Started by ``sim.teamroom.sandbox.run_tests`` as ``python -I -S sandbox_child.py`` in an empty
temporary folder, never imported by the app. Before it reads the submission it:

1. leaves the network: a new network namespace (``unshare``, with a user namespace when the
   process is not privileged), so no socket reaches anything; ``socket``, ``ssl``, ``ctypes``,
   ``subprocess`` and ``multiprocessing`` cannot be imported by the code either;
2. limits itself with ``resource``: CPU seconds, address space, file size, open files;
3. removes process creation (``fork``, ``exec*``, ``spawn*``, ``system``, ``popen``, ``kill``)
   from ``os`` and ``posix``.

It reads ``{"code", "function", "cases": [{"args", "kwargs"}], "case_seconds", "cpu_seconds",
"memory_mb"}`` from stdin, runs each case with its own alarm, and writes one JSON line,
``{"network": ..., "load": null | "error", "results": [{"value"} | {"error"} | {"timeout"}]}``,
to the stdout it was given (the submission's own prints go to a buffer). It never sees
expected values: the parent compares.
"""

import io
import json
import os
import resource
import signal
import sys


def leave_network():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        clone_newnet, clone_newuser = 0x40000000, 0x10000000
        for flags in (clone_newnet, clone_newuser | clone_newnet):
            if libc.unshare(flags) == 0:
                return "namespace"
    except Exception:  # noqa: BLE001 - no ctypes or no unshare: the import block below remains
        pass
    return "imports blocked"


def limit(cpu_seconds, memory_mb):
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    memory = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (4 * 1024 * 1024, 4 * 1024 * 1024))
    resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def no_processes():
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


def main():
    out = os.fdopen(os.dup(1), "w")
    request = json.loads(sys.stdin.read())
    network = leave_network()
    limit(int(request["cpu_seconds"]), int(request["memory_mb"]))
    sys.stdout = sys.stderr = io.StringIO()
    sys.stdin = io.StringIO()
    namespace = {"__name__": "solution"}
    report = {"network": network, "load": None, "results": []}
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        no_processes()
        code = compile(request["code"], "solution.py", "exec")
        signal.setitimer(signal.ITIMER_REAL, float(request["case_seconds"]))
        try:
            exec(code, namespace)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        report["load"] = "timeout while defining the code"
    except SyntaxError as exc:
        report["load"] = f"SyntaxError: {exc.msg} (line {exc.lineno})"
    except BaseException as exc:  # noqa: BLE001 - whatever the code raises is its result
        report["load"] = short_error(exc)
    function = namespace.get(request["function"])
    if report["load"] is None and not callable(function):
        report["load"] = f"NameError: the code defines no function {request['function']!r}"
    if report["load"] is None:
        for case in request["cases"]:
            signal.setitimer(signal.ITIMER_REAL, float(request["case_seconds"]))
            try:
                value = function(*case.get("args", []), **case.get("kwargs", {}))
                signal.setitimer(signal.ITIMER_REAL, 0)
            except CaseTimeout:
                result = {"timeout": True}
            except BaseException as exc:  # noqa: BLE001 - whatever the code raises is its result
                signal.setitimer(signal.ITIMER_REAL, 0)
                result = {"error": short_error(exc)}
            else:
                try:
                    result = {"value": json.loads(json.dumps(value, allow_nan=False))}
                except (TypeError, ValueError, RecursionError):
                    result = {"error": f"TypeError: the result ({type(value).__name__}) is not a JSON value"}
            report["results"].append(result)
    out.write(json.dumps(report) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
