"""Faults of real loopback HTTP servers (time-outs, 500s, bodies that are not JSON, connections
closed mid-response): LLM episodes finish, every fault is recorded as an Event, the planner's
action stands in, and the recording re-runs exactly without any server."""

import time

import pytest

from agents.dkg.agents import PlannerAgent
from agents.llm.agent import LLMAgent
from agents.llm.client import LLMClient
from agents.llm.config import LLMSettings
from agents.llm.dkg import infer_actions
from agents.llm.facilitator import LLMFacilitator, feedback_options
from agents.llm.transcript import TranscriptMismatch, TranscriptTransport, rerun_session
from agents.protom.core import adapter_for
from sim.events import ErrorEvent, LLMCallEvent, StepEvent
from sim.recording import RecordingWriter, load_recording
from sim.registry import load_scenario
from sim.session import Session, TickStatus
from tests.llm_loopback import LoopbackLLM

FAULTS = {  # server mode -> the ErrorEvent kind of each failed call
    "timeout": "llm_timeout",
    "error500": "llm_http_status",
    "invalid_json": "llm_invalid_response",
    "drop": "llm_connection",
}


def llm_agent(server: LoopbackLLM, k: int = 1, **kw) -> LLMAgent:
    settings = LLMSettings(base_url=server.base_url, timeout=0.4, max_retries=1, backoff=0.0)
    return LLMAgent(k=k, client=LLMClient(settings, sleep=lambda s: None), **kw)


def run_episode(server: LoopbackLLM, path, max_ticks: int = 4, k: int = 1, facilitator=None) -> Session:
    world, name = load_scenario("two-rooms")
    session = Session(world, {"alice": llm_agent(server, k), "bob": PlannerAgent()}, seed=5, scenario=name,
                      max_ticks=max_ticks, mechanisms=[facilitator])
    RecordingWriter.attach(session, path)
    session.run()
    return session


def assert_reruns_exactly(session: Session, path) -> None:
    rerun = rerun_session(path)
    rerun.run()
    assert [e.to_dict() for e in rerun.events] == [e.to_dict() for e in session.events]


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_a_failing_endpoint_never_stops_the_episode(mode, tmp_path):
    path = tmp_path / f"{mode}.jsonl"
    with LoopbackLLM(mode, delay=2.0) as server:
        session = run_episode(server, path)
    assert session.finished and session.tick == 4
    errors = [e for e in session.events if isinstance(e, ErrorEvent)]
    # alice decides twice; each decision: two failed calls (one retry), then the planner's action
    assert [e.kind for e in errors] == [FAULTS[mode], FAULTS[mode], "llm_fallback"] * 2
    assert all(e.source == "alice" for e in errors)
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    assert len(calls) == 4 and all(c.error and c.response["fault"]["kind"] for c in calls)
    assert session.metrics()["llm_calls"] == 4 and session.metrics()["errors"] == 6
    # the fallback is the planner's move, so alice still heads for her gem
    steps = [e for e in session.events if isinstance(e, StepEvent)]
    assert steps[0].joint_action == {"alice": planner_first_action()}
    recording = load_recording(path)
    assert recording.complete and len([e for e in recording.events if e.type == "llm_call"]) == 4
    assert_reruns_exactly(session, path)


def planner_first_action() -> str:
    world, _ = load_scenario("two-rooms")
    session = Session(world, {"alice": PlannerAgent(), "bob": PlannerAgent()}, seed=5, max_ticks=1)
    session.run()
    return next(e for e in session.events if isinstance(e, StepEvent)).joint_action["alice"]


def test_illegal_proposals_fall_back_to_the_planner(tmp_path):
    # Without structured output the server answers the first enum entry of a schema it never
    # sees: it sends '{}', which fails validation, so every decision falls back.
    with LoopbackLLM("ok") as server:
        agent = llm_agent(server)
        agent.client = LLMClient(agent.client.settings.with_overrides(structured_output="none", repair_attempts=0))
        world, name = load_scenario("two-rooms")
        session = Session(world, {"alice": agent, "bob": PlannerAgent()}, seed=1, scenario=name, max_ticks=2)
        session.run()
    kinds = [e.kind for e in session.events if isinstance(e, ErrorEvent)]
    assert kinds == ["llm_invalid_answer", "llm_fallback"]
    assert "response_format" not in server.requests[0]


