"""Latency of k = 0 LLM decisions in Doors, Keys and Gems on the embedded model, with and
without prompt reuse, in the same run.

A fixed set of decisions is taken from one two-rooms episode played by two planners: for each
turn, the acting seat's prompt as the ``llm`` agent at k = 0 writes it (``DKGLLM``: history
inferred from the seat's own observations, state, legal actions, the k = 0 template), with
alice's and bob's turns interleaved as in play. Every condition sends the same prompts in the
same order to its own embedded server, as the client sends them (its request body: json_object
with the k = 0 schema), streamed so that the time to the first answer token (prompt processing)
and the rest (generation) are measured apart. The servers run side by side and each decision goes
to each of them in turn, in a rotating order, so that a change of the machine's load hits every
condition alike. Conditions:

- ``no prompt cache``: the server launched as before (``--logits_all true``, no prompt cache),
  and each prompt starts with a unique line, so no request can reuse an earlier one's prefix
  (the baseline);
- ``reuse old launch``: the same server, the prompts as they are: llama.cpp keeps the evaluated
  prefix of the previous request (the static rules and template) in its slot;
- ``reuse now``: the server as ``agents.llm.server`` launches it now.

Per condition: median and first decision latency (seconds per call, as a decision waits for
it), prompt tokens per second (prompt tokens / time to the first token: with reuse, the
reused prefix is not evaluated again, so the effective rate rises) and generation tokens per
second (answer tokens after the first / time after the first), the prompt and answer tokens,
and the share of answers that are legal (valid JSON for the schema, an action among the legal
ones: the decisions that would not fall back). Ratios are against ``no prompt cache``.

    python bench/bench_llm_latency.py [--decisions N] [--threads T] [--json FILE]

Figures vary with the load of the machine (printed); compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.dkg.agents import PlannerAgent  # noqa: E402
from agents.llm.client import LLMClient, extract_json, validation_problem  # noqa: E402
from agents.llm.config import EmbeddedSettings, LLMSettings  # noqa: E402
from agents.llm.dkg import DKGLLM  # noqa: E402
from agents.llm.server import EmbeddedServer, default_threads, embedded_missing, model_file  # noqa: E402
from agents.llm.tom import final_action, tom_schema  # noqa: E402
from sim.registry import load_scenario  # noqa: E402
from sim.seats import Agent, SeatContext  # noqa: E402
from sim.session import Session  # noqa: E402

K = 0


class Recorder(Agent):
    """A planner seat that keeps each (context, observation, legal actions) it was asked about."""

    kind = "recorder"

    def __init__(self, turns: list[tuple[SeatContext, Any, tuple[Any, ...], Any]]) -> None:
        self.turns = turns
        self.planner = PlannerAgent()

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self.planner.reset(ctx)

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        action = self.planner.act(observation, legal_actions)
        self.turns.append((self.ctx, observation, tuple(legal_actions), action))
        return action


Decisions = list[tuple[list[dict[str, str]], list[str], int, str]]


def decision_set(n: int) -> Decisions:
    """(messages, legal action labels, seed, the planner's action) of the first ``n`` turns of a
    planners' episode."""
    world, name = load_scenario("two-rooms")
    turns: list[tuple[SeatContext, Any, tuple[Any, ...], Any]] = []
    seats = {a: Recorder(turns) for a in world.agents}
    Session(world, seats, seed=0, scenario=name, max_ticks=n).run()
    plays: dict[str, DKGLLM] = {}
    out = []
    for ctx, observation, legal, planned in turns[:n]:
        play = plays.get(ctx.agent_id)
        if play is None:
            play = plays[ctx.agent_id] = DKGLLM(world)
            play.start(ctx, 10)
        play.prepare(observation, legal)
        labels = play.action_labels(observation, legal)
        out.append((play.agent_messages(observation, legal, K), labels, ctx.seed + play.tick(observation), planned))
    return out


class OldLaunch(EmbeddedServer):
    """The server launched as before prompt reuse: logits kept for every prompt token, no cache."""

    def command(self, model: Path, port: int) -> list[str]:
        s = self.settings
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", self.alias,
                "--host", self.host, "--port", str(port), "--n_ctx", str(s.n_ctx),
                "--n_threads", str(s.threads or default_threads()), "--chat_format", s.chat_format]


