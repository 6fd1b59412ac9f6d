"""Decision latency and tokens per second of the embedded model (Gemma 3 270M, llama.cpp) on
this machine.

For each ToM level k, an LLM agent plays alice in a short two-rooms episode (bob is the
planner), so every decision has a new state in its prompt, as in play. Each decision is
one schema-constrained call (json_object with the k-level schema): "k=K decisions" are
these calls as played. Then every recorded request is sent again twice, back to back in
alternating order: as it was ("paired: schema") and as a raw completion of the same
prompt and the same number of tokens without any schema ("paired: raw", the baseline, in
the same process and on the same server). The tok/s ratio shows what constrained
decoding costs.

    python bench/bench_llm.py [--decisions N] [--k 0,1,2] [--threads T] [--json FILE]

Figures vary with the load of the machine; compare ratios, not seconds, across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.dkg.agents import PlannerAgent  # noqa: E402
from agents.llm.client import LLMClient, OpenAITransport  # noqa: E402
from agents.llm.config import EmbeddedSettings, LLMSettings  # noqa: E402
from agents.llm.agent import LLMAgent  # noqa: E402
from agents.llm.server import EmbeddedServer, embedded_missing  # noqa: E402
from sim.events import LLMCallEvent  # noqa: E402
from sim.registry import load_scenario  # noqa: E402
from sim.session import Session  # noqa: E402


def summarize(calls: list[LLMCallEvent]) -> dict[str, float]:
    """Medians resist the load spikes of a shared machine better than means."""
    seconds = [c.seconds for c in calls]
    rates = [c.completion_tokens / c.seconds for c in calls if c.seconds > 0]
    return {"calls": len(calls), "mean_s": statistics.mean(seconds), "median_s": statistics.median(seconds),
            "max_s": max(seconds), "prompt_tokens": statistics.mean(c.prompt_tokens for c in calls),
            "completion_tokens": statistics.mean(c.completion_tokens for c in calls),
            "tokens_per_s": statistics.median(rates)}


def timed_call(transport: OpenAITransport, body: dict[str, Any], label: str) -> LLMCallEvent:
    started = time.perf_counter()
    reply = transport.send(body, agent="bench", module=label)
    return LLMCallEvent(tick=0, agent="bench", module=label, request={"body": body}, response=reply.to_dict(),
                        prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                        seconds=time.perf_counter() - started)


def paired(transport: OpenAITransport, calls: list[LLMCallEvent]) -> tuple[list[LLMCallEvent], list[LLMCallEvent]]:
    """Each recorded request again, with its schema and as a raw completion of the same length,
    back to back in alternating order, so that changes in machine load hit both alike."""
    constrained, raw = [], []
    for i, call in enumerate(calls):
        body = dict(call.request["body"])
        plain = {k: v for k, v in body.items() if k != "response_format"}
        plain["max_tokens"] = max(1, call.completion_tokens)
        order = [("constrained", body), ("raw", plain)]
        for label, b in order if i % 2 == 0 else order[::-1]:
            (constrained if label == "constrained" else raw).append(timed_call(transport, b, label))
    return constrained, raw


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decisions", type=int, default=3, help="decisions per ToM level (default 3)")
    parser.add_argument("--k", default="0,1,2", help="ToM levels to measure (default 0,1,2)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: all cores)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if embedded_missing():
        print(f"error: {embedded_missing()}", file=sys.stderr)
        return 2
    levels = [int(k) for k in args.k.split(",")]

    server = EmbeddedServer(EmbeddedSettings(threads=args.threads))
    started = time.perf_counter()
    server.start()
    startup = time.perf_counter() - started
    settings = LLMSettings(timeout=900.0)
    transport = OpenAITransport(server.base_url, None, settings.timeout)
    results: dict[str, dict[str, float]] = {}
    try:
        warm = {"model": settings.model_name, "messages": [{"role": "user", "content": "Say hello."}],
                "max_tokens": 8}
        timed_call(transport, warm, "warm-up")  # the first call pays for loading the weights
        world, name = load_scenario("two-rooms")
        recorded: list[LLMCallEvent] = []
        for k in levels:
            agent = LLMAgent(k=k, client=LLMClient(settings, transport=transport))
            session = Session(world, {"alice": agent, "bob": PlannerAgent()}, seed=0, scenario=name,
                              max_ticks=2 * args.decisions)
            session.run()
            calls = [e for e in session.events if isinstance(e, LLMCallEvent) and e.error is None]
            results[f"k={k} decisions"] = summarize(calls)
            recorded += calls
        constrained, raw = paired(transport, recorded)
        results["paired: schema"] = summarize(constrained)
        results["paired: raw"] = summarize(raw)
        ratios = [(c.completion_tokens / c.seconds) / (r.completion_tokens / r.seconds)
                  for c, r in zip(constrained, raw) if c.seconds > 0 and r.seconds > 0 and r.completion_tokens]
        results["paired: schema"]["paired_ratio"] = statistics.median(ratios)
    finally:
        server.stop()

    base = results["paired: raw"]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"embedded model: {server.alias}, llama.cpp threads {args.threads or 'all cores'}, "
          f"server start {startup:.1f} s, load average {load:.1f} on {os.cpu_count()} cores")
    header = (f"{'':18} {'calls':>5} {'mean s':>7} {'median s':>8} {'max s':>6} {'prompt tok':>10} "
              f"{'compl. tok':>10} {'tok/s':>6} {'vs raw':>6}")
    print(header)
    print("-" * len(header))
    for label, r in results.items():
        ratio = r.get("paired_ratio", r["tokens_per_s"] / base["tokens_per_s"])
        print(f"{label:18} {r['calls']:>5} {r['mean_s']:>7.2f} {r['median_s']:>8.2f} {r['max_s']:>6.2f} "
              f"{r['prompt_tokens']:>10.0f} {r['completion_tokens']:>10.1f} {r['tokens_per_s']:>6.2f} {ratio:>6.2f}")
    print("tok/s: median of completion tokens per second of each call (prompt processing included); "
          "vs raw: for 'paired: schema' the median ratio of each pair, else against the median of 'paired: raw'")
    if args.json:
        Path(args.json).write_text(json.dumps({"startup_s": startup, "threads": args.threads, "results": results},
                                              indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
