"""Running a submission's hidden tests in a box it cannot leave.

``run_tests(code, function, cases, limits)`` runs ``function`` of ``code`` on each case inside
**bubblewrap** (``bwrap``, Debian package ``bubblewrap``; ``scripts/setup.sh`` installs it):

- new user, PID, network, IPC, UTS and cgroup namespaces: no network at all, no process of the
  machine to see or signal, a user that owns nothing outside;
- a seccomp filter (built with libseccomp through ``pyseccomp``, exported as BPF and loaded by
  bubblewrap) that refuses with ``EPERM`` the key-management calls (so no keyring of the user's is
  readable), ``ptrace`` and the calls that read or write another process's memory, ``io_uring``,
  ``bpf``, ``perf_event_open``, ``userfaultfd``, System V shared memory, and sockets of any family but ``AF_UNIX`` (no
  ``AF_VSOCK``, which a network namespace does not confine); calls of another architecture's
  table (32-bit ``int 0x80``, x32) kill the box;
- an empty environment (not one variable of the app's: no API key);
- a filesystem that holds the interpreter (its binary, the standard library without
  ``site-packages``, the shared libraries they load), the submission as a read-only file, a small
  ``/proc`` (without ``/proc/keys``) and ``/dev`` of the box's own, and one writable scratch
  folder in memory (``/scratch``, 16 MiB); every other mount is read-only; no ``/etc``, no home,
  no project, no scenario files; the box's first process shows no path of the machine's (its
  options reach bubblewrap on a file descriptor, the interpreter is started as
  ``/sandbox/python``);
- the whole process tree dies with the box: the parent kills the box at a case's time limit, and
  with it every process started inside, ``setsid`` or not (PID namespace);
- limits: CPU seconds, address space per process, file size, open files, and the number of
  processes (a pids cgroup where this process may make one, as root usually can; otherwise
  ``RLIMIT_NPROC``, which counts the box's own processes under its own user); the memory of the
  whole box (its processes and its scratch files) in a memory cgroup where this process may make
  one (``whole_box_memory()`` says whether it can); otherwise only the address space per process
  times the number of processes bounds it.

The verdict is made outside the box. The box gets the test *inputs* one at a time, on a pipe,
each with an id drawn fresh by the parent, and answers each with a value under that id (lines
under any other id, such as answers the code wrote in advance, count for nothing); the parent
keeps the clock (a case that does not answer in time is
a timeout, and the box is killed and started afresh for the next case) and compares the answers
with the expected values, which never enter the box. Whatever the code prints or forges, it can
only ever give an answer to the input in front of it. Reading the box's output is total: lines
that are not JSON, not UTF-8 or nested beyond the parser's depth answer nothing and are passed
over; a line larger than ``MAX_ANSWER_BYTES`` or an answer that is not a test result ends the
case as an error with the reason; nothing the box writes raises in the parent.

Where bubblewrap cannot run (not installed, user namespaces disabled, or libseccomp or its binding
missing), model-written code is
not run: ``run_tests`` reports every case as an error that says why, and worlds that run code
say so before an episode starts (``unavailable()``). ``allow_unsafe()`` (the command line's
``--unsafe-sandbox``, or ``TOM_ARENA_UNSAFE_SANDBOX=1``) runs the same child without the box:
resource limits only, which keep a wrong submission from harming the machine, but not one
written to escape.

A test case is ``{"args": [...], "kwargs": {...}, "expected": value}`` (JSON values; tuples
come back as lists) with an optional ``"tolerance"`` for numbers, or ``{"args": [...],
"raises": "ValueError"}``.
"""

from __future__ import annotations

