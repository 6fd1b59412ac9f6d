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
                  and name not in ("child.py", "solution.py"))]
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