def streamed(base_url: str, body: dict[str, Any]) -> tuple[str, float, float, int]:
    """(answer, seconds to the first answer token, seconds in all, answer chunks) of one request."""
    data = json.dumps({**body, "stream": True}).encode()
    request = urllib.request.Request(f"{base_url}/chat/completions", data=data,
                                     headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    first: float | None = None
    parts: list[str] = []
    with urllib.request.urlopen(request, timeout=900) as response:
        for raw in response:
            line = raw.decode("utf-8").strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[5:])
            text = (chunk.get("choices") or [{}])[0].get("delta", {}).get("content")
            if text:
                if first is None:
                    first = time.perf_counter() - started
                parts.append(text)
    total = time.perf_counter() - started
    return "".join(parts), first if first is not None else total, total, len(parts)


def ask(server: EmbeddedServer, i: int, decision: tuple[list[dict[str, str]], list[str], int, str],
        count_tokens: Any, nonce: bool) -> dict[str, Any]:
    """One decision's request to ``server``, timed, its answer checked."""
    messages, labels, seed, planned = decision
    if nonce:  # a unique first line: nothing of an earlier prompt can be reused
        messages = [dict(m, content=f"Request {i}: {time.time_ns()}.\n" + m["content"]) for m in messages]
    schema = tom_schema(K, labels)
    client = LLMClient(LLMSettings(timeout=900.0), transport=None)
    body = client.request_body(messages, schema, schema_name=f"tom_level{K}", mode="json_object", seed=seed)
    text, first, total, chunks = streamed(server.base_url, body)
    value: Any = None
    try:
        value = extract_json(text)
        legal = (isinstance(value, dict) and validation_problem(value, schema) is None
                 and final_action(value, K) in labels)
    except (json.JSONDecodeError, KeyError, TypeError):
        legal = False
    return {"seconds": total, "first_token_s": first, "chunks": chunks, "legal": legal,
            "as_planner": legal and final_action(value, K) == planned,
            "prompt_tokens": count_tokens(body["messages"]), "answer_tokens": count_tokens(None, text)}