import collections
import errno
import functools
import json
import math
import os
import re
import secrets
import selectors
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHILD = Path(__file__).with_name("sandbox_child.py")
MAX_CODE_CHARS = 20_000
#: longest answer line read from the box (a value larger than this is an error, not a hang)
MAX_ANSWER_BYTES = 1_000_000
#: size of the box's one writable folder
SCRATCH_BYTES = 16 * 1024 * 1024
UNSAFE_ENV = "TOM_ARENA_UNSAFE_SANDBOX"
#: the box's user and group: the conventional "nobody"
BOX_UID = 65534
#: where the box sees the submission and the child
BOX_FOLDER = "/sandbox"
#: the interpreter inside the box: a link to the base interpreter, so that no path of the machine
#: shows on the command line of the box's processes
BOX_PYTHON = f"{BOX_FOLDER}/python"
CGROUP_ROOT = Path("/sys/fs/cgroup")
#: system calls the box's seccomp filter refuses with EPERM: the keyrings, other processes'
#: memory, io_uring, eBPF, perf events, userfaultfd, and System V shared memory (segments that
#: outlive every process's address space, so that no per-process limit counts them)
DENIED_CALLS = ("add_key", "request_key", "keyctl", "ptrace", "process_vm_readv", "process_vm_writev",
                "pidfd_getfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf",
                "perf_event_open", "userfaultfd", "shmget")
#: system calls refused unless their first argument (the address family) is AF_UNIX
UNIX_ONLY_CALLS = ("socket", "socketpair")


@dataclass(frozen=True, slots=True)
class Limits:
    """What one run of a submission may use."""

    case_seconds: float = 2.0
    memory_mb: int = 256
    #: seconds for starting the box and loading the code, on top of a case's time
    startup_seconds: float = 10.0
    #: processes (and threads) alive at once in the box, the child included
    processes: int = 16
    #: memory of the whole box (every process and its scratch files), where a memory cgroup can
    #: be made (``whole_box_memory()``); None: ``memory_mb`` + 128 (the scratch folder, bubblewrap
    #: and room for a few small processes beside the child)
    box_memory_mb: int | None = None

    def whole_box_mb(self) -> int:
        return self.box_memory_mb if self.box_memory_mb is not None else self.memory_mb + 128

    def cpu_seconds(self, cases: int) -> int:
        return int(math.ceil(self.case_seconds * (cases + 1))) + 1


@dataclass(frozen=True, slots=True)
class TestReport:
    """The verdict on one submission for one function: one outcome per hidden case
    (``pass``, ``fail``, ``error``, ``timeout``), and the first problem in words without the
    expected values (``case 3: wrong result``, ``case 1: ZeroDivisionError: ...``).
    ``isolation`` says where the code ran (``bubblewrap``, ``unsafe: ...``, or empty when it
    did not run)."""

    function: str
    outcomes: tuple[str, ...]
    problem: str = ""
    isolation: str = ""

    @property
    def passed(self) -> int:
        return sum(o == "pass" for o in self.outcomes)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def ok(self) -> bool:
        return self.total > 0 and self.passed == self.total

    def key(self) -> tuple:
        return (self.function, self.outcomes, self.problem)

    def to_dict(self) -> dict[str, Any]:
        return {"function": self.function, "passed": self.passed, "total": self.total, "ok": self.ok,
                "outcomes": list(self.outcomes), "problem": self.problem}


def matches(value: Any, expected: Any, tolerance: float | None = None) -> bool:
    """``value`` equals ``expected`` as JSON values (bools are not numbers; numbers within
    ``tolerance`` when it is given)."""
    if isinstance(expected, bool) or isinstance(value, bool):
        return isinstance(expected, bool) and isinstance(value, bool) and value == expected
    if isinstance(expected, (int, float)) and isinstance(value, (int, float)):
        if tolerance is None:
            return value == expected
        try:
            return abs(value - expected) <= tolerance
        except OverflowError:  # an integer past every float, against a float
            return False
    if isinstance(expected, list) and isinstance(value, list):
        return len(value) == len(expected) and all(matches(v, e, tolerance) for v, e in zip(value, expected))
    if isinstance(expected, dict) and isinstance(value, dict):
        return value.keys() == expected.keys() and all(matches(value[k], expected[k], tolerance) for k in expected)
    return type(value) is type(expected) and value == expected


