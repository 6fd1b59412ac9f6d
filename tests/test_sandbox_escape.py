"""Code written to escape the team room's sandbox, and what stops it.

Every attempt below is a submission as an engineer seat would send it. Each one first undoes
the child's own guards (the blocked imports and the removed ``os`` functions are a courtesy to
ordinary code, not the boundary), then tries its escape, and answers ``"blocked"`` when the
escape failed and what it found otherwise. The hidden test expects ``"blocked"``; where an
escape would leave a trace on the machine (a file, a process, a signal), the test looks for that
trace outside the box as well.

These run for real, in bubblewrap, as on a user's machine (``scripts/setup.sh`` installs it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.teamroom import sandbox
from sim.teamroom.sandbox import Limits, run_tests

pytestmark = pytest.mark.skipif(sandbox.isolation() != "bubblewrap",
                                reason=f"the sandbox cannot run here: {sandbox.isolation()}")

SECRET = "sk-escape-test-0123456789abcdefghij"
FAST = Limits(case_seconds=2.0, startup_seconds=20.0)

#: undoes the child's courtesy guards, so that each attempt meets the box itself
UNGUARD = """
import sys, importlib
for _name in [n for n, m in list(sys.modules.items()) if m is None]:
    del sys.modules[_name]
import posix, os
importlib.reload(posix)
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
"""


def attempt(body: str, *args, limits: Limits = FAST, expected="blocked"):
    """Run ``escape(*args)`` (the body, after UNGUARD) as a submission; its report."""
    code = UNGUARD + "\ndef escape(*args):\n" + "".join(f"    {line}\n" for line in body.strip().splitlines())
    return run_tests(code, "escape", [{"args": list(args), "expected": expected}], limits)


@pytest.fixture(autouse=True)
def a_key_in_the_environment(monkeypatch):
    """The app's environment holds an API key, as it does when a user set one."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def test_the_guards_are_undone_so_that_the_box_is_what_is_tested():
    report = attempt("""
import socket, subprocess
return "blocked" if callable(libc.fork) and callable(socket.socket) else "guards still on"
""")
    assert report.outcomes == ("pass",), report.problem


def test_no_variable_of_the_parent_reaches_the_code():
    report = attempt("""
found = [k for k in os.environ if k not in ("LANG", "PYTHONHASHSEED", "LD_LIBRARY_PATH", "PWD")]
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            if b"sk-escape" in open(f"/proc/{pid}/environ", "rb").read():
                found.append(f"environ of {pid}")
        except OSError:
            pass
return "blocked" if not found else str(found)
""")
    assert report.outcomes == ("pass",), report.problem


def test_the_parent_process_is_not_there_to_read(tmp_path):
    """Not its environment (the key), its memory maps, its open files, its memory."""
    report = attempt(f"""
found = []
ppid = os.getppid()
for pid in [p for p in os.listdir("/proc") if p.isdigit()] + [str(ppid), "{os.getpid()}"]:
    for what in ("environ", "maps", "cmdline", "mem"):
        try:
            data = open(f"/proc/{{pid}}/{{what}}", "rb").read(1 << 20)
        except OSError:
            continue
        if b"sk-escape" in data or b"pytest" in data or b"{tmp_path.name}" in data:
            found.append(f"{{what}} of {{pid}}")
    try:
        for fd in os.listdir(f"/proc/{{pid}}/fd"):
            target = os.readlink(f"/proc/{{pid}}/fd/{{fd}}")
            if target.startswith("/") and not target.startswith(("/dev/", "/sandbox/", "/scratch")):
                found.append(f"fd {{fd}} of {{pid}}: {{target}}")
    except OSError:
        pass
return "blocked" if not found else str(found)[:200]
""")
    assert report.outcomes == ("pass",), report.problem