def test_a_healthy_endpoint_plays_and_replays(tmp_path):
    path = tmp_path / "ok.jsonl"
    with LoopbackLLM("ok", choose=lambda options, where: options[-1] if where.endswith("action") else options[0]) as server:
        session = run_episode(server, path, max_ticks=6, k=2)
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]
    steps = [e for e in session.events if isinstance(e, StepEvent)]
    alice_moves = [s.joint_action["alice"] for s in steps if "alice" in s.joint_action]
    legal_last = [world_legal[-1] for world_legal in legal_sequence(steps)]
    assert alice_moves == legal_last  # the model's (last legal) choice was taken each time
    tom = [e for e in session.events if e.type == "belief" and e.kind == "tom"]
    assert [t.data["source"] for t in tom] == ["model"] * 3
    assert list(tom[0].data["levels"]) == ["ToM_level1", "ToM_level2"]
    assert_reruns_exactly(session, path)


def legal_sequence(steps):
    world, _ = load_scenario("two-rooms")
    state = world.reset(5)
    out = []
    for step in steps:
        (agent, action), = step.joint_action.items()
        if agent == "alice":
            out.append(world.legal_actions(state, agent))
        state = world.step(state, {agent: action}).state
    return out


def test_the_prompt_carries_history_and_the_agent_own_goal_only():
    with LoopbackLLM("ok") as server:
        world, name = load_scenario("two-rooms")
        session = Session(world, {"alice": llm_agent(server, k=0), "bob": PlannerAgent()}, seed=0, max_ticks=3)
        session.run()
    prompts = [r["messages"] for r in server.requests]
    assert len(prompts) == 2
    system, user = prompts[1][0]["content"], prompts[1][1]["content"]
    assert "You are alice" in user and "collect gem1" in user  # after the static rules and format
    assert "Doors, Keys, and Gems" in system and '"action"' in system and "0 Level Theory of Mind" in system
    first_legal = world.legal_actions(world.reset(0), "alice")[0]  # the loopback model's choice
    assert f"- tick 0, alice: {first_legal}" in user and "- tick 1, bob: " in user  # inferred from observations
    assert "collect gem2" not in user and "wants" not in user  # others' goals are private
    assert "alice at (" in user and "bob at (" in user and "door1 locked" in user
    assert "Your legal actions now: " in user


def test_infer_actions_from_two_states():
    world, _ = load_scenario("two-rooms")
    s0 = world.reset(0)
    s1 = world.step(s0, {"alice": "down"}).state
    s2 = world.step(s1, {"bob": "left"}).state
    assert infer_actions(world, s0, s2) == [(0, "alice", "down"), (1, "bob", "left")]
    assert infer_actions(world, s2, s2) == []


def test_asynchronous_seats_return_pending_while_the_model_thinks(tmp_path):
    with LoopbackLLM("timeout", fail_first=1, delay=0.3) as server:
        settings = LLMSettings(base_url=server.base_url, timeout=5.0, max_retries=0)
        agent = LLMAgent(k=0, asynchronous=True, client=LLMClient(settings))
        world, name = load_scenario("two-rooms")
        session = Session(world, {"alice": agent, "bob": PlannerAgent()}, seed=0, max_ticks=2)
        statuses = []
        while not session.finished and len(statuses) < 100_000:
            status = session.advance()
            statuses.append(status)
            if status is TickStatus.WAITING:
                assert session.waiting_for() == ("alice",) and agent.thinking
                time.sleep(0.01)  # let the worker thread talk to the server
    assert session.finished and TickStatus.WAITING in statuses
    assert [e.type for e in session.events if e.type in ("llm_call", "step")][:2] == ["llm_call", "step"]
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]