def judge(case: Mapping[str, Any], result: Mapping[str, Any]) -> tuple[str, str]:
    """(outcome, problem) of one case."""
    if result.get("timeout"):
        return "timeout", "took longer than its time limit"
    if "error" in result:
        error = str(result["error"])
        wanted = case.get("raises")
        if wanted is not None and error.split(":", 1)[0] == wanted:
            return "pass", ""
        return "error", error
    if case.get("raises") is not None:
        return "fail", f"returned a value where an error ({case['raises']}) was expected"
    if matches(result.get("value"), case.get("expected"), case.get("tolerance")):
        return "pass", ""
    return "fail", "wrong result"


# ------------------------------------------------------------------ the box


def allow_unsafe(allowed: bool = True) -> None:
    """Run code without the box where the box cannot run (``--unsafe-sandbox``). Set in the
    environment, so that worker processes of an experiment inherit it."""
    if allowed:
        os.environ[UNSAFE_ENV] = "1"
    else:
        os.environ.pop(UNSAFE_ENV, None)


def unsafe_allowed() -> bool:
    return os.environ.get(UNSAFE_ENV, "") == "1"


@dataclass(frozen=True, slots=True)
class Interpreter:
    """What the box must hold for the interpreter to start: read-only files and folders, the
    folders hidden inside them, and the library path."""

    executable: str
    binds: tuple[str, ...]
    hidden: tuple[str, ...]
    library_path: str


def _shared_libraries(files: Sequence[str]) -> list[str]:
    """Every shared library ``files`` load (by ``ldd``), the dynamic loader included."""
    ldd = shutil.which("ldd")
    if ldd is None:
        raise OSError("ldd is not installed (Debian package libc-bin)")
    found: list[str] = []
    for start in range(0, len(files), 64):
        run = subprocess.run([ldd, *files[start:start + 64]], capture_output=True, text=True, check=False,
                             timeout=60)
        for line in run.stdout.splitlines():
            match = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
            if match:
                found.append(match.group(1))
    return sorted(set(found))


def base_executable() -> str:
    """The base interpreter of this Python, not a virtual environment's: the box has no site
    packages."""
    return os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)


@functools.cache
def interpreter() -> Interpreter:
    """The base interpreter and what the box must hold for it to start."""
    executable = base_executable()
    paths = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix,
                                      "installed_base": sys.base_prefix,
                                      "installed_platbase": sys.base_exec_prefix})
    stdlib = {os.path.realpath(paths["stdlib"]), os.path.realpath(paths["platstdlib"])}
    dynload = [str(p) for folder in stdlib for p in Path(folder, "lib-dynload").glob("*.so")]
    libraries = _shared_libraries([executable, *dynload])
    hidden = sorted({os.path.realpath(paths[k]) for k in ("purelib", "platlib")
                     if any(os.path.realpath(paths[k]).startswith(s + os.sep) for s in stdlib)
                     and os.path.isdir(paths[k])})
    library_path = ":".join(sorted({os.path.dirname(p) for p in libraries}))
    return Interpreter(executable, tuple(sorted({executable, *stdlib, *libraries})), tuple(hidden), library_path)


@functools.cache
def seccomp_policy() -> bytes:
    """The box's seccomp filter as BPF (libseccomp's export): ``DENIED_CALLS`` and sockets of a
    family other than ``AF_UNIX`` fail with EPERM, calls of another architecture kill the box,
    everything else is allowed. Raises OSError when libseccomp or its binding is missing."""
    try:
        import pyseccomp
    except (ImportError, OSError) as exc:  # the binding raises at import when libseccomp is missing
        raise OSError(f"libseccomp's Python binding cannot be loaded ({exc}); install pyseccomp and the "
                      "Debian package libseccomp2") from exc
    policy = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    policy.set_attr(pyseccomp.Attr.ACT_BADARCH, pyseccomp.KILL_PROCESS)
    refuse = pyseccomp.ERRNO(errno.EPERM)
    for call in DENIED_CALLS:
        policy.add_rule(refuse, call)
    for call in UNIX_ONLY_CALLS:
        policy.add_rule(refuse, call, pyseccomp.Arg(0, pyseccomp.NE, socket.AF_UNIX))
    with tempfile.TemporaryFile() as file:
        policy.export_bpf(file)
        file.seek(0)
        return file.read()


