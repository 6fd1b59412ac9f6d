"""Hostile endpoints against every path that reads a model's output.

``tests/llm_loopback.py``'s hostile modes (JSON nested 200,000 deep in the answer and in the HTTP
body itself, bodies of 40 MB, bytes that are not UTF-8, every field of the wrong type, NaN and
numbers of 5,000 digits, duplicate keys, code that forges the team room's test answers) on real
HTTP servers on loopback:

* the client: every variant of every mode is one recorded fault of the kind the mode names,
  with a short message, and a small recorded call;
* every LLM kind (the ``llm`` agent and facilitator, ``cobel-llm``, ``room-llm``,
  ``llm-trader``): each decision that asked the model ends in the kind's declared fallback with
  an ``llm_fallback`` event, the recording is complete and re-runs exactly;
* ``python main.py run text-tools --agents room-llm:k=0`` and an ``experiment`` with LLM
  conditions, as real processes against an endpoint that mixes every mode: they finish, with a
  complete recording and every episode recorded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.llm.client import MAX_RESPONSE_BYTES, LLMClient
from agents.llm.config import LLMSettings
from agents.llm.transcript import rerun_session
from agents.registry import make_agent, make_mechanisms, seat_specs
from sim.events import ErrorEvent, LLMCallEvent
from sim.recording import RecordingWriter, load_recording
from sim.registry import SCENARIO_DIR, load_scenario
from sim.session import Session
from tests.llm_loopback import HOSTILE_FAULT, HOSTILE_VARIANTS, LoopbackLLM

ROOT = Path(__file__).resolve().parent.parent

#: the modes whose answers are never usable, each with what its fault's message says
FAILING = {"deep_answer": "nested deeper than 64", "deep_body": "nested deeper than 64",
           "huge_body": "the response body is", "invalid_utf8": "", "wrong_types": "", "wrong_answer_types": "",
           "bad_numbers": ""}
assert set(FAILING) == set(HOSTILE_FAULT)

SCHEMA = {"type": "object", "properties": {
    "move": {"type": "string", "enum": ["up", "down"]},
    "score": {"type": "number", "minimum": 0, "maximum": 10},
    "plan": {"type": "object", "properties": {"why": {"type": "string", "maxLength": 80}}, "required": ["why"]}},
    "required": ["move", "score", "plan"], "additionalProperties": False}
MESSAGES = [{"role": "user", "content": "Which way? Answer JSON."}]


def hostile_settings(server: LoopbackLLM) -> LLMSettings:
    return LLMSettings(base_url=server.base_url, timeout=30.0, max_retries=0, repair_attempts=0)


@pytest.mark.parametrize("mode,variant", [(m, v) for m in sorted(FAILING) for v in range(HOSTILE_VARIANTS[m])])
def test_every_hostile_answer_is_one_recorded_fault(mode, variant):
    with LoopbackLLM(mode, variant=variant) as server:
        client = LLMClient(hostile_settings(server), sleep=lambda s: None)
        outcome = client.ask_json(MESSAGES, SCHEMA, agent="alice", module="planning", tick=0)
    assert not outcome.ok and outcome.attempts == 1
    (call,), errors = ([e for e in outcome.events if isinstance(e, LLMCallEvent)],
                       [e for e in outcome.events if isinstance(e, ErrorEvent)])
    assert [e.kind for e in errors] == [HOSTILE_FAULT[mode]], errors
    assert FAILING[mode] in outcome.failure and len(outcome.failure) < 1000
    # a refused body is not kept; a completion's answer is (a re-run replays it), at most MAX_RESPONSE_BYTES
    kept = len(json.dumps(call.to_dict()))
    assert kept < (20_000 if HOSTILE_FAULT[mode] == "llm_invalid_response" else MAX_RESPONSE_BYTES)


def test_an_answer_is_read_strictly():
    """What the strict reader refuses in an answer, and what it forgives."""
    from agents.llm.client import AnswerError, extract_json

    assert extract_json('Sure! ```json\n{"a": [1, {"b": "c\nd"}]}\n``` done') == {"a": [1, {"b": "c\nd"}]}
    for text, why in [("[" * 200_000 + "]" * 200_000, "nested deeper than 64"),
                      ('{"a": NaN}', "NaN is not a number"), ('{"a": 1e999}', "too large for a float"),
                      ('{"a": ' + "9" * 5000 + "}", "integer with 5000 digits"),
                      ('{"a": "\\ud800"}', "lone surrogate"), ('{"a": 1, "a": 2}', "occurs twice"),
                      ("```" + " " * 100_000, "invalid JSON")]:
        with pytest.raises(AnswerError, match=why):
            extract_json(text)


def test_a_cache_entry_that_is_no_reply_is_asked_again(tmp_path):
    """The experiments' response cache reads its entries with the strict reader too: an entry cut,
    nested 200,000 deep, not UTF-8 or holding a reply of the wrong types is a miss, never an error."""
    from experiments.llm_cache import CachingTransport, ResponseCache

    with LoopbackLLM("ok") as server:
        client = LLMClient(LLMSettings(base_url=server.base_url, max_retries=0))
        cache = ResponseCache(tmp_path / "cache")
        transport = CachingTransport(cache, client)
        body = client.request_body(MESSAGES, SCHEMA, schema_name="answer", mode="json_schema", seed=1)
        first = transport.send(body, agent="alice", module="planning")
        (entry,) = (tmp_path / "cache").rglob("*.json")
        key = json.loads(entry.read_text(encoding="utf-8"))["key"]
        for broken in [b'{"key": "' + key.encode() + b'", "reply": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
                       json.dumps({"key": key, "reply": {"content": 5, "usage": {"prompt_tokens": "many"}}}).encode(),
                       json.dumps({"key": key, "reply": ["text"]}).encode(), b"\xff\xfe{", b'{"key": "'[:5]]:
            entry.write_bytes(broken)
            assert transport.send(body, agent="alice", module="planning").content == first.content
        assert cache.hits == 0 and len(server.requests) == 6
        assert transport.send(body, agent="alice", module="planning").content == first.content  # stored again
        assert cache.hits == 1 and len(server.requests) == 6


# ---------------------------------------------------------------------- every kind


def small_copy(source: Path, target: Path, change) -> Path:
    if source.suffix == ".json":
        data = json.loads(source.read_text(encoding="utf-8"))
        change(data)
        target.write_text(json.dumps(data), encoding="utf-8")
    return target


def scenario(kind: str, folder: Path) -> Path:
    """A short copy of a shipped scenario the kind plays."""
    if kind in ("llm", "facilitator"):
        return small_copy(SCENARIO_DIR / "dkg" / "two-rooms.json", folder / "dkg.json",
                          lambda d: d.setdefault("options", {}).update(t_max=4))
    if kind == "cobel-llm":
        return small_copy(SCENARIO_DIR / "household" / "household-prepare-tea-01.json", folder / "household.json",
                          lambda d: d["task"].update(budget=3))
    if kind == "room-llm":
        return small_copy(SCENARIO_DIR / "teamroom" / "text-tools.json", folder / "programming.json",
                          lambda d: d.update(rounds=1))
    if kind == "judge":
        return small_copy(SCENARIO_DIR / "teamroom" / "death-penalty.json", folder / "debate.json",
                          lambda d: d.update(rounds=1))
    return small_copy(SCENARIO_DIR / "tradecraft" / "minecraft-1v1" / "mc1v1-01.json", folder / "trade.json",
                      lambda d: d.setdefault("options", {}).update(max_turns=2))


def specs_for(kind: str, url: str) -> tuple[list[str], list[str]]:
    """(--agents, mechanisms) of a short episode of ``kind`` behind ``url``."""
    tail = f"base_url={url},max_retries=0,repair_attempts=0,timeout=30"
    if kind == "llm":
        return [f"llm:k=1,{tail}", "planner"], []
    if kind == "facilitator":
        return ["planner"], [f"llm:{tail}"]
    if kind == "cobel-llm":
        return [f"cobel-llm:{tail}"], []
    if kind in ("room-llm", "judge"):
        return [f"room-llm:k=0,{tail}"], []
    return [f"llm-trader:tom=1,{tail}"], []


def play(kind: str, server: LoopbackLLM, folder: Path) -> tuple[Session, Path]:
    world, name = load_scenario(str(scenario(kind, folder)))
    agents, mechanisms = specs_for(kind, server.base_url)
    seats = {a: make_agent(spec, world.family) for a, spec in seat_specs(world.agents, agents).items()}
    session = Session(world, seats, seed=3, scenario=name, mechanisms=make_mechanisms(mechanisms, world.family))
    path = folder / f"{kind}.jsonl"
    RecordingWriter.attach(session, path)
    session.run()
    return session, path


KINDS = ["llm", "facilitator", "cobel-llm", "room-llm", "llm-trader"]


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    """No user's LLM settings: only what the specs say."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "TOM_ARENA_LLM")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path


