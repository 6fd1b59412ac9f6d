"""Latency of k = 0 LLM decisions in Doors, Keys and Gems on the embedded model, with and
without prompt reuse, with the prompts and answers before and now, in the same run.

A fixed set of decisions is taken from one two-rooms episode played by two planners: for each
turn, the acting seat's prompt as the ``llm`` agent at k = 0 writes it, with alice's and bob's
turns interleaved as in play, in two forms: as the agent writes it now (``DKGLLM``: the rules,
the walls and doors and the answer format first, then the recent actions, the seat and its goal,
the positions of this tick and the legal actions; the answer ``{"action": x_0}``), and as it wrote
it before (``BeforeDKGLLM`` below: the seat and its goal right after the rules, the state as a
map with every position spelt out, a history window that slides by one action each tick, and the
answer ``{"ToM_level0": {"belief": "no belief", "action": x_0}}``). Every condition sends its
prompts in the same order to its own embedded server, as the client sends them (its request body:
json_object with the answer's schema), streamed so that the time to the first answer token
(prompt processing) and the rest (generation) are measured apart. The servers run side by side
and each decision goes to each of them in turn, in a rotating order, so that a change of the
machine's load hits every condition alike. Conditions:

- ``no prompt cache``: the server launched as before (``--logits_all true``, no prompt cache),
  the prompts before, each starting with a unique line, so no request can reuse an earlier one's
  prefix (the baseline);
- ``reuse old launch``: the same server, the prompts before as they are: llama.cpp keeps the
  evaluated prefix of the previous request (the static rules and template) in its slot;
- ``reuse old prompts``: the server as ``agents.llm.server`` launches it now, the prompts before;
- ``compact now``: the same launch, the prompts and answers of the agent now;
- ``compact 2 threads``: the same with two llama.cpp threads.

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
from agents.llm.client import AnswerError, LLMClient, extract_json, validation_problem  # noqa: E402
from agents.llm.config import EmbeddedSettings, LLMSettings  # noqa: E402
from agents.llm.dkg import DKGLLM, RULES, describe_state  # noqa: E402
from agents.llm.server import EmbeddedServer, default_threads, embedded_missing, model_file  # noqa: E402
from agents.llm.tom import final_action, tom_schema  # noqa: E402
from sim.dkg.world import DKGObservation  # noqa: E402
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


#: the k = 0 answer before: the paper's level block, its belief fixed ("no belief")
BEFORE_TEMPLATE = json.dumps({"ToM_level0": {"belief": "no belief", "action": "{x_0: one of your legal actions}"}},
                             indent=2)
BEFORE_PREAMBLE = ("You have the ability of 0 Level Theory of Mind. You can **recursively** infer the mental "
                   "states of other agents in the team. Then, you will choose your action {x_i} based on this "
                   "belief.\n## Please explain your thought process for inferring others' actions '{y_i}' and "
                   "choosing '{x_i}' at each level. Remember MUST Respond in the following JSON format, "
                   "including each key, and replace every {...} with your own words:")


def before_schema(labels: Sequence[str]) -> dict[str, Any]:
    level0 = {"type": "object", "properties": {"belief": {"type": "string", "enum": ["no belief"]},
                                               "action": {"type": "string", "enum": list(labels)}},
              "required": ["belief", "action"], "additionalProperties": False}
    return {"type": "object", "properties": {"ToM_level0": level0}, "required": ["ToM_level0"],
            "additionalProperties": False}


class BeforeDKGLLM(DKGLLM):
    """The llm agent's k = 0 Doors, Keys and Gems prompt as it was before the compact one (kept
    here to measure against): a sliding history window, the seat right after the rules, the
    state as a map with a legend and every position in words."""

    def prepare(self, observation: DKGObservation, legal_actions: Sequence[str]) -> None:
        from agents.llm.dkg import infer_actions

        state = observation.state
        if self._last_state is not None:
            self.history += infer_actions(self.world, self._last_state, state)
            self.history = self.history[-self.history_length:] if self.history_length else []
        self._last_state = state

    def agent_messages(self, observation: DKGObservation, legal_actions: Sequence[str], k: int) -> list[dict[str, str]]:
        world, me = self.world, self.ctx.agent_id
        system = (RULES.format(agents=", ".join(world.agents), t_max=world.t_max) + "\n\n"
                  + BEFORE_PREAMBLE + "\n" + BEFORE_TEMPLATE)
        goal = world.items[world.item_index[observation.goal]]
        parts = [f"You are {me}. Your goal is to collect {goal.id} (the {goal.color} gem)."]
        if self.history:
            parts.append("Recent actions (oldest first):\n" + "\n".join(
                f"- tick {t}, {agent}: {action}" for t, agent, action in self.history))
        else:
            parts.append("Recent actions: none yet.")
        parts.append("Current state:\n" + describe_state(world, observation.state, viewer=me))
        parts.append("Your legal actions now: " + ", ".join(json.dumps(a) for a in legal_actions))
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


# one decision: messages, the answer's schema, the action of a valid answer, legal labels, seed, planner's action
Decision = tuple[list[dict[str, str]], dict[str, Any], Any, list[str], int, str]
Decisions = list[Decision]


def decision_sets(n: int) -> dict[str, Decisions]:
    """The first ``n`` turns of a planners' episode as the agent asks them now ("now") and before
    ("before"): (messages, schema, answer -> action, legal labels, seed, the planner's action)."""
    world, name = load_scenario("two-rooms")
    turns: list[tuple[SeatContext, Any, tuple[Any, ...], Any]] = []
    seats = {a: Recorder(turns) for a in world.agents}
    Session(world, seats, seed=0, scenario=name, max_ticks=n).run()
    out: dict[str, Decisions] = {}
    for form, kind in (("now", DKGLLM), ("before", BeforeDKGLLM)):
        plays: dict[str, DKGLLM] = {}
        rows: Decisions = []
        for ctx, observation, legal, planned in turns[:n]:
            play = plays.get(ctx.agent_id)
            if play is None:
                play = plays[ctx.agent_id] = kind(world)
                play.start(ctx, 10)
            play.prepare(observation, legal)
            labels = play.action_labels(observation, legal)
            if form == "now":
                schema, action_of = tom_schema(K, labels), (lambda v: final_action(v, K))
            else:
                schema, action_of = before_schema(labels), (lambda v: v["ToM_level0"]["action"])
            rows.append((play.agent_messages(observation, legal, K), schema, action_of, labels,
                         ctx.seed + play.tick(observation), planned))
        out[form] = rows
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


def ask(server: EmbeddedServer, i: int, decision: Decision, count_tokens: Any, nonce: bool,
        previous: list[int] | None) -> dict[str, Any]:
    """One decision's request to ``server``, timed, its answer checked. ``previous``: the prompt
    tokens of the request this server answered before (what its slot holds), or None."""
    messages, schema, action_of, labels, seed, planned = decision
    if nonce:  # a unique first line: nothing of an earlier prompt can be reused
        messages = [dict(m, content=f"Request {i}: {time.time_ns()}.\n" + m["content"]) for m in messages]
    client = LLMClient(LLMSettings(timeout=900.0), transport=None)
    body = client.request_body(messages, schema, schema_name=f"tom_level{K}", mode="json_object", seed=seed)
    prompt = count_tokens(body["messages"], tokens=True)
    text, first, total, chunks = streamed(server.base_url, body)
    value: Any = None
    try:
        value = extract_json(text)
        legal = (isinstance(value, dict) and validation_problem(value, schema) is None
                 and action_of(value) in labels)
    except (AnswerError, KeyError, TypeError):
        legal = False
    reused = 0
    for a, b in zip(previous or [], prompt):
        if a != b:
            break
        reused += 1
    return {"seconds": total, "first_token_s": first, "generation_s": total - first, "chunks": chunks,
            "legal": legal, "as_planner": legal and action_of(value) == planned, "prompt_tokens": len(prompt),
            "evaluated_tokens": len(prompt) - min(reused, len(prompt) - 1), "answer_tokens": count_tokens(None, text),
            "answer": text, "tokens": prompt}


def run_conditions(conditions: list[tuple[str, EmbeddedServer, bool, Decisions]],
                   count_tokens: Any) -> list[dict[str, Any]]:
    """Every condition's server runs at once; each decision is sent to each of them in turn, in a
    rotating order, so that a change of the machine's load hits every condition alike."""
    startups = []
    rows: list[list[dict[str, Any]]] = [[] for _ in conditions]
    try:
        for _label, server, _nonce, _decisions in conditions:
            started = time.perf_counter()
            server.start()
            startups.append(time.perf_counter() - started)
            warm = {"model": "gemma-3-270m", "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 4}
            streamed(server.base_url, warm)  # loads the weights; not a decision
        for i in range(len(conditions[0][3])):
            order = list(range(len(conditions)))
            order = order[i % len(order):] + order[:i % len(order)]
            for c in order:
                _label, server, nonce, decisions = conditions[c]
                previous = rows[c][-1]["tokens"] if rows[c] and not nonce else None
                rows[c].append(ask(server, i, decisions[i], count_tokens, nonce, previous))
    finally:
        for _label, server, _nonce, _decisions in conditions:
            server.stop()
    for r in rows:
        for row in r:
            del row["tokens"]
    return [summary(label, startup, r) for (label, _s, _n, _d), startup, r in zip(conditions, startups, rows)]


def summary(label: str, startup: float, rows: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = [r["seconds"] for r in rows]
    prompt_rates = [r["prompt_tokens"] / r["first_token_s"] for r in rows if r["first_token_s"] > 0]
    eval_rates = [r["evaluated_tokens"] / r["first_token_s"] for r in rows if r["first_token_s"] > 0]
    gen_rates = [(r["answer_tokens"] - 1) / (r["seconds"] - r["first_token_s"])
                 for r in rows if r["seconds"] > r["first_token_s"] and r["answer_tokens"] > 1]
    return {"label": label, "startup_s": startup, "decisions": len(rows), "median_s": statistics.median(seconds),
            "first_s": seconds[0], "max_s": max(seconds),
            "median_first_token_s": statistics.median(r["first_token_s"] for r in rows),
            "median_generation_s": statistics.median(r["generation_s"] for r in rows),
            "prompt_tok_per_s": statistics.median(prompt_rates), "eval_tok_per_s": statistics.median(eval_rates),
            "gen_tok_per_s": statistics.median(gen_rates) if gen_rates else 0.0,
            "prompt_tokens": statistics.mean(r["prompt_tokens"] for r in rows),
            "evaluated_tokens": statistics.mean(r["evaluated_tokens"] for r in rows[1:] or rows),
            "answer_tokens": statistics.mean(r["answer_tokens"] for r in rows),
            "legal_share": sum(r["legal"] for r in rows) / len(rows),
            "planner_share": sum(r["as_planner"] for r in rows) / len(rows), "rows": rows}


def token_counter(settings: EmbeddedSettings) -> Any:
    """Counts tokens as the server does: Gemma's chat template, then the model's tokenizer."""
    import llama_cpp
    from llama_cpp.llama_chat_format import format_gemma

    vocab = llama_cpp.Llama(str(model_file(settings)), vocab_only=True, verbose=False)

    def count(messages: list[dict[str, str]] | None, text: str = "", tokens: bool = False) -> Any:
        if messages is not None:
            text = format_gemma(messages).prompt  # type: ignore[arg-type]
            ids = vocab.tokenize(text.encode("utf-8"), add_bos=True, special=True)
            return ids if tokens else len(ids)
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
    sets = decision_sets(args.decisions)
    count = token_counter(settings)
    conditions = [("no prompt cache", OldLaunch(settings), True, sets["before"]),
                  ("reuse old launch", OldLaunch(settings), False, sets["before"]),
                  ("reuse old prompts", EmbeddedServer(settings), False, sets["before"]),
                  ("compact now", EmbeddedServer(settings), False, sets["now"]),
                  ("compact 2 threads", EmbeddedServer(EmbeddedSettings(threads=2)), False, sets["now"])]
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {c[0] for c in conditions}
        if unknown:
            print(f"error: --only: no condition {sorted(unknown)[0]!r}; the conditions are "
                  f"{', '.join(c[0] for c in conditions)}", file=sys.stderr)
            return 2
        conditions = [c for c in conditions if c[0] in wanted]
    load_before = os.getloadavg()
    started = time.perf_counter()
    results = run_conditions(conditions, count)
    wall = time.perf_counter() - started
    load_after = os.getloadavg()
    base = results[0]
    print(f"k = 0 decisions in two-rooms, n = {args.decisions} prompts (alice and bob interleaved) per condition; "
          f"llama.cpp threads {args.threads or 'all cores but one'} (unless the condition says); {os.cpu_count()} "
          f"cores; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after; {wall:.0f} s in all")
    header = (f"{'':22} {'median s':>8} {'first s':>7} {'1st tok s':>9} {'gen s':>5} {'prompt tok':>10} "
              f"{'evaluated':>9} {'eval tok/s':>10} {'prompt tok/s':>12} {'answer tok':>10} {'gen tok/s':>9} "
              f"{'legal':>5} {'planner':>7} {'x median':>8}")
    print(header)
    print("-" * len(header))
    for r in results:
        print(f"{r['label']:22} {r['median_s']:>8.2f} {r['first_s']:>7.2f} {r['median_first_token_s']:>9.2f} "
              f"{r['median_generation_s']:>5.2f} {r['prompt_tokens']:>10.0f} {r['evaluated_tokens']:>9.0f} "
              f"{r['eval_tok_per_s']:>10.0f} {r['prompt_tok_per_s']:>12.0f} {r['answer_tokens']:>10.1f} "
              f"{r['gen_tok_per_s']:>9.1f} {r['legal_share']:>5.2f} {r['planner_share']:>7.2f} "
              f"{base['median_s'] / r['median_s']:>8.2f}")
    print("1st tok s / gen s: medians of the time to the first answer token (prompt evaluation) and of the time "
          "after it (generation); prompt tok: mean tokens per prompt; evaluated: mean tokens after the prefix "
          "the server kept from its previous request (decisions after the first); eval tok/s: evaluated tokens / "
          "time to the first token; prompt tok/s: prompt tokens / time to the first token; gen tok/s: answer "
          "tokens after the first / the time after it")
    print("legal: share of answers valid for the schema with a legal action (no fallback); planner: share "
          "whose action is the optimal planner's; x median: the baseline's median latency / this condition's "
          "(higher is faster)")
    if args.json:
        Path(args.json).write_text(json.dumps({"load_average": [load_before, load_after], "threads": args.threads,
                                               "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