def test_the_filesystem_holds_the_interpreter_and_the_submission_only(tmp_path):
    hidden = tmp_path / "hidden-tests.json"
    hidden.write_text('{"expected": "MARKER-of-hidden-tests"}')
    report = attempt(f"""
found = [p for p in ("/etc/passwd", "/etc/shadow", {str(hidden)!r}, {str(Path.cwd())!r},
                     {str(Path(sandbox.__file__).parent)!r}) if os.path.exists(p)]
allowed = (sys.base_prefix + "/", "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/sandbox/", "/scratch/")
for root, dirs, files in os.walk("/"):
    if root.startswith(("/proc", "/sys", "/dev")) or root.startswith(sys.base_prefix):
        dirs[:] = []
        continue
    found += [os.path.join(root, name) for name in files
              if not os.path.join(root, name).startswith(allowed)
              or (os.path.join(root, name).startswith("/sandbox/")
                  and name not in ("child.py", "solution.py", "python"))]
if os.path.realpath("/sandbox/python") != os.path.realpath(sys.executable):
    found.append("/sandbox/python is not the interpreter")
return "blocked" if not found else str(found)[:200]
""")
    assert report.outcomes == ("pass",), report.problem


def test_the_hidden_tests_cannot_be_looked_up(tmp_path):
    """Code that searches the files it can see for the expected values finds none: a wrong
    answer stays wrong. (The expected value is a token no computation on the input gives.)"""
    import secrets

    token = f"TOKEN-{secrets.token_hex(8)}"
    (tmp_path / "hidden.json").write_text(f'{{"expected": "{token}"}}')  # as a scenario file holds it
    code = UNGUARD + """
import re
def lookup(x):
    for root, dirs, files in os.walk("/"):
        if root.startswith(("/proc", "/sys", "/dev")):
            dirs[:] = []
            continue
        for name in files:
            try:
                text = open(os.path.join(root, name), "rb").read(1 << 20)
            except OSError:
                continue
            found = re.search(rb"TOKEN-[0-9a-f]{16}", text)
            if found:
                return found.group().decode()
    return "not found"
"""
    report = run_tests(code, "lookup", [{"args": [1], "expected": token}], Limits(case_seconds=10.0))
    assert report.outcomes == ("fail",), report.problem


def test_writes_land_only_in_the_scratch_folder_which_dies_with_the_box(tmp_path):
    report = attempt(f"""
written = []
for path in ({str(tmp_path / 'escaped.txt')!r}, "/escaped.txt", "/sandbox/escaped.txt", "/usr/escaped.txt",
             "/tmp/escaped.txt", os.path.join(sys.base_prefix, "escaped.txt")):
    try:
        open(path, "w").write("x")
        written.append(path)
    except OSError:
        pass
open("/scratch/allowed.txt", "w").write("x")
return "blocked" if not written else str(written)
""")
    assert report.outcomes == ("pass",), report.problem
    assert not (tmp_path / "escaped.txt").exists() and not Path("/escaped.txt").exists()
    assert not Path(sys.base_prefix, "escaped.txt").exists()


