"""Episodes per second of a sweep with an LLM condition: model calls one at a time against
several at once (``--concurrent``), in the same run.

    .venv/bin/python -m bench.bench_llm_concurrent [--latency 0.2] [--seeds 6] [--concurrent 1 2 4 8]

The endpoint is a real OpenAI-compatible HTTP server on loopback (``tests/llm_loopback.py``)
that answers every request after ``--latency`` seconds and serves many requests at once, as a
remote API or a server with several parallel slots does; the answers are schema-valid
choices, not a model's. The sweep: protom-17-bobs-door, alice an LLM agent (one call per
decision), bob a planner, ``--seeds`` seeds, 12 ticks (one warm-up episode first, not timed), one worker process (``--jobs 1``), no response
cache (every call reaches the endpoint). Each run must write the same per-episode file as the
sequential one (checked).

Reported per ``--concurrent``: seconds, episodes per second and requests per second, and the
ratio against ``--concurrent 1`` (the baseline), with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from experiments.design import load_design  # noqa: E402
from experiments.runner import RESULTS, run_sweep  # noqa: E402
from tests.llm_loopback import LoopbackLLM  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the endpoint takes per answer")
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--concurrent", type=int, nargs="+", default=[1, 2, 4, 8])
    args = parser.parse_args(argv)
    os.environ["TOM_ARENA_CONFIG_DIR"] = tempfile.mkdtemp(prefix="bench-llm-config-")
    rows, reference = [], None
    with LoopbackLLM("timeout", delay=args.latency) as server, tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "llm-concurrent.json"
        path.write_text(json.dumps({
            "experiment": "llm-concurrent", "scenarios": ["protom-17-bobs-door"],
            "seeds": {"count": args.seeds, "first": 0}, "max_ticks": 12, "llm_cache": False,
            "agents": [f"llm:base_url={server.base_url},timeout=60", "planner"],
            "conditions": [{"name": "llm"}],
            "metrics": [{"name": "ticks", "source": "metrics.ticks"}]}))
        design = load_design(path)
        run_sweep(design, Path(tmp) / "warm-up", jobs=1, quiet=True, limit=1)  # imports and first calls, not timed
        for concurrent in args.concurrent:
            out = Path(tmp) / f"out{concurrent}"
            before = len(server.requests)
            start = time.perf_counter()
            run_sweep(design, out, jobs=1, quiet=True, concurrent=concurrent)
            seconds = time.perf_counter() - start
            data = (out / RESULTS).read_bytes()
            if reference is None:
                reference = data
            elif data != reference:
                print(f"error: --concurrent {concurrent} wrote a different episode file", file=sys.stderr)
                return 1
            requests = len(server.requests) - before
            rows.append({"concurrent": concurrent, "episodes": args.seeds, "requests": requests,
                         "seconds": seconds, "load_average": os.getloadavg()[0]})
    base = rows[0]["seconds"]
    print(f"LLM agent sweep, endpoint latency {args.latency * 1000:.0f} ms, {args.seeds} episodes, "
          "one worker process; identical episode files:")
    for r in rows:
        print(f"  --concurrent {r['concurrent']:<3} {r['seconds']:6.2f} s  {r['episodes'] / r['seconds']:5.2f} "
              f"episodes/s  {r['requests'] / r['seconds']:5.1f} requests/s  ratio {base / r['seconds']:4.2f}x  "
              f"({r['requests']} requests, load average {r['load_average']:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
