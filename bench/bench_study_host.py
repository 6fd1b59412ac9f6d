"""The study host against the attacks of its threat model (docs/study.md), measured on loopback.

    .venv/bin/python bench/bench_study_host.py [--tree DIR] [--old]

Starts ``main.py study host`` of a small two-condition study headless (its own process, no display,
on 127.0.0.1) from the source tree ``--tree`` (default this checkout) and attacks it from raw
sockets (``tests/ws_raw.py``) bound to other loopback addresses:

1. a ``hello`` whose code holds a non-ASCII character: the reply, and whether the host still runs;
2. one 300 KiB text frame, its sender closing 10 s later: the longest and median time other
   connections wait for an answer (a wrong code's refusal) over the 20 s, and the host's memory;
3. a frame header announcing 300 KiB with 1 KiB sent: how soon the connection is closed;
4. 12 idle connections from the participants' own address, each opened again the moment it is
   closed: joins with a valid code that get in within 25 s (at most 44), with the code in the
   handshake's URL (as the participant's app joins) and with a plain ``hello``;
5. wrong codes from one address for 5 s: how many were read, how many refused unread;
6. 200 connections that send half an HTTP request and never finish the handshake: joins that get in.

``--old`` measures a tree from before the threat model (commit 7ba39ec): six-digit codes, no
``--listen`` (export that commit and make its host listen on 127.0.0.1 before measuring it, as
every listening program here must). Wall times depend on the machine's load; the report gives the
load average.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ws_raw import TEXT, IdleCrowd, RawSocket, frame, text_frame  # noqa: E402

STUDY = {"study": "bench-study", "title": "A small study",
         "scenarios": ["protom/kitchen-15-walled-onion", "protom/kitchen-10-onion-for-bob"],
         "conditions": [{"name": "random", "title": "random", "mechanisms": ["random:probability=1.0"],
                         "codename": "Assistant R"}, {"name": "none", "title": "none", "mechanisms": []}],
         "baseline": "none", "trials_per_condition": 1, "order": {"draw": "random", "seed": 3}, "max_ticks": 50,
         "consent": {"title": "Consent", "text": "Do you agree?"}, "instructions": [{"title": "Keys", "text": "."}],
         "questionnaire": {"after": "facilitated", "scale": {"points": 7, "low": "no", "high": "yes"},
                           "items": [{"id": "helpful", "text": "It helped."}]},
         "reveal": {"other_goal": True, "completion": True, "feedback_history": True}}


class Host:
    def __init__(self, tree: Path, old: bool, folder: Path) -> None:
        self.codes = ("111111", "222222") if old else ("1111-1111", "2222-2222")
        self.wrong = "999999" if old else "ZZZZ-ZZZZ"
        (folder / "study.json").write_text(json.dumps(STUDY))
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
        env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONUNBUFFERED="1")
        args = [sys.executable, "main.py", "study", "host", str(folder / "study.json"), "--port", str(self.port),
                "--out", str(folder / "out"), "--codes", *self.codes] + ([] if old else ["--listen", "127.0.0.1"])
        self.log = open(folder / "host.out", "w")  # noqa: SIM115
        self.proc = subprocess.Popen(args, cwd=tree, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.sources = 0
        deadline = time.monotonic() + 120
        while True:
            try:
                self.refusal(5)
                break
            except (OSError, ConnectionError, TimeoutError, AssertionError):
                if time.monotonic() > deadline or not self.alive():
                    raise SystemExit(f"the host did not start: {(folder / 'host.out').read_text()[-2000:]}") from None
                time.sleep(0.3)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss_mib(self) -> int:
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
        return 0

    def source(self) -> str:
        """A loopback address not used before: one more stranger."""
        self.sources += 1
        return f"127.0.{10 + self.sources // 250}.{self.sources % 250 + 1}"

    def refusal(self, timeout: float = 300.0) -> float:
        """Seconds until a stranger's wrong code is refused."""
        start = time.monotonic()
        sock = RawSocket(self.port, self.source(), timeout=timeout)
        sock.hello(self.wrong)
        reply = sock.read(timeout)
        sock.close()
        assert reply.refusals(), reply
        return time.monotonic() - start

    def join(self, code: str, source: str, url: bool) -> bool:
        try:
            sock = RawSocket(self.port, source, timeout=10, path=f"/?code={code}" if url else "/")
            sock.hello(code)
            reply = sock.read(10, until=lambda r: "welcome" in r.kinds() or r.refusals())
            sock.close()
            return "welcome" in reply.kinds()
        except (OSError, ConnectionError, TimeoutError):
            return False

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(30)
        self.log.close()