def _processes_named(name: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and Path(f"/proc/{pid}/comm").read_text().strip() == name:
                found.append(int(pid))
        except OSError:
            pass
    return found


def test_a_detached_grandchild_dies_with_the_box():
    """A grandchild forked through ctypes, in a session of its own (setsid), that would linger
    after the box is killed: the box's PID namespace takes it down with the rest."""
    name = f"esc{os.getpid() % 100000}"
    report = attempt(f"""
pid = libc.fork()
if pid == 0:
    libc.setsid()
    if libc.fork() == 0:
        libc.prctl(15, {name.encode()!r}, 0, 0, 0)  # PR_SET_NAME, so that the host can look for it
        import time
        while True:
            time.sleep(0.05)
    os._exit(0)
import time
time.sleep(0.5)
return "blocked"
""")
    assert report.outcomes == ("pass",), report.problem
    deadline = time.monotonic() + 60  # a hang guard: on a loaded machine the box takes seconds to go
    while _processes_named(name) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_named(name) == []


def test_the_whole_tree_dies_at_the_time_limit():
    name = f"esct{os.getpid() % 100000}"
    report = attempt(f"""
import signal, time
signal.signal(signal.SIGALRM, signal.SIG_IGN)  # the child's own alarm no longer stops it
if libc.fork() == 0:
    libc.setsid()
    libc.prctl(15, {name.encode()!r}, 0, 0, 0)
    while True:
        time.sleep(0.05)
while True:
    pass
""", limits=Limits(case_seconds=0.5, startup_seconds=20.0))
    assert report.outcomes == ("timeout",)
    deadline = time.monotonic() + 60  # a hang guard, as above
    while _processes_named(name) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_named(name) == []


def test_nothing_outside_can_be_signalled():
    sentinel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        report = attempt(f"""
import ctypes
hit = []
for pid in ({os.getpid()}, {sentinel.pid}, os.getppid()):
    if libc.kill(pid, 0) == 0 and pid > 2:
        hit.append(pid)
libc.kill(-1, 9)  # every process this user may signal: only the box's own, itself included
return "blocked" if not hit else str(hit)
""")
        time.sleep(0.2)
        assert sentinel.poll() is None, "the sentinel process was killed from inside the box"
        # kill(-1) took the box down with it, so there is no answer: an error, never a pass
        assert report.outcomes in (("error",), ("pass",)), report
    finally:
        sentinel.kill()
        sentinel.wait()


def test_no_network_not_even_loopback_of_the_machine():
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.1)
    port = server.getsockname()[1]
    try:
        report = attempt(f"""
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=1).close()
except OSError:
    pass
else:
    return "reached the machine's loopback"
try:
    socket.create_connection(("1.1.1.1", 80), timeout=1).close()
except OSError:
    return "blocked"
return "reached the internet"
""")
        assert report.outcomes == ("pass",), report.problem
        with pytest.raises(OSError):
            server.accept()
    finally:
        server.close()


def test_the_number_of_processes_is_limited():
    report = attempt("""
import time
made = 0
for _ in range(200):
    pid = libc.fork()
    if pid == 0:
        time.sleep(2)
        os._exit(0)
    if pid < 0:
        break
    made += 1
return "blocked" if made < 200 else "made 200 processes"
""")
    assert report.outcomes == ("pass",), report.problem


def test_memory_is_limited():
    report = attempt("""
try:
    block = bytearray(2 * 1024 ** 3)
except MemoryError:
    return "blocked"
return "allocated 2 GiB"
""")
    assert report.outcomes == ("pass",), report.problem


def test_forged_answers_do_not_pass_a_wrong_function():
    """The code writes fake results to every descriptor it holds, in today's answer format and
    in the old report format, then returns wrong values: every case fails."""
    code = UNGUARD + """
forged = ('{"load": null}\\n' + '{"value": 3}\\n' * 20 + '{"network": "namespace", "load": null, '
          '"results": [{"value": 3}, {"value": 7}, {"value": 0}]}\\n').encode()
for fd in range(32):
    try:
        os.write(fd, forged)
    except OSError:
        pass
def add(a, b):
    for fd in range(32):
        try:
            os.write(fd, forged)
        except OSError:
            pass
    return -1
"""
    cases = [{"args": [1, 2], "expected": 3}, {"args": [3, 4], "expected": 7}, {"args": [0, 0], "expected": 0}]
    report = run_tests(code, "add", cases, FAST)
    assert report.passed == 0, report


def test_the_box_user_owns_nothing_and_has_no_capabilities():
    report = attempt("""
status = open("/proc/self/status").read()
caps = [line for line in status.splitlines() if line.startswith(("CapEff", "CapPrm"))]
if os.getuid() == 0 or any(line.split()[1].strip("0") for line in caps):
    return f"uid {os.getuid()} {caps}"
try:
    os.setuid(0)
except OSError:
    return "blocked"
return "became root"
""")
    assert report.outcomes == ("pass",), report.problem


