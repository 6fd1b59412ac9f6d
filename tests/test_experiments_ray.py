"""The Ray backend on a real local cluster (a head and one worker node on 127.0.0.1, started
as processes and stopped at the end): both nodes run episodes, and the per-episode file is
byte for byte the local backend's."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from experiments.backends import RAY_LOCAL_NOTE, ray_available
from experiments.runner import RESULTS
from main import main

pytestmark = pytest.mark.slow
if ray_available():
    pytest.skip(f"the Ray tests need the optional extra: {ray_available()}", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
RAY = Path(sys.executable).with_name("ray")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _processes_under(folder: str) -> list[int]:
    """Ray daemons of this cluster: their command lines name its temporary folder."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if folder in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return [p for p in pids if p != os.getpid()]


@pytest.fixture(scope="module")
def cluster():
    """``ray start --head`` and ``ray start --address`` (one CPU each), blocking in their own
    sessions so that they and their daemons are stopped by process id at the end. Each node has
    its own temporary folder, as separate machines would: sharing one, both nodes unpack the
    shipped working tree into the same folder, and a worker that starts while the other node
    unpacks it finds no tree there and imports the installed copy of the program instead."""
    temp = tempfile.mkdtemp(prefix="tomray", dir="/tmp")  # short: Ray's socket paths must fit
    temp_node = tempfile.mkdtemp(prefix="tomray", dir="/tmp")
    port = free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
    common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--disable-usage-stats", "--block"]
    procs = [subprocess.Popen([str(RAY), "start", "--head", "--port", str(port), "--include-dashboard", "false",
                               "--temp-dir", temp, *common], env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        else:
            pytest.fail("the Ray head did not start within 120 s")
        procs.append(subprocess.Popen([str(RAY), "start", "--address", address, "--temp-dir", temp_node, *common], env=env,
                                      start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        yield address, env
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(procs):
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        for pid in _processes_under(temp) + _processes_under(temp_node):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_ray_cluster_and_local_backend_write_identical_episode_files(tmp_path, cluster):
    address, env = cluster
    design = json.loads((ROOT / "scenarios" / "experiments" / "protom-dkg-paper.json").read_text())
    design.update({"experiment": "ray-check", "scenarios": ["protom-0*", "protom-1[5-7]*"],
                   "seeds": {"count": 2, "first": 42},
                   "agents": ["boltzmann:temperature=0.3,compliance=1.0,show_plan=false"]})
    path = tmp_path / "ray-check.json"
    path.write_text(json.dumps(design))
    local = tmp_path / "local"
    assert main(["experiment", str(path), "--out", str(local), "--jobs", "2", "--quiet"]) == 0
    ray_out = tmp_path / "ray"
    # wait for the worker node: 2 CPUs in the cluster
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = subprocess.run([str(RAY), "status", "--address", address], env=env, capture_output=True, text=True)
        if "0.0/2.0 CPU" in status.stdout:
            break
        time.sleep(1)
    else:
        pytest.fail(f"the worker node did not join: {status.stdout[-500:]} {status.stderr[-500:]}")
    run = subprocess.run([sys.executable, "main.py", "experiment", str(path), "--out", str(ray_out), "--backend", "ray",
                          "--address", address], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "ray on 127.0.0.1" in run.stdout and "2 tasks at once" in run.stdout
    # one worker on each node (one CPU each), and both ran episodes
    per_node = next(line for line in run.stdout.splitlines() if line.startswith("episodes per node: "))
    counts = [int(part.split()[-1]) for part in per_node.removeprefix("episodes per node: ").split(", ")]
    assert len(counts) == 2 and all(c > 0 for c in counts) and sum(counts) == 12 * 4 * 2, per_node
    lines = (ray_out / RESULTS).read_text().splitlines()
    assert len(lines) == 1 + 12 * 4 * 2
    assert (ray_out / RESULTS).read_bytes() == (local / RESULTS).read_bytes()


def test_an_unreachable_cluster_is_one_error_line(tmp_path, capsys):
    port = free_port()
    code = main(["experiment", "protom-dkg-paper", "--out", str(tmp_path), "--backend", "ray",
                 "--address", f"127.0.0.1:{port}", "--quiet"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"cannot start or reach the Ray cluster at 127.0.0.1:{port}" in err
    assert RAY_LOCAL_NOTE not in err  # an existing cluster: nothing to start


def test_a_new_local_cluster_is_announced_on_stderr_before_it_starts(tmp_path, capsys, monkeypatch):
    """Without --address the runner starts a cluster of its own, which costs as long as a small
    sweep's episodes on one machine: it says so, in one line on stderr, before starting it."""
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    design = json.loads((ROOT / "scenarios" / "experiments" / "protom-dkg-paper.json").read_text())
    design.update({"experiment": "ray-note", "scenarios": ["protom-01-*"], "seeds": {"count": 1, "first": 42}})
    path = tmp_path / "ray-note.json"
    path.write_text(json.dumps(design))
    code = main(["experiment", str(path), "--out", str(tmp_path / "out"), "--backend", "ray", "--jobs", "1",
                 "--quiet"])
    assert code == 0
    err = capsys.readouterr().err
    assert err.count(RAY_LOCAL_NOTE) == 1 and err.splitlines()[0] == RAY_LOCAL_NOTE, err[-2000:]
    assert "ray start --head" in RAY_LOCAL_NOTE and "--address" in RAY_LOCAL_NOTE