@pytest.mark.parametrize("mode", sorted(FAILING))
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_falls_back_on_every_hostile_answer(kind, mode, config_dir):
    with LoopbackLLM(mode) as server:
        session, path = play(kind, server, config_dir)
    assert session.finished
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    errors = [e for e in session.events if isinstance(e, ErrorEvent)]
    fallbacks = [e for e in errors if e.kind == "llm_fallback"]
    assert calls and all(c.error or c.response.get("content") is not None for c in calls)
    # each call failed the mode's way; each one that decided something fell back (the trader's
    # choice of tools is no decision: without it, it decides without tools)
    assert sorted({e.kind for e in errors}) == sorted({HOSTILE_FAULT[mode], "llm_fallback"})
    assert len([e for e in errors if e.kind == HOSTILE_FAULT[mode]]) == len(calls)
    deciding = [c for c in calls if (c.request["body"].get("response_format") or {}).get("json_schema", {})
                .get("name") != "tools"]
    assert len(fallbacks) == len(deciding) > 0
    recording = load_recording(path)
    assert recording.complete
    assert [e.to_dict() for e in recording.events if e.type == "error"] == [e.to_dict() for e in errors]
    rerun = rerun_session(path)
    rerun.run()
    assert [e.to_dict() for e in rerun.events] == [e.to_dict() for e in session.events]