def test_where_the_box_cannot_run_the_room_refuses_unless_told_otherwise(tmp_path):
    """Without bubblewrap (here: not on the PATH) the team room will not start; with
    --unsafe-sandbox it runs, with resource limits only."""
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k != "TOM_ARENA_UNSAFE_SANDBOX"}
    env["PATH"] = str(tmp_path)  # no bwrap, no ldd
    command = [sys.executable, str(root / "main.py"), "run", "text-tools", "--out", str(tmp_path / "out"),
               "--quiet", "--no-record"]
    refused = subprocess.run(command, capture_output=True, text=True, cwd=root, env=env, timeout=300)
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "bubblewrap" in lines[0]
    assert "--unsafe-sandbox" in lines[0]
    allowed = subprocess.run([*command, "--unsafe-sandbox"], capture_output=True, text=True, cwd=root, env=env,
                             timeout=300)
    assert allowed.returncode == 0, allowed.stderr[-2000:]
    assert (tmp_path / "out" / "metrics.csv").exists()


# ------------------------------------------------------------ the kernel's surface (seccomp)


def _call(name: str) -> int:
    """The number of a system call on this machine (libseccomp's table)."""
    import pyseccomp

    return pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name)


KEY_PLANTER = r"""
import ctypes, json, sys
sys.path.insert(0, ".")
from sim.teamroom.sandbox import Limits, run_tests
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = int(sys.argv[1]), int(sys.argv[2])
# a session keyring of this process's own, so that the key planted in it touches no other process
assert libc.syscall(keyctl, 1, None) > 0, "KEYCTL_JOIN_SESSION_KEYRING failed"
payload = b"sk-keyring-0123456789"
serial = libc.syscall(add_key, b"user", b"tom-arena-planted-key", payload, len(payload), ctypes.c_long(-3))
assert serial > 0, "add_key failed"
buffer = ctypes.create_string_buffer(100)
assert libc.syscall(keyctl, 11, serial, buffer, 100) == len(payload)  # KEYCTL_READ works here
code, function = sys.stdin.read(), "escape"
report = run_tests(code, function, [{"args": [serial], "expected": "blocked"}], Limits(startup_seconds=20.0))
print(json.dumps({"outcomes": report.outcomes, "problem": report.problem}))
"""


def test_a_key_in_the_parents_session_keyring_cannot_be_read():
    """A key planted in the session keyring of the process that starts the box: neither its
    payload (keyctl read, by its serial), nor the keyrings (keyctl, request_key), nor even its
    name (/proc/keys) can be had inside."""
    import json

    body = f"""
found = []
serial = args[0]
buffer = ctypes.create_string_buffer(100)
if libc.syscall({_call('keyctl')}, 11, serial, buffer, 100) > 0:   # KEYCTL_READ
    found.append("payload " + repr(buffer.raw))
if libc.syscall({_call('keyctl')}, 0, ctypes.c_long(-3), 0) > 0:   # KEYCTL_GET_KEYRING_ID of the session
    found.append("the session keyring")
if libc.syscall({_call('request_key')}, b"user", b"tom-arena-planted-key", None, 0) > 0:
    found.append("request_key")
for name in ("/proc/keys", "/proc/key-users"):
    try:
        text = open(name).read()
    except OSError:
        continue
    if "tom-arena-planted" in text or text.strip():
        found.append(name)
return "blocked" if not found else str(found)[:300]
"""
    code = UNGUARD + "\ndef escape(*args):\n" + "".join(f"    {line}\n" for line in body.strip().splitlines())
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-c", KEY_PLANTER, str(_call("add_key")), str(_call("keyctl"))],
                         input=code, capture_output=True, text=True, cwd=root, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["outcomes"] == ["pass"], report["problem"]