@dataclass(frozen=True, slots=True)
class _CgroupParent:
    """Where the box's cgroups of one hierarchy are made: ``version`` 1 (one controller) or 2."""

    folder: Path
    version: int


def _cgroup_parents() -> dict[str, _CgroupParent]:
    """For ``memory`` and ``pids``: the cgroup of this process under which this process may make
    the box's, by controller (cgroup v2 where the controller is enabled below this process's
    cgroup, else the v1 hierarchy of the controller)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    found: dict[str, _CgroupParent] = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if controllers == "":
            mount = CGROUP_ROOT if (CGROUP_ROOT / "cgroup.controllers").exists() else CGROUP_ROOT / "unified"
            folder = mount / relative
            try:
                enabled = (folder / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            for controller in ("memory", "pids"):
                if controller in enabled and os.access(folder, os.W_OK):
                    found[controller] = _CgroupParent(folder, 2)
        else:
            for controller in ("memory", "pids"):
                folder = CGROUP_ROOT / controller / relative
                if controller in controllers.split(",") and controller not in found and os.access(folder, os.W_OK):
                    found[controller] = _CgroupParent(folder, 1)
    return found


def _box_cgroups(limits: Limits) -> list[Path]:
    """Fresh cgroups for one box, where this process may make them: the memory of the whole box
    capped at ``whole_box_mb()`` (no swap), ``processes`` processes (+ bubblewrap's two)."""
    memory = limits.whole_box_mb() * 1024 * 1024
    settings = {"memory": {1: [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)],
                           2: [("memory.max", memory), ("memory.swap.max", 0)]},
                "pids": {1: [("pids.max", limits.processes + 2)], 2: [("pids.max", limits.processes + 2)]}}
    made: dict[Path, Path] = {}
    for controller, parent in _cgroup_parents().items():
        folder = made.get(parent.folder)
        try:
            if folder is None:
                folder = made[parent.folder] = Path(tempfile.mkdtemp(prefix="tom-arena-box-", dir=parent.folder))
            for name, value in settings[controller][parent.version]:
                if (folder / name).exists() or name in ("memory.limit_in_bytes", "memory.max", "pids.max"):
                    (folder / name).write_text(str(value))
        except OSError:  # a cgroup whose limit cannot be set is not used at all
            if folder is not None:
                made.pop(parent.folder, None)
                _remove_cgroup(folder)
    return list(made.values())


@functools.cache
def whole_box_memory() -> str | None:
    """How the whole box's memory is capped here: ``memory cgroup (v1)``/``(v2)``, or None when
    no memory cgroup can be made (then the address space per process times the number of
    processes is the bound)."""
    parent = _cgroup_parents().get("memory")
    if parent is None:
        return None
    made = _box_cgroups(Limits())
    try:
        ok = any((folder / name).exists() for folder in made for name in ("memory.limit_in_bytes", "memory.max"))
    finally:
        for folder in made:
            _remove_cgroup(folder)
    return f"memory cgroup (v{parent.version})" if ok else None


def _remove_cgroup(folder: Path) -> None:
    for _ in range(50):  # the kernel empties it as the box's processes are reaped
        try:
            folder.rmdir()
            return
        except OSError:
            time.sleep(0.01)


