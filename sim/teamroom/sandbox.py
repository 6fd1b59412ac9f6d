"""Running a submission's tests outside the app's process.

``run_tests(code, function, cases, limits)`` writes nothing but a temporary folder: it starts
``python -I -S sandbox_child.py`` there (isolated mode, no site packages, a bare environment),
hands it the code and the test *inputs* on stdin, and compares the values that come back with
the expected ones here, so the code never sees what is expected. The child leaves the network
(its own network namespace), limits itself with ``resource`` (CPU seconds, address space, file
size, open files), removes process creation from ``os`` and runs each case under an alarm; the
parent kills it after a wall-clock limit. See ``sandbox_child.py``.

These limits keep a wrong or hostile-by-accident submission (an endless loop, a memory blow-up,
a fork, a network call, a crash of the interpreter) from harming the app or the machine. They
are not a security boundary against code written to escape: run untrusted models' code on a
machine you can afford to lose, as with any code runner.

A test case is ``{"args": [...], "kwargs": {...}, "expected": value}`` (JSON values; tuples
come back as lists) with an optional ``"tolerance"`` for numbers, or ``{"args": [...],
"raises": "ValueError"}``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHILD = Path(__file__).with_name("sandbox_child.py")
MAX_CODE_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class Limits:
    """What one run of a submission may use."""

    case_seconds: float = 2.0
    memory_mb: int = 256
    #: seconds for starting the interpreter, on top of the cases' time
    startup_seconds: float = 10.0

    def wall_seconds(self, cases: int) -> float:
        return self.startup_seconds + self.case_seconds * (cases + 1)

    def cpu_seconds(self, cases: int) -> int:
        return int(math.ceil(self.case_seconds * (cases + 1))) + 1


@dataclass(frozen=True, slots=True)
class TestReport:
    """The verdict on one submission for one function: one outcome per hidden case
    (``pass``, ``fail``, ``error``, ``timeout``), and the first problem in words without the
    expected values (``case 3: wrong result``, ``case 1: ZeroDivisionError: ...``)."""

    function: str
    outcomes: tuple[str, ...]
    problem: str = ""
    network: str = ""

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
        return abs(value - expected) <= tolerance if tolerance is not None else value == expected
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


def run_tests(code: str, function: str, cases: Sequence[Mapping[str, Any]], limits: Limits = Limits()) -> TestReport:
    """Run ``function`` of ``code`` on every case in a fresh sandboxed interpreter."""
    n = len(cases)
    if len(code) > MAX_CODE_CHARS:
        return TestReport(function, ("error",) * n, f"the code has {len(code):,} characters; at most "
                                                    f"{MAX_CODE_CHARS:,} are run")
    request = {"code": code, "function": function,
               "cases": [{"args": list(c.get("args", [])), "kwargs": dict(c.get("kwargs", {}))} for c in cases],
               "case_seconds": limits.case_seconds, "cpu_seconds": limits.cpu_seconds(n),
               "memory_mb": limits.memory_mb}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory(prefix="tom-arena-sandbox-") as folder:
        out_path, err_path = Path(folder) / "out.jsonl", Path(folder) / "err.txt"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                subprocess.run([sys.executable, "-I", "-S", str(CHILD)], input=json.dumps(request).encode(),
                               stdout=out, stderr=err, cwd=folder, env=env,
                               timeout=limits.wall_seconds(n), check=False)
            except subprocess.TimeoutExpired:
                return TestReport(function, ("timeout",) * n,
                                  f"the run took longer than {limits.wall_seconds(n):g} s and was stopped")
        lines = out_path.read_bytes()[-200_000:].decode("utf-8", "replace").strip().splitlines()
        try:
            report = json.loads(lines[-1])
        except (IndexError, json.JSONDecodeError):
            tail = err_path.read_bytes()[-400:].decode("utf-8", "replace").strip().splitlines()
            why = tail[-1] if tail else "no report (killed by a resource limit?)"
            return TestReport(function, ("error",) * n, f"the test process failed: {why}")
    if report.get("load"):
        return TestReport(function, ("error",) * n, str(report["load"]), report.get("network", ""))
    results = report.get("results", [])
    outcomes, problem = [], ""
    for k, case in enumerate(cases):
        outcome, why = judge(case, results[k] if k < len(results) else {"error": "no result"})
        outcomes.append(outcome)
        if why and not problem:
            problem = f"case {k + 1}: {why}"
    return TestReport(function, tuple(outcomes), problem, report.get("network", ""))