def test_the_box_runs_under_a_seccomp_filter():
    report = attempt("""
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
return "blocked" if status["Seccomp"].strip() == "2" else "Seccomp: " + status["Seccomp"].strip()
""")
    assert report.outcomes == ("pass",), report.problem


def test_no_socket_but_a_unix_one_not_vsock():
    """AF_VSOCK reaches the host of a virtual machine whatever the network namespace; no family
    but AF_UNIX can be had, by socket() or socketpair()."""
    report = attempt("""
import errno, socket
made = []
for family, kind in ((40, socket.SOCK_STREAM), (socket.AF_INET, socket.SOCK_STREAM), (socket.AF_INET6, socket.SOCK_DGRAM),
                     (socket.AF_NETLINK, socket.SOCK_RAW), (socket.AF_PACKET, socket.SOCK_RAW), (38, socket.SOCK_SEQPACKET)):
    fd = libc.socket(family, kind, 0)
    if fd >= 0 or ctypes.get_errno() != errno.EPERM:
        made.append((family, fd, ctypes.get_errno()))
pair = (ctypes.c_int * 2)()
if libc.socketpair(40, socket.SOCK_STREAM, 0, pair) == 0 or ctypes.get_errno() != errno.EPERM:
    made.append(("socketpair", 40))
if libc.socketpair(socket.AF_UNIX, socket.SOCK_STREAM, 0, pair) != 0:
    made.append("no unix socketpair, which ordinary code may use")
return "blocked" if not made else str(made)
""")
    assert report.outcomes == ("pass",), report.problem


def test_ptrace_io_uring_bpf_userfaultfd_perf_events_are_refused():
    """Each with EPERM, so that code gets a clean error; ptrace of the box's first process (which
    would stop it) first of all; and System V shared memory, whose segments no per-process limit
    counts."""
    calls = {name: _call(name) for name in ("ptrace", "io_uring_setup", "bpf", "userfaultfd", "perf_event_open",
                                            "process_vm_readv", "keyctl", "add_key", "shmget")}
    report = attempt(f"""
import errno
calls = {calls!r}
params = ctypes.create_string_buffer(256)
attempts = {{"ptrace": (16, 1, 0, 0), "io_uring_setup": (8, params), "bpf": (0, params, 128),
             "userfaultfd": (0,), "perf_event_open": (params, 0, -1, -1, 0),
             "process_vm_readv": (1, params, 1, params, 1, 0), "keyctl": (0, ctypes.c_long(-3), 0),
             "add_key": (b"user", b"x", b"y", 1, ctypes.c_long(-3)), "shmget": (0, 1 << 20, 0o1600)}}
allowed = []
for name, arguments in attempts.items():
    result = libc.syscall(calls[name], *arguments)
    if result >= 0 or ctypes.get_errno() != errno.EPERM:
        allowed.append((name, result, ctypes.get_errno()))
return "blocked" if not allowed else str(allowed)
""")
    assert report.outcomes == ("pass",), report.problem


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the x32 system call table is x86-64's")
def test_another_architectures_system_calls_kill_the_box():
    """The filter is for the machine's own table: a socket() through the x32 table (which the
    filter would otherwise not see by name) ends the box; it never yields a socket."""
    report = attempt("""
fd = libc.syscall(0x40000000 | 41, 40, 1, 0)   # x32's socket(AF_VSOCK, SOCK_STREAM)
return "blocked" if fd < 0 else f"socket {fd}"
""")
    assert report.outcomes in (("error",), ("pass",)), report
    assert report.outcomes == ("pass",) or "killed" in report.problem or "no answer" in report.problem, report


# ------------------------------------------------------------ mounts, command lines, memory