def box_options(folder: str, seccomp_fd: int) -> list[str]:
    """bubblewrap's options for a box on the submission in ``folder`` (they reach bubblewrap on a
    file descriptor, ``--args``, so that they do not show on its command line inside the box)."""
    found = interpreter()
    options = ["--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
               "--unshare-user", "--uid", str(BOX_UID), "--gid", str(BOX_UID), "--disable-userns",
               "--cap-drop", "ALL", "--hostname", "sandbox", "--seccomp", str(seccomp_fd)]
    for path in found.binds:
        options += ["--ro-bind", path, path]
    for path in found.hidden:
        options += ["--tmpfs", path, "--remount-ro", path]
    options += ["--proc", "/proc", "--dev", "/dev"]
    for path in ("/proc/keys", "/proc/key-users"):  # the machine's keys by name: not the box's business
        if os.path.exists(path):
            options += ["--ro-bind", "/dev/null", path]
    options += ["--size", str(SCRATCH_BYTES), "--perms", "0700", "--tmpfs", "/scratch",
                "--ro-bind", str(Path(folder) / "solution.py"), f"{BOX_FOLDER}/solution.py",
                "--ro-bind", str(CHILD), f"{BOX_FOLDER}/child.py",
                "--symlink", found.executable, BOX_PYTHON,
                "--remount-ro", "/dev", "--remount-ro", "/",  # the scratch folder stays writable
                "--chdir", "/scratch",
                "--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONHASHSEED", "0",
                "--setenv", "LD_LIBRARY_PATH", found.library_path]
    return options


def box_command(options_fd: int, cgroups: Sequence[Path]) -> list[str]:
    """The command that starts the box, its options read from ``options_fd``: first into the
    box's cgroups (so that every process of the box is counted), then bubblewrap."""
    command = ["bwrap", "--args", str(options_fd),  # found on the PATH of _bare_env()
               BOX_PYTHON, "-S", "-s", "-B", "-P", "-u", f"{BOX_FOLDER}/child.py"]
    if cgroups:
        join = 'n=$0; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; n=$((n-1)); done; exec "$@"'
        command = ["/bin/sh", "-c", join, str(len(cgroups)), *(str(g) for g in cgroups), *command]
    return command


def unsafe_command() -> list[str]:
    return [base_executable(), "-I", "-S", "-B", str(CHILD)]


def _write_submission(folder: str, code: str) -> None:
    """``code`` as ``folder/solution.py``, readable by the box's user."""
    path = Path(folder, "solution.py")
    path.write_text(code, encoding="utf-8", errors="surrogateescape")
    os.chmod(folder, 0o755)
    path.chmod(0o644)


