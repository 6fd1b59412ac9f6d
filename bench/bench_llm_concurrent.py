"""Episodes per second of a sweep with an LLM condition: model calls one at a time against
several at once (``--concurrent``), in the same run.

    .venv/bin/python -m bench.bench_llm_concurrent [--latency 0.2] [--seeds 6] [--concurrent 1 2 4 8]
    .venv/bin/python -m bench.bench_llm_concurrent --embedded [--slots 2] [--seeds 4] [--concurrent 1 2 4]

Loopback mode (the default): the endpoint is a real OpenAI-compatible HTTP server on loopback
(``tests/llm_loopback.py``) that answers every request after ``--latency`` seconds and serves
many requests at once, as a remote API or a server with several parallel slots does; the answers
are schema-valid choices, not a model's. Defaults: 6 seeds, ``--concurrent 1 2 4 8``.

``--embedded`` mode: the endpoint is the embedded model (Gemma 3 270M on llama.cpp) started with
``--slots S`` server processes (``embedded.slots``, default 2), each with its share of the
threads (all cores but one split across the slots, at least one each, unless ``--threads``), so
S requests are answered at once; the answers are the model's. Defaults: 4 seeds, 8 ticks,
``--concurrent 1 S 2S`` (1 is the sequential baseline: one request at a time, to the first slot).

The sweep, in both modes: protom-17-bobs-door, alice an LLM agent (one call per decision), bob a
planner, ``--seeds`` seeds (n = episodes per run), ``--ticks`` ticks (12; ``--embedded``: 8), one worker process
(``--jobs 1``), no response cache (every call reaches the endpoint); one warm-up episode first
(imports, the first calls, and in ``--embedded`` mode the start of every slot), not timed. Each
run must write the same per-episode file as the first one (checked; a difference is an error).

Reported per ``--concurrent``: seconds, episodes per second and requests per second, and the
ratio against the first ``--concurrent`` value (the baseline), with the load average (1 min)
after each run; ``--embedded`` prints the load average before the first run too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from experiments.design import load_design  # noqa: E402
from experiments.runner import RESULTS, run_sweep  # noqa: E402
from tests.llm_loopback import LoopbackLLM  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedded", action="store_true", help="the embedded model with --slots server processes")
    parser.add_argument("--slots", type=int, default=2, help="--embedded: embedded.slots")
    parser.add_argument("--threads", type=int, default=None, help="--embedded: embedded.threads (of each slot)")
    parser.add_argument("--latency", type=float, default=0.2, help="loopback: seconds the endpoint takes per answer")
    parser.add_argument("--seeds", type=int, default=None, help="episodes per run (6; --embedded: 4)")
    parser.add_argument("--ticks", type=int, default=None, help="ticks per episode (12; --embedded: 8)")
    parser.add_argument("--concurrent", type=int, nargs="+", default=None,
                        help="episodes at once per run (1 2 4 8; --embedded: 1 S 2S)")
    args = parser.parse_args(argv)
    seeds = args.seeds or (4 if args.embedded else 6)
    ticks = args.ticks or (8 if args.embedded else 12)
    concurrents = args.concurrent or ([1, args.slots, 2 * args.slots] if args.embedded else [1, 2, 4, 8])
    os.environ["TOM_ARENA_CONFIG_DIR"] = tempfile.mkdtemp(prefix="bench-llm-config-")
    rows, reference = [], None
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        if args.embedded:
            from agents.llm.server import embedded_missing, shared_pool, slot_threads, stop_shared_servers

            if embedded_missing():
                print(f"error: {embedded_missing()}", file=sys.stderr)
                return 2
            for var in ("OPENAI_BASE_URL", "TOM_ARENA_LLM_BASE_URL", "TOM_ARENA_LLM_CONFIG", "TOM_ARENA_LLM_MODEL"):
                os.environ.pop(var, None)
            os.environ["TOM_ARENA_LLM_SLOTS"] = str(args.slots)
            os.environ["TOM_ARENA_LLM_TIMEOUT"] = "600"  # a busy 2-core machine: answers, not time-outs
            if args.threads:
                os.environ["TOM_ARENA_LLM_THREADS"] = str(args.threads)
            stack.callback(stop_shared_servers)
            spec = "llm"
            server = None
        else:
            server = stack.enter_context(LoopbackLLM("timeout", delay=args.latency))
            spec = f"llm:base_url={server.base_url},timeout=60"
        path = tmp / "llm-concurrent.json"
        path.write_text(json.dumps({
            "experiment": "llm-concurrent", "scenarios": ["protom-17-bobs-door"],
            "seeds": {"count": seeds, "first": 0}, "max_ticks": ticks, "llm_cache": False,
            "agents": [spec, "planner"], "conditions": [{"name": "llm"}],
            "metrics": [{"name": "ticks", "source": "metrics.ticks"},
                        {"name": "llm_calls", "source": "metrics.llm_calls", "test": False}]}))
        design = load_design(path)
        started = time.perf_counter()
        run_sweep(design, tmp / "warm-up", jobs=1, quiet=True, limit=1)  # imports, first calls, slots: not timed
        warm_up = time.perf_counter() - started
        load_before = os.getloadavg()[0]
        if args.embedded:
            from agents.llm.config import load_settings

            pool = shared_pool(load_settings().embedded)
            assert len(pool) == args.slots and pool.running, "the warm-up did not start the slots"
        for concurrent in concurrents:
            out = tmp / f"out{concurrent}"
            start = time.perf_counter()
            result = run_sweep(design, out, jobs=1, quiet=True, concurrent=concurrent)
            seconds = time.perf_counter() - start
            data = (out / RESULTS).read_bytes()
            if reference is None:
                reference = data
            elif data != reference:
                print(f"error: --concurrent {concurrent} wrote a different episode file", file=sys.stderr)
                return 1
            requests = sum(r["metrics"]["llm_calls"] for r in result.records)
            rows.append({"concurrent": concurrent, "episodes": seeds, "requests": requests,
                         "seconds": seconds, "load_average": os.getloadavg()[0]})
    base = rows[0]["seconds"]
    if args.embedded:
        from agents.llm.config import EmbeddedSettings

        threads = slot_threads(EmbeddedSettings(slots=args.slots, threads=args.threads))
        print(f"LLM agent sweep, embedded model with {args.slots} slots of {threads} llama.cpp thread(s) each "
              f"({os.cpu_count()} cores), {seeds} episodes of {ticks} ticks, one worker process; warm-up "
              f"{warm_up:.0f} s, load average {load_before:.1f} before the first run; identical episode files:")
    else:
        print(f"LLM agent sweep, endpoint latency {args.latency * 1000:.0f} ms, {seeds} episodes of {ticks} ticks, "
              "one worker process; identical episode files:")
    for r in rows:
        print(f"  --concurrent {r['concurrent']:<3} {r['seconds']:6.2f} s  {r['episodes'] / r['seconds']:5.3f} "
              f"episodes/s  {r['requests'] / r['seconds']:5.2f} requests/s  ratio {base / r['seconds']:4.2f}x  "
              f"({r['requests']} requests, load average {r['load_average']:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