def test_no_writable_mount_takes_more_than_the_scratch_cap():
    """Every mount point of the box (and /tmp, /dev/shm) is written with files of 3 MiB until it
    refuses: none takes more than /scratch's 16 MiB."""
    cap = sandbox.SCRATCH_BYTES
    report = attempt(f"""
mounts = [line.split()[4] for line in open("/proc/self/mountinfo")] + ["/tmp", "/dev/shm", "/sandbox"]
chunk = b"x" * (3 * 1024 * 1024)
taken = {{}}
for mount in sorted(set(mounts)):
    if mount.startswith(("/proc", "/sys")) or not os.path.isdir(mount):
        continue
    written = 0
    for k in range(30):
        path = os.path.join(mount, f"fill-{{k}}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        except OSError:
            break
        try:
            written += os.write(fd, chunk)
        except OSError:
            break
        finally:
            os.close(fd)
    if written:
        taken[mount] = written
for mount in taken:
    for k in range(30):
        try:
            os.unlink(os.path.join(mount, f"fill-{{k}}"))
        except OSError:
            pass
over = {{m: n for m, n in taken.items() if n > {cap}}}
return "blocked" if not over and set(taken) <= {{"/scratch"}} else str(taken)
""", limits=Limits(case_seconds=10.0, startup_seconds=20.0))
    assert report.outcomes == ("pass",), report.problem


def test_no_command_line_in_the_box_shows_a_path_of_the_machine(tmp_path):
    """Not the first process's (bubblewrap's options arrive on a file descriptor) nor the
    child's (the interpreter runs as /sandbox/python)."""
    project = str(Path(__file__).resolve().parents[1])
    report = attempt(f"""
found = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        words = open(f"/proc/{{pid}}/cmdline", "rb").read().split(b"\\0")
    except OSError:
        continue
    for word in words:
        text = word.decode(errors="replace")
        if ("/" in text and not text.startswith(("/sandbox/", "/scratch", "-")) and "://" not in text) \\
                or {project!r} in text or "tom-arena-sandbox" in text or "cgroup" in text:
            found.append((pid, text))
first = open("/proc/1/cmdline", "rb").read().split(b"\\0")
if b"--args" not in first:
    found.append(("1", "bubblewrap's options on its command line"))
return "blocked" if not found else str(found)[:300]
""")
    assert report.outcomes == ("pass",), report.problem


@pytest.mark.skipif(sandbox.whole_box_memory() is None,
                    reason="no memory cgroup can be made here: the address space per process times the "
                           "number of processes bounds the box")
def test_the_whole_box_holds_no_more_memory_than_its_cap():
    """Six processes of 150 MiB each (each under the per-process limit, together 900 MiB) in a box
    capped at 384 MiB. Each says when it holds its memory and keeps it; once every one has said so
    or died, each is asked again: a process the kernel killed on the way (it may take one that had
    already said so) answers with the end of its pipe. No more than two hold their memory at once."""
    report = attempt("""
children = []
for _ in range(6):
    report_read, report_write = os.pipe()
    ask_read, ask_write = os.pipe()
    if libc.fork() == 0:
        os.close(report_read)
        os.close(ask_write)
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write("1000")   # the kernel takes these first, not the process that answers
        block = b"\\x01" * (150 * 1024 * 1024)
        os.write(report_write, b"1")
        os.read(ask_read, 1)
        os.write(report_write, b"2")
        os.read(ask_read, 1)   # holds the block until the box ends
        os._exit(0)
    os.close(report_write)
    os.close(ask_read)
    children.append((report_read, ask_write))
said = [os.read(report, 1) == b"1" for report, ask in children]   # b"" when the process was killed
for report, ask in children:
    try:
        os.write(ask, b"?")
    except OSError:
        pass
held = sum(ok and os.read(report, 1) == b"2" for ok, (report, ask) in zip(said, children))
return "blocked" if held * 150 < 384 else f"{held} processes held 150 MiB each at once"
""", limits=Limits(case_seconds=10.0, startup_seconds=20.0))
    assert report.outcomes == ("pass",), report.problem


# ------------------------------------------------------------ what the box writes back


