"""LLM agents and the LLM facilitator against the real embedded model (Gemma 3 270M served by
llama.cpp on loopback, started once for these tests): short mDKG episodes, their recorded
transcripts, schema-valid answers, token counts, and exact re-runs without the model.

The 270M model needs seconds per answer here, so episodes are a few ticks long.
"""

import importlib.util
import json
import socket
from pathlib import Path

import jsonschema
import pytest

from agents.dkg.agents import PlannerAgent
from agents.llm.agent import make_llm_agent
from agents.llm.config import LLMSettings
from agents.llm.facilitator import make_llm_facilitator
from agents.llm.server import EmbeddedServer, embedded_missing, shared_server
from agents.llm.tom import final_action, tom_levels, tom_schema
from agents.llm.transcript import rerun_session
from main import main
from sim.events import ErrorEvent, LLMCallEvent, StepEvent
from sim.recording import RecordingWriter, load_recording
from sim.registry import load_scenario
from sim.session import Session

pytestmark = pytest.mark.slow

# Tests that talk to the embedded model skip without it (through the ``embedded`` fixture); the one
# that only starts llama.cpp on a broken file needs llama.cpp alone.
needs_llama_cpp = pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                                     reason="llama-cpp-python is not installed (bash scripts/setup.sh llm)")