@functools.cache
def _probe() -> str | None:
    """Why the box cannot run on this machine, or None (tried once per process)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed (Debian package 'bubblewrap'; scripts/setup.sh installs it)"
    try:
        interpreter()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the interpreter's libraries cannot be listed: {exc}"
    try:
        seccomp_policy()
    except OSError as exc:
        return f"the box's seccomp filter cannot be built: {exc}"
    with tempfile.TemporaryDirectory(prefix="tom-arena-sandbox-") as folder:
        _write_submission(folder, "def probe():\n    return 1\n")
        try:
            answers = _run_box(folder, "probe", [{"args": []}], Limits(startup_seconds=30.0), isolated=True)
        except OSError as exc:
            return f"bubblewrap cannot start: {exc}"
    if answers and answers[0] == {"value": 1}:
        return None
    why = answers[0].get("error") if answers else None
    return f"bubblewrap cannot start a box here ({why or 'no answer'})"


def unavailable() -> str | None:
    """Why model-written code would not run here, in a sentence a person can act on, or None
    when it runs (in the box, or without it because the user allowed that)."""
    problem = _probe()
    if problem is None or unsafe_allowed():
        return None
    return (f"the team room runs submitted code only inside its sandbox, and the sandbox cannot run here: "
            f"{problem}. Install bubblewrap and allow user namespaces, or pass --unsafe-sandbox to run the "
            f"code with resource limits only (not safe against code written to escape)")


def isolation() -> str:
    """Where code runs now: ``bubblewrap``, ``unsafe: <why>`` or ``refused: <why>``."""
    problem = _probe()
    if problem is None:
        return "bubblewrap"
    return f"unsafe: {problem}" if unsafe_allowed() else f"refused: {problem}"


class _Box:
    """One running child, in the box or not: send a line, read a line before a deadline."""

    def __init__(self, command: list[str], folder: str, cgroups: Sequence[Path] = (),
                 pass_fds: Sequence[int] = ()) -> None:
        self.cgroups = list(cgroups)
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, cwd=folder, env=_bare_env(),
                                        start_new_session=True, pass_fds=tuple(pass_fds))
        self.selector = selectors.DefaultSelector()
        assert self.process.stdout is not None
        os.set_blocking(self.process.stdout.fileno(), False)
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.lines: collections.deque[bytes] = collections.deque()  # read, not yet looked at
        self.partial = b""  # the start of the line being read

    def send(self, message: Mapping[str, Any]) -> bool:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def answer(self, seconds: float, question: str) -> dict[str, Any] | str:
        """The answer to ``question`` (a request's id), or why there is none (``timeout``,
        ``closed``, ``too large``). Lines that answer no question asked (written
        by the code itself, in advance) are passed over."""
        deadline = time.monotonic() + seconds
        while True:
            answer = self._line(deadline)
            if not isinstance(answer, dict) or answer.pop("id", None) == question:
                return answer

    def _line(self, deadline: float) -> dict[str, Any] | str:
        assert self.process.stdout is not None
        while not self.lines:  # each chunk is split once: many short lines cost linear time
            if len(self.partial) > MAX_ANSWER_BYTES:
                return "too large"
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                return "timeout"
            chunk = self.process.stdout.read(65536)
            if not chunk:
                return "closed"
            *complete, self.partial = (self.partial + chunk).split(b"\n")
            self.lines.extend(complete)
        line = self.lines.popleft()
        if len(line) > MAX_ANSWER_BYTES:
            return "too large"
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the parser's depth
            return {}  # answers no question
        return answer if isinstance(answer, dict) else {}

    def stderr_tail(self) -> str:
        assert self.process.stderr is not None
        try:
            self.process.wait(timeout=2)
            tail = self.process.stderr.read()[-400:].decode("utf-8", "replace").strip().splitlines()
        except (subprocess.TimeoutExpired, OSError, ValueError):
            return ""
        return tail[-1] if tail else ""

    def close(self) -> None:
        """Kill the box: its first process, and with it the box's PID namespace; unboxed, the
        child's process group."""
        try:
            os.killpg(self.process.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.kill()
        self.process.wait()
        self.selector.close()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        for folder in self.cgroups:
            _remove_cgroup(folder)


def _bare_env() -> dict[str, str]:
    """The environment of the box's first process (bubblewrap clears it again inside): a PATH
    on which ``bwrap`` is found, so that the box's first process is named by no path."""
    bwrap = shutil.which("bwrap")
    folders = [os.path.dirname(bwrap)] if bwrap else []
    return {"PATH": ":".join(dict.fromkeys([*folders, "/usr/bin", "/bin"])), "LANG": "C.UTF-8"}


def _memory_file(name: str, data: bytes) -> int:
    """A file descriptor of an in-memory file holding ``data``, read from its start."""
    fd = os.memfd_create(name)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def _start_box(folder: str, limits: Limits) -> _Box:
    """A box on the submission in ``folder``: the seccomp filter and bubblewrap's options are
    handed over on in-memory files, which bubblewrap reads and closes."""
    policy = _memory_file("seccomp", seccomp_policy())
    options = -1
    try:
        options = _memory_file("options", b"".join(o.encode() + b"\0" for o in box_options(folder, policy)))
        cgroups = _box_cgroups(limits)
        try:
            return _Box(box_command(options, cgroups), folder, cgroups, pass_fds=(policy, options))
        except BaseException:
            for cgroup in cgroups:
                _remove_cgroup(cgroup)
            raise
    finally:
        for fd in (policy, options):
            if fd >= 0:
                os.close(fd)


@contextmanager
def _box(folder: str, limits: Limits, isolated: bool) -> Iterator[_Box]:
    box = _start_box(folder, limits) if isolated else _Box(unsafe_command(), folder)
    try:
        yield box
    finally:
        box.close()


def _run_box(folder: str, function: str, cases: Sequence[Mapping[str, Any]], limits: Limits,
             isolated: bool) -> list[dict[str, Any]]:
    """One answer per case (``{"value"}``, ``{"error"}``, ``{"timeout"}``); a load problem is
    the error of every case. A case that does not answer in time kills the box; the next
    case runs in a fresh one."""
    file = f"{BOX_FOLDER}/solution.py" if isolated else str(Path(folder) / "solution.py")
    header = {"file": file, "function": function, "case_seconds": limits.case_seconds,
              "cpu_seconds": limits.cpu_seconds(len(cases)), "memory_mb": limits.memory_mb,
              "processes": limits.processes, "unboxed": not isolated}
    answers: list[dict[str, Any]] = []
    grace = min(1.0, limits.case_seconds)  # the child's own alarm answers first; this is for code that blocks it
    while len(answers) < len(cases):
        with _box(folder, limits, isolated) as box:
            header["id"] = secrets.token_hex(16)
            box.send(header)
            load = box.answer(limits.startup_seconds + limits.case_seconds + grace, str(header["id"]))
            if not isinstance(load, dict) or load.get("load") is not None:
                why = _load_problem(load, box)
                answers += [{"error": why}] * (len(cases) - len(answers))
                break
            while len(answers) < len(cases):
                question = secrets.token_hex(16)
                box.send({"id": question, "args": list(cases[len(answers)].get("args", [])),
                          "kwargs": dict(cases[len(answers)].get("kwargs", {}))})
                answer = box.answer(limits.case_seconds + grace, question)
                if answer == "timeout":
                    answers.append({"timeout": True})
                    break  # a fresh box for the next case
                if not isinstance(answer, dict) or not _well_formed(answer):
                    why = f"the test process failed: {_answer_problem(answer, box)}"
                    answers.append({"error": why})
                    break
                answers.append(answer)
    return answers


def _well_formed(answer: Mapping[str, Any]) -> bool:
    return (len(answer) == 1 and ("value" in answer or answer.get("timeout") is True
                                  or isinstance(answer.get("error"), str)))


def _answer_problem(answer: Any, box: _Box) -> str:
    if answer == "closed":
        return box.stderr_tail() or "no answer (killed by a resource limit?)"
    if answer == "too large":
        return f"an answer larger than {MAX_ANSWER_BYTES:,} bytes"
    return "an answer that is not a test result"


def _load_problem(load: Any, box: _Box) -> str:
    if isinstance(load, dict):
        problem = load.get("load")
        return problem[:300] if isinstance(problem, str) else "the test process failed: a load answer that is not text"
    if load == "timeout":
        return "the code did not load in time"
    return f"the test process failed: {_answer_problem(load, box)}"


def run_tests(code: str, function: str, cases: Sequence[Mapping[str, Any]], limits: Limits = Limits()) -> TestReport:
    """Run ``function`` of ``code`` on every case in a fresh box (see the module's text)."""
    n = len(cases)
    if len(code) > MAX_CODE_CHARS:
        return TestReport(function, ("error",) * n, f"the code has {len(code):,} characters; at most "
                                                    f"{MAX_CODE_CHARS:,} are run")
    problem = _probe()
    if problem is not None and not unsafe_allowed():
        return TestReport(function, ("error",) * n, f"not run: the sandbox cannot run here ({problem}); "
                                                    "see --unsafe-sandbox")
    where = "bubblewrap" if problem is None else f"unsafe: {problem}"
    with tempfile.TemporaryDirectory(prefix="tom-arena-sandbox-") as folder:
        _write_submission(folder, code)
        answers = _run_box(folder, function, cases, limits, isolated=problem is None)
    outcomes, first = [], ""
    for k, case in enumerate(cases):
        outcome, why = judge(case, answers[k])
        outcomes.append(outcome)
        if why and not first:
            first = f"case {k + 1}: {why}"
    return TestReport(function, tuple(outcomes), first, where)