def non_ascii(host: Host) -> str:
    sock = RawSocket(host.port, host.source())
    sock.hello(host.codes[0][:-1] + "\u00e9")
    reply = sock.read(5)
    sock.close()
    time.sleep(1)
    return (f"reply {reply.refusals()[:1] or 'none'}; host " + ("still runs" if host.alive() else
                                                                 f"ended with {host.proc.returncode}"))


def oversize(host: Host) -> str:
    before = host.rss_mib()
    big = RawSocket(host.port, host.source())
    payload = '{"v":1,"type":"hello","code":"' + "x" * (300 * 1024) + '"}'
    threading.Thread(target=lambda: big.send(text_frame(payload)), daemon=True).start()
    waits = []
    for closing in (False, True):
        if closing:
            big.read(1)
            big.close()
        until = time.monotonic() + 10
        while time.monotonic() < until:
            waits.append(host.refusal())
    waits.sort()
    header = RawSocket(host.port, host.source())
    header.send(frame(TEXT, b"x" * 1024, length=300 * 1024))
    start = time.monotonic()
    closed = header.read(30).closed
    header.close()
    return (f"longest wait {waits[-1] * 1000:.0f} ms, median {waits[len(waits) // 2] * 1000:.1f} ms over "
            f"{len(waits)} refusals; memory {before} -> {host.rss_mib()} MiB | header alone: "
            + (f"closed after {time.monotonic() - start:.2f} s" if closed else "not closed within 30 s"))


def idle(host: Host, url: bool) -> str:
    crowd = IdleCrowd(host.port)
    time.sleep(2)
    joined = tried = 0
    end = time.monotonic() + 25
    while time.monotonic() < end and tried < 44:
        joined += host.join(host.codes[tried % 2], "127.0.0.1", url)
        tried += 1
    crowd.stop()
    return f"{joined} of {tried} joins got in ({'code in the URL' if url else 'hello'}); idle connections opened {crowd.opened}"


def guesses(host: Host) -> str:
    read = unread = 0
    end = time.monotonic() + 5
    n = 0
    while time.monotonic() < end:
        sock = RawSocket(host.port, "127.0.9.1", timeout=10)
        sock.hello(f"{n:06d}" if host.wrong == "999999" else f"ZZZZ-{n % 10000:04d}")
        reply = sock.read(10)
        sock.close()
        n += 1
        if reply.refusals() and "too many" in reply.refusals()[-1]:
            unread += 1
        else:
            read += 1
    return f"{n} codes in 5 s ({n / 5:.0f} a second): {read} read, {unread} refused unread"


def half_open(host: Host) -> str:
    stop, opened = threading.Event(), [0]

    def hold() -> None:
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", host.port), timeout=10,
                                              source_address=("127.0.8.1", 0)) as sock:
                    sock.sendall(b"GET / HTTP/1.1\r\n")
                    opened[0] += 1
                    try:
                        sock.recv(10)
                    except OSError:
                        pass
            except OSError:
                time.sleep(0.01)

    threads = [threading.Thread(target=hold, daemon=True) for _ in range(200)]
    for t in threads:
        t.start()
    time.sleep(3)
    waits, joined = [], 0
    for n in range(20):
        start = time.monotonic()
        joined += host.join(host.codes[n % 2], "127.0.7.1", url=False)
        waits.append(time.monotonic() - start)
    stop.set()
    return f"{joined} of 20 joins got in, longest {max(waits):.2f} s (half-open connections opened {opened[0]})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default=str(ROOT), help="the source tree whose host to measure (default this one)")
    parser.add_argument("--old", action="store_true", help="the tree is from before the threat model (see above)")
    args = parser.parse_args()
    tree = Path(args.tree).resolve()
    rows: list[tuple[str, Any]] = []
    for name, attack in [("non-ASCII code", non_ascii), ("300 KiB frame", oversize),
                         ("12 idle, code in the URL", lambda h: idle(h, True)),
                         ("12 idle, hello", lambda h: idle(h, False)),
                         ("wrong codes from one address", guesses), ("200 unfinished handshakes", half_open)]:
        if args.old and name == "12 idle, code in the URL":
            continue
        with tempfile.TemporaryDirectory(prefix="bench-study-host-") as folder:
            host = Host(tree, args.old, Path(folder))  # a fresh host for each attack
            try:
                rows.append((name, attack(host)))
            finally:
                host.stop()
        print(f"{name}: {rows[-1][1]}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores; tree {tree}")


if __name__ == "__main__":
    main()