def test_the_debate_judge_scores_by_the_rubric_on_hostile_answers(config_dir):
    with LoopbackLLM("chaos") as server:
        session, path = play("judge", server, config_dir)
    verdicts = [e for e in session.events if e.type == "belief" and e.kind == "verdict"]
    assert verdicts and all(v.data["source"] == "fallback" for v in verdicts)
    assert load_recording(path).complete


def test_forged_test_answers_in_submitted_code_pass_no_test(config_dir):
    """Engineers whose code writes answer lines to every file descriptor (no id, a guessed id, a
    load answer, a timeout, bytes that are not UTF-8): no test passes, the episode goes on."""
    with LoopbackLLM("forged_code", variant=0) as server:
        session, path = play("room-llm", server, config_dir)
    submissions = session.state.submissions
    assert submissions and all(r.passed == 0 for s in submissions for r in s.reports)
    assert load_recording(path).complete


# ---------------------------------------------------------------------- real processes


def cli_env(tmp_path: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TOM_ARENA_"))}
    env.update(OPENAI_BASE_URL=url, TOM_ARENA_LLM_MAX_RETRIES="0", TOM_ARENA_LLM_TIMEOUT="30",
               TOM_ARENA_CONFIG_DIR=str(tmp_path / "config"), TOM_ARENA_CACHE=str(tmp_path / "cache"),
               MPLBACKEND="Agg", QT_QPA_PLATFORM="offscreen", SDL_VIDEODRIVER="dummy", PYTHONDONTWRITEBYTECODE="1")
    return env


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["chaos", "forged_code"])
def test_run_text_tools_against_a_hostile_endpoint_finishes(mode, tmp_path):
    """``chaos``: every answer unusable in one of the hostile ways; ``forged_code``: usable answers
    whose code forges the test process's answers, one of the two variants a line nested 200,000
    deep."""
    out = tmp_path / "out"
    with LoopbackLLM(mode) as server:
        done = cli(cli_env(tmp_path, server.base_url), "run", "text-tools", "--agents", "room-llm:k=0",
                   "--out", str(out), "--quiet")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    (path,) = out.glob("*.jsonl")
    recording = load_recording(path)
    assert recording.complete and recording.footer
    assert len(server.requests) == len([e for e in recording.events if e.type == "llm_call"])
    kinds = {e.kind for e in recording.events if e.type == "error"}
    if mode == "chaos":
        assert "llm_fallback" in kinds and kinds & set(HOSTILE_FAULT.values())
    else:  # the code ran, and its forged answers passed no test
        outcome = recording.footer["outcome"]
        assert outcome["submissions"] > 0 and outcome["tests_passed"] == 0


#: designs with an LLM condition: Doors, Keys and Gems with the llm agent and facilitator, and the
#: programming room with room-llm (its engineers' code runs in the sandbox)
DESIGNS = {
    "dkg": {"scenarios": ["two-rooms"], "max_ticks": 4,
            "conditions": [{"name": "planners", "agents": ["planner"]},
                           {"name": "llm", "agents": ["llm:k=1", "planner"], "mechanisms": ["llm"]}]},
    "room": {"scenarios": ["text-tools"],
             "conditions": [{"name": "scripted", "agents": ["room-scripted"]},
                            {"name": "llm", "agents": ["room-llm:k=0"]}]},
}


@pytest.mark.slow
@pytest.mark.parametrize("design_name,mode", [("dkg", "chaos"), ("room", "chaos"), ("room", "forged_code")])
def test_an_experiment_against_a_hostile_endpoint_records_every_episode(design_name, mode, tmp_path):
    design = tmp_path / "design.json"
    design.write_text(json.dumps({
        "experiment": "hostile-endpoint", "seeds": {"count": 2, "first": 0}, **DESIGNS[design_name],
        "reference": "llm", "metrics": [{"name": "ticks", "source": "metrics.ticks"},
                                        {"name": "errors", "source": "metrics.errors", "test": False}]}))
    out = tmp_path / "out"
    with LoopbackLLM(mode) as server:
        done = cli(cli_env(tmp_path, server.base_url), "experiment", str(design), "--out", str(out), "--jobs", "1",
                   "--quiet")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [json.loads(line) for line in (out / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]
    episodes = [r for r in lines if r.get("record") == "episode"]
    assert len(episodes) == 4
    llm = [r for r in episodes if r["condition"] == "llm"]
    assert len(llm) == 2 and all(r["metrics"]["llm_calls"] > 0 for r in llm)
    if mode == "chaos":
        assert all(r["metrics"]["errors"] > 0 for r in llm)