HOSTILE_LINES = """
hostile = [b"[" * 200000 + b"\\n", b"{\\"id\\": " + b"[" * 200000 + b"\\n", b"\\xff\\xfe\\x80 not utf-8 \\xc3\\x28\\n",
           b'{"load": ' + b'{"a": ' * 100000 + b'\\n', b'{"value": 3}\\n', b'{"id": 1e999999, "value": NaN}\\n',
           b'{"id": "' + b"9" * 5000 + b'", "value": 1' + b"0" * 5000 + b'}\\n']
def flood():
    for fd in range(32):
        for line in hostile:
            try:
                os.write(fd, line)
            except OSError:
                pass
flood()
"""


def test_hostile_lines_from_the_box_never_raise_in_the_parent():
    """Lines nested 200,000 deep (once a RecursionError in the parent), invalid UTF-8, numbers
    past every limit, written to every descriptor at load and in every case: each case of a wrong
    function fails, and ``run_tests`` returns a report."""
    code = UNGUARD + HOSTILE_LINES + """
def add(a, b):
    flood()
    return -1
"""
    cases = [{"args": [1, 2], "expected": 3}, {"args": [3, 4], "expected": 7}]
    report = run_tests(code, "add", cases, FAST)
    assert report.outcomes == ("fail", "fail"), report


def test_forged_verdicts_under_the_right_id_are_still_judged_outside():
    """Code that finds the request's id in the child's frames can answer under it, but only with a
    value of its own: forged there nested past the parser's depth, nested 500 deep, or as a
    load answer that is not text, the parent judges and never raises."""
    code = UNGUARD + """
import json, sys
def _frame_value(name):
    frame = sys._getframe(1)
    while frame is not None:
        if name in frame.f_locals and isinstance(frame.f_locals[name], dict):
            return frame.f_locals[name]
        frame = frame.f_back
    return None
header = _frame_value("header")
deep = "[" * 500 + "]" * 500
answers = sys._getframe(0).f_back.f_locals["answers"].fileno()   # the child's main()
if FORGE_LOAD:
    os.write(answers, (f'{{"id": "{header["id"]}", "load": {deep}}}\\n').encode())
def add(a, b):
    case = _frame_value("case")
    os.write(answers, (f'{{"id": "{case["id"]}", "value": ' + "[" * 200000 + "\\n").encode())
    os.write(answers, (f'{{"id": "{case["id"]}", "value": {deep}}}\\n').encode())
    return -1
"""
    cases = [{"args": [1, 2], "expected": 3}, {"args": [2, 2], "expected": [[4]]}]
    report = run_tests("FORGE_LOAD = False\n" + code, "add", cases, FAST)
    assert report.outcomes == ("fail", "fail"), report
    report = run_tests("FORGE_LOAD = True\n" + code, "add", cases, FAST)
    assert report.outcomes == ("error", "error"), report
    assert "load answer that is not text" in report.problem, report


def test_an_endless_line_ends_the_case_as_an_error():
    code = UNGUARD + """
def add(a, b):
    answers = sys._getframe(2).f_locals["answers"].fileno()   # the child's main()
    while True:
        os.write(answers, b"[" * 65536)
"""
    report = run_tests(code, "add", [{"args": [1, 2], "expected": 3}], FAST)
    assert report.outcomes == ("error",), report
    assert f"{sandbox.MAX_ANSWER_BYTES:,}" in report.problem


def test_an_answer_past_every_float_against_a_tolerance_fails_without_raising():
    report = run_tests("def half(x):\n    return 10 ** 4000\n", "half",
                       [{"args": [3], "expected": 1.5, "tolerance": 1e-9}], FAST)
    assert report.outcomes == ("fail",), report