@pytest.fixture(scope="session")
def embedded():
    if embedded_missing():
        pytest.skip(embedded_missing())
    """The server LLM seats use when no endpoint is configured, started once."""
    server = shared_server(LLMSettings().embedded)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def no_endpoint(monkeypatch, tmp_path):
    """A user with no config file and no endpoint in the environment."""
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
    # A loaded 2-core machine can take minutes for one answer; these tests check answers, not speed.
    monkeypatch.setenv("TOM_ARENA_LLM_TIMEOUT", "600")
    for var in ("OPENAI_BASE_URL", "TOM_ARENA_LLM_BASE_URL", "TOM_ARENA_LLM_CONFIG", "TOM_ARENA_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)


def play(tmp_path, seats, max_ticks, facilitator=None, name="episode"):
    world, scenario = load_scenario("two-rooms")
    session = Session(world, seats, seed=0, scenario=scenario, mechanisms=[facilitator], max_ticks=max_ticks)
    path = tmp_path / f"{name}.jsonl"
    RecordingWriter.attach(session, path)
    session.run()
    return session, path


def replays_exactly(session, path):
    rerun = rerun_session(path)
    rerun.run()
    original = [e.to_dict() for e in session.events]
    again = [e.to_dict() for e in rerun.events]
    assert [e["state_hash"] for e in again if e["type"] == "step"] == \
           [e["state_hash"] for e in original if e["type"] == "step"]
    assert again == original


def test_server_answers_health_checks_and_shuts_down_cleanly(embedded):
    assert embedded.healthy() and embedded.base_url.startswith("http://127.0.0.1:")
    own = EmbeddedServer(embedded.settings).start()
    port, process = own.port, own.process
    assert own.healthy() and port != embedded.port
    own.stop()
    assert process.poll() is not None and not own.running and not own.healthy()
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0  # nobody listens there any more
    assert embedded.healthy()  # the shared one is untouched


def test_a_level1_llm_agent_plays_records_and_replays(embedded, no_endpoint, tmp_path):
    agent = make_llm_agent(k=1)  # no endpoint configured: the embedded model
    assert agent.client.settings.uses_embedded
    session, path = play(tmp_path, {"alice": agent, "bob": PlannerAgent()}, max_ticks=4)
    assert session.finished and session.tick == 4

    world = session.world
    recording = load_recording(path)
    assert recording.complete
    assert recording.header["seats"]["alice"]["llm"]["base_url"] == "embedded"
    calls = [e for e in recording.events if isinstance(e, LLMCallEvent)]
    steps = [e for e in recording.events if isinstance(e, StepEvent)]
    assert len(calls) >= 2 and {c.agent for c in calls} == {"alice"} and {c.module for c in calls} == {"planning"}

    state = world.reset(0)
    decisions = 0
    for step in steps:
        (agent_id, action), = step.joint_action.items()
        if agent_id == "alice":
            legal = world.legal_actions(state, "alice")
            schema = tom_schema(1, legal)
            tick_calls = [c for c in calls if c.tick == state.t]
            assert tick_calls, f"no model call recorded at tick {state.t}"
            for call in tick_calls:
                body = call.request["body"]
                assert body["response_format"] == {"type": "json_object", "schema": schema}
                # Gemma has no system role: the rules lead the one user message, the seat follows
                assert body["messages"][0]["role"] == "user" and "You are alice" in body["messages"][0]["content"]
                assert body["messages"][0]["content"].startswith("Consider a multi-agent Doors, Keys, and Gems")
                if call.error is None:
                    assert call.prompt_tokens > 0 and call.completion_tokens > 0
            answered = [c for c in tick_calls if c.error is None]
            fell_back = [e for e in recording.events if isinstance(e, ErrorEvent) and e.tick == state.t
                         and e.kind == "llm_fallback"]
            if answered:
                answer = json.loads(answered[-1].response["content"])
                jsonschema.validate(answer, schema)  # the constrained answer follows the schema
                assert action == final_action(answer, 1) or fell_back
            else:  # every attempt failed (a stalled machine): the planner's action, said so
                assert fell_back
            decisions += 1
        state = world.step(state, {agent_id: action}).state
    assert decisions == 2
    assert any(c.error is None for c in calls), "the model never answered"

    metrics = recording.footer["metrics"]
    assert metrics["llm_calls"] == len(calls)
    assert metrics["prompt_tokens"] == sum(c.prompt_tokens for c in calls)
    assert metrics["completion_tokens"] == sum(c.completion_tokens for c in calls)
    assert agent.client.ledger.as_dict()["alice"]["planning"]["completion_tokens"] == metrics["completion_tokens"]
    replays_exactly(session, path)


@pytest.mark.parametrize("k", [0, 2])
def test_level0_and_level2_answers_follow_their_templates(embedded, no_endpoint, tmp_path, k):
    session, path = play(tmp_path, {"alice": make_llm_agent(k=k), "bob": PlannerAgent()}, max_ticks=1,
                         name=f"k{k}")
    call = next(e for e in session.events if isinstance(e, LLMCallEvent) and e.error is None)
    answer = json.loads(call.response["content"])
    legal = session.world.legal_actions(session.world.reset(0), "alice")
    jsonschema.validate(answer, tom_schema(k, legal))
    assert list(answer) == (["action"] if k == 0 else ["ToM_level1", "ToM_level2"])  # k = 0: the action alone
    tom = next(e for e in session.events if e.type == "belief" and e.kind == "tom")
    assert tom.data["k"] == k and tom.data["levels"] == tom_levels(answer, k)  # the paper's form
    if k == 0:
        assert tom.data["levels"] == {"ToM_level0": {"belief": "no belief", "action": answer["action"]}}
    replays_exactly(session, path)


def test_the_llm_facilitator_on_the_embedded_model(embedded, no_endpoint, tmp_path):
    facilitator = make_llm_facilitator()
    session, path = play(tmp_path, {"alice": PlannerAgent(), "bob": PlannerAgent()}, max_ticks=2,
                         facilitator=facilitator, name="facilitator")
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    assert calls and all(c.agent == "facilitator" and c.module == "feedback" for c in calls)
    assert any(c.error is None for c in calls), "the model never answered"
    for call in (c for c in calls if c.error is None):
        schema = call.request["body"]["response_format"]["schema"]
        answer = json.loads(call.response["content"])
        jsonschema.validate(answer, schema)
        assert answer["answer"] in schema["properties"]["answer"]["enum"]
        assert "Your Task as a Social Facilitator" in call.request["body"]["messages"][0]["content"]
    snapshots = [e for e in session.events if e.type == "belief" and e.owner == "llm"]
    assert snapshots and set(snapshots[0].data["inferred_goals"]) == {"alice", "bob"}
    replays_exactly(session, path)


def test_llm_check_makes_one_call(embedded, no_endpoint, capsys):
    assert main(["llm", "check"]) == 0
    out = capsys.readouterr().out
    assert "endpoint" in out and "embedded" in out and "ok: {'status': 'ready'}" in out


@needs_llama_cpp
def test_a_server_that_cannot_load_its_model_says_why(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a GGUF file")
    server = EmbeddedServer(LLMSettings(embedded={"model_path": str(broken), "startup_timeout": 120}).embedded,
                            log_path=tmp_path / "server.log")
    with pytest.raises(Exception, match="exited with code"):
        server.start()
    assert not server.running and (tmp_path / "server.log").exists()


def test_a_server_started_from_a_worker_thread_outlives_the_thread():
    """The kernel's parent-death signal follows the thread that started a child: a server started
    by a GUI task or an experiment job must not die when that thread ends."""
    import threading
    import time

    if embedded_missing():
        pytest.skip(embedded_missing())
    server = EmbeddedServer(LLMSettings().embedded)
    worker = threading.Thread(target=server.start)
    worker.start()
    worker.join()
    try:
        time.sleep(2)
        assert server.running and server.healthy()
    finally:
        server.stop()


def test_the_server_dies_with_its_program_even_on_sigterm(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    if embedded_missing():
        pytest.skip(embedded_missing())
    script = tmp_path / "hold.py"
    script.write_text("import sys, time\n"
                      f"sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
                      "from agents.llm.server import shared_server\n"
                      "server = shared_server()\nserver.start()\nprint(server.process.pid, flush=True)\n"
                      "time.sleep(600)\n", encoding="utf-8")
    program = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    child = int(program.stdout.readline())
    program.send_signal(signal.SIGTERM)
    program.wait(timeout=30)
    for _ in range(600):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(child, signal.SIGKILL)
    pytest.fail(f"the model server {child} outlived its program by 60 s")


def test_a_long_string_bound_does_not_kill_the_embedded_server(embedded, no_endpoint):
    """llama.cpp's grammar compiler cannot take string bounds of about 1,000 characters and more
    (its server dies on them); such bounds stay out of the grammar and are checked here."""
    from agents.llm.client import GRAMMAR_MAX_LENGTH, LLMClient, grammar_schema
    from agents.llm.config import load_settings

    schema = {"type": "object", "properties": {"text": {"type": "string", "maxLength": 2400},
                                               "short": {"type": "string", "maxLength": 20}},
              "required": ["text"]}
    sent = grammar_schema(schema)
    assert "maxLength" not in sent["properties"]["text"] and sent["properties"]["short"]["maxLength"] == 20
    assert GRAMMAR_MAX_LENGTH < 1000
    client = LLMClient(load_settings())
    outcome = client.ask_json([{"role": "user", "content": 'Greet me as JSON {"text": ...}'}], schema,
                              agent="t", module="m", tick=0)
    assert embedded.running, outcome.failure
    assert outcome.ok, outcome.failure