def test_run_waits_for_asynchronous_seats_and_refuses_a_person(tmp_path):
    from agents.human.seat import HumanAgent

    with LoopbackLLM("ok", delay=0.2) as server:
        agent = LLMAgent(k=0, asynchronous=True, client=LLMClient(LLMSettings(base_url=server.base_url)))
        world, name = load_scenario("two-rooms")
        session = Session(world, {"alice": agent, "bob": PlannerAgent()}, seed=0, max_ticks=4)
        session.run()  # waits for the model's answers in the background instead of refusing
    assert session.finished and session.tick == 4
    assert len([e for e in session.events if e.type == "llm_call"]) == 2
    session = Session(world, {"alice": HumanAgent(), "bob": PlannerAgent()}, seed=0, max_ticks=4)
    with pytest.raises(RuntimeError, match="wait for input from outside"):
        session.run()


def test_facilitator_faults_mean_no_feedback(tmp_path):
    with LoopbackLLM("error500") as server:
        settings = LLMSettings(base_url=server.base_url, max_retries=0)
        facilitator = LLMFacilitator(client=LLMClient(settings))
        world, name = load_scenario("two-rooms")
        session = Session(world, {"alice": PlannerAgent(), "bob": PlannerAgent()}, seed=0,
                          mechanisms=[facilitator], max_ticks=2)
        session.run()
    assert session.finished and session.metrics()["feedback"] == 0
    kinds = [e.kind for e in session.events if isinstance(e, ErrorEvent)]
    assert kinds == ["llm_http_status", "llm_fallback"] * 2


def test_facilitator_feedback_reaches_the_agent_and_replays(tmp_path):
    path = tmp_path / "facilitated.jsonl"
    def choose(options, where):
        return options[0]  # the first candidate, never "No feedback"

    with LoopbackLLM("ok", choose=choose) as server:
        settings = LLMSettings(base_url=server.base_url)
        facilitator = LLMFacilitator(client=LLMClient(settings))
        world, name = load_scenario("two-rooms")
        options = [c.label for c in feedback_options(adapter_for(world), world.reset(0))]
        session = Session(world, {"alice": PlannerAgent(), "bob": PlannerAgent()}, seed=0, scenario=name,
                          mechanisms=[facilitator], max_ticks=4)
        RecordingWriter.attach(session, path)
        session.run()
    prompt = server.requests[0]["messages"][0]["content"]
    assert "Your Task as a Social Facilitator" in prompt and "- No feedback" in prompt
    assert all(f"- {o}" in prompt for o in options)
    feedback = [e for e in session.events if e.type == "feedback"]
    assert feedback and feedback[0].facilitator == "llm" and feedback[0].target == "alice"
    assert feedback[0].feedback == {"type": "unlock", "agent": "alice", "door": "door1", "for": "bob"}
    statuses = [e.status for e in session.events if e.type == "feedback_status"]
    assert statuses[0] == "accepted"
    assert len(server.requests) == 1  # no new question while alice carries the feedback out
    assert_reruns_exactly(session, path)


def test_a_diverging_rerun_is_reported():
    with LoopbackLLM("ok") as server:
        world, _ = load_scenario("two-rooms")
        session = Session(world, {"alice": llm_agent(server), "bob": PlannerAgent()}, seed=0, max_ticks=2)
        session.run()
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    transport = TranscriptTransport(calls)
    with pytest.raises(TranscriptMismatch, match="prompt differs"):
        transport.send({"messages": [{"role": "user", "content": "something else"}]}, agent="alice", module="planning")
    with pytest.raises(TranscriptMismatch, match="no further model call"):
        transport.send({"messages": []}, agent="bob", module="planning")


def test_an_embedded_model_that_cannot_start_is_a_recorded_fault(tmp_path):
    settings = LLMSettings(embedded={"model_path": str(tmp_path / "missing.gguf")})
    world, _ = load_scenario("two-rooms")
    agent = LLMAgent(k=0, client=LLMClient(settings))
    session = Session(world, {"alice": agent, "bob": PlannerAgent()}, seed=0, max_ticks=2)
    session.run()
    errors = [e for e in session.events if isinstance(e, ErrorEvent)]
    assert [e.kind for e in errors] == ["llm_unavailable", "llm_fallback"]
    assert "missing.gguf" in errors[0].message and "is not a file" in errors[0].message