def test_a_model_whose_code_floods_and_forges_changes_no_verdict_of_a_room(tmp_path, monkeypatch):
    """The whole path a model's code takes: room-llm engineers on a loopback endpoint submit code
    that, at load and in every call, writes lines nested 200,000 deep, invalid UTF-8 and answers
    forged under the request's own id to every descriptor. The episode ends with a footer; the
    references still pass all their hidden tests, wrong code still fails them."""
    import json

    from llm_loopback import LoopbackLLM, schema_instance

    from agents.teamroom.llm import make_room_llm
    from sim.events import ErrorEvent
    from sim.recording import RecordingWriter
    from sim.registry import load_scenario
    from sim.session import Session
    from sim.teamroom.world import ProgrammingRoom

    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
    for var in ("OPENAI_BASE_URL", "TOM_ARENA_LLM_BASE_URL", "TOM_ARENA_LLM_CONFIG", "TOM_ARENA_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    forge = HOSTILE_LINES + """
import sys as _sys
def _forge():
    frame = _sys._getframe(1)
    while frame is not None:
        case = frame.f_locals.get("case")
        if isinstance(case, dict) and "id" in case:
            for fd in range(3, 32):
                try:
                    os.write(fd, ('{"id": "%s", "value": ' % case["id"] + "[" * 200000 + "\\n").encode())
                except OSError:
                    pass
        frame = frame.f_back
"""

    class Flooding(LoopbackLLM):
        def __init__(self, world, body_of):
            super().__init__()
            self.world, self.body_of = world, body_of

        def answer(self, body):
            fmt = body.get("response_format") or {}
            schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
            value = schema_instance(schema, lambda options, path: options[0])
            prompt = body["messages"][-1]["content"]
            for level in [k for k in value if k.startswith("ToM_level")]:
                if "Your current action is to write " in prompt:
                    names = prompt.split("Your current action is to write ", 1)[1].split(". You have", 1)[0].split(", ")
                    code = "import os\n" + forge + "\n\n".join(self.wrapped(n) for n in names)
                    value[level]["action"] = "```python\n" + code + "\n```"
            return json.dumps(value)

        def wrapped(self, name):
            return (self.body_of(self.world.by_name[name]) + f"\n_{name} = {name}\n"
                    f"def {name}(*args, **kwargs):\n    flood()\n    _forge()\n    return _{name}(*args, **kwargs)\n")

    outcomes = {}
    for label, body_of in (("references", lambda f: f["reference"]),
                           ("wrong", lambda f: f"def {f['name']}(*args):\n    return None\n")):
        world, _ = load_scenario("number-tools")
        spec = world.spec()
        spec["rounds"] = 1
        world = ProgrammingRoom(spec)
        with Flooding(world, body_of) as server:
            seats = {a: make_room_llm(k=0, base_url=server.base_url, model="loopback") for a in world.agents}
            session = Session(world, seats, seed=0, scenario=world.name)
            path = tmp_path / f"{label}.jsonl"
            RecordingWriter.attach(session, path)
            session.run()
        assert json.loads(path.read_text().splitlines()[-1]).get("record") == "footer", label
        assert not [e for e in session.events if isinstance(e, ErrorEvent)], label
        outcomes[label] = world.outcome(session.state)
    assert outcomes["references"]["submissions"] == 1 and outcomes["references"]["tests_passed"] == 1.0
    assert outcomes["wrong"]["submissions"] == 1 and outcomes["wrong"]["tests_passed"] == 0.0


def test_where_no_cgroup_can_be_made_the_box_still_runs_under_its_filter(tmp_path, monkeypatch):
    """As for a desktop user without a delegated cgroup: bubblewrap is started directly (no shell
    to join cgroups), the filter and the per-process limits hold."""
    monkeypatch.setattr(sandbox, "CGROUP_ROOT", tmp_path / "no-cgroups")
    assert sandbox._cgroup_parents() == {}
    report = attempt("""
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
first = open("/proc/1/cmdline", "rb").read().split(b"\\0")
if status["Seccomp"].strip() != "2" or first[:2] != [b"bwrap", b"--args"]:
    return f"Seccomp {status['Seccomp'].strip()}, first process {first[:3]}"
return "blocked"
""")
    assert report.outcomes == ("pass",), report.problem