def run_conditions(conditions: list[tuple[str, EmbeddedServer, bool]], decisions: Decisions,
                   count_tokens: Any) -> list[dict[str, Any]]:
    """Every condition's server runs at once; each decision is sent to each of them in turn, in a
    rotating order, so that a change of the machine's load hits every condition alike."""
    startups = []
    rows: list[list[dict[str, Any]]] = [[] for _ in conditions]
    try:
        for _label, server, _nonce in conditions:
            started = time.perf_counter()
            server.start()
            startups.append(time.perf_counter() - started)
            warm = {"model": "gemma-3-270m", "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 4}
            streamed(server.base_url, warm)  # loads the weights; not a decision
        for i, decision in enumerate(decisions):
            order = list(range(len(conditions)))
            order = order[i % len(order):] + order[:i % len(order)]
            for c in order:
                _label, server, nonce = conditions[c]
                rows[c].append(ask(server, i, decision, count_tokens, nonce))
    finally:
        for _label, server, _nonce in conditions:
            server.stop()
    return [summary(label, startup, r) for (label, _s, _n), startup, r in zip(conditions, startups, rows)]


def summary(label: str, startup: float, rows: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = [r["seconds"] for r in rows]
    prompt_rates = [r["prompt_tokens"] / r["first_token_s"] for r in rows if r["first_token_s"] > 0]
    gen_rates = [(r["answer_tokens"] - 1) / (r["seconds"] - r["first_token_s"])
                 for r in rows if r["seconds"] > r["first_token_s"] and r["answer_tokens"] > 1]
    return {"label": label, "startup_s": startup, "decisions": len(rows), "median_s": statistics.median(seconds),
            "first_s": seconds[0], "max_s": max(seconds),
            "median_first_token_s": statistics.median(r["first_token_s"] for r in rows),
            "prompt_tok_per_s": statistics.median(prompt_rates), "gen_tok_per_s": statistics.median(gen_rates),
            "prompt_tokens": statistics.mean(r["prompt_tokens"] for r in rows),
            "answer_tokens": statistics.mean(r["answer_tokens"] for r in rows),
            "legal_share": sum(r["legal"] for r in rows) / len(rows),
            "planner_share": sum(r["as_planner"] for r in rows) / len(rows), "rows": rows}


def token_counter(settings: EmbeddedSettings) -> Any:
    """Counts tokens as the server does: Gemma's chat template, then the model's tokenizer."""
    import llama_cpp
    from llama_cpp.llama_chat_format import format_gemma

    vocab = llama_cpp.Llama(str(model_file(settings)), vocab_only=True, verbose=False)

    def count(messages: list[dict[str, str]] | None, text: str = "") -> int:
        if messages is not None:
            text = format_gemma(messages).prompt  # type: ignore[arg-type]
            return len(vocab.tokenize(text.encode("utf-8"), add_bos=True, special=True))
        return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decisions", type=int, default=12, help="k = 0 decisions per condition (default 12)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: all cores but one)")
    parser.add_argument("--only", help="comma-separated conditions to run (default: all)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if embedded_missing():
        print(f"error: {embedded_missing()}", file=sys.stderr)
        return 2
    settings = EmbeddedSettings(threads=args.threads)
    decisions = decision_set(args.decisions)
    count = token_counter(settings)
    conditions = [("no prompt cache", OldLaunch(settings), True),
                  ("reuse old launch", OldLaunch(settings), False),
                  ("reuse now", EmbeddedServer(settings), False)]
    if args.only:
        wanted = set(args.only.split(","))
        conditions = [c for c in conditions if c[0] in wanted]
    load_before = os.getloadavg()
    results = run_conditions(conditions, decisions, count)
    load_after = os.getloadavg()
    base = results[0]
    print(f"k = 0 decisions in two-rooms, n = {len(decisions)} prompts (alice and bob interleaved) per condition; "
          f"llama.cpp threads {args.threads or 'all cores but one'}; {os.cpu_count()} cores; load average "
          f"{load_before[0]:.1f} before, {load_after[0]:.1f} after")
    header = (f"{'':18} {'median s':>8} {'first s':>7} {'1st tok s':>9} {'prompt tok/s':>12} {'gen tok/s':>9} "
              f"{'prompt tok':>10} {'answer tok':>10} {'legal':>5} {'planner':>7} {'x median':>8}")
    print(header)
    print("-" * len(header))
    for r in results:
        print(f"{r['label']:18} {r['median_s']:>8.2f} {r['first_s']:>7.2f} {r['median_first_token_s']:>9.2f} "
              f"{r['prompt_tok_per_s']:>12.0f} {r['gen_tok_per_s']:>9.1f} {r['prompt_tokens']:>10.0f} "
              f"{r['answer_tokens']:>10.1f} {r['legal_share']:>5.2f} {r['planner_share']:>7.2f} "
              f"{base['median_s'] / r['median_s']:>8.2f}")
    print("legal: share of answers valid for the schema with a legal action (no fallback); planner: share "
          "whose action is the optimal planner's")
    print("x median: the baseline's median latency / this condition's (higher is faster); prompt tok/s: prompt "
          "tokens / time to the first answer token; gen tok/s: answer tokens after the first / the time after it")
    if args.json:
        Path(args.json).write_text(json.dumps({"load_average": [load_before, load_after], "threads": args.threads,
                                               "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
