"""The LLM usage panel: tokens per agent and module, in the window, from a recorded LLM episode
played against a real OpenAI-compatible endpoint on loopback."""

from __future__ import annotations

from llm_loopback import LoopbackLLM
from ui_support import make_window

from agents.dkg.agents import PlannerAgent
from agents.llm.agent import LLMAgent
from agents.llm.client import LLMClient
from agents.llm.config import LLMSettings
from sim.events import LLMCallEvent
from sim.recording import RecordingWriter, load_recording
from sim.registry import load_scenario
from sim.session import Session
from ui.panels.usage import llm_usage


def record_llm_episode(path, max_ticks: int = 6) -> None:
    with LoopbackLLM("ok") as server:
        settings = LLMSettings(base_url=server.base_url, timeout=5, max_retries=0)
        agent = LLMAgent(k=1, client=LLMClient(settings))
        world, name = load_scenario("two-rooms")
        session = Session(world, {"alice": agent, "bob": PlannerAgent()}, seed=0, scenario=name,
                          max_ticks=max_ticks)
        RecordingWriter.attach(session, path)
        session.run()


def test_usage_rows_add_up_per_agent_and_module():
    calls = [LLMCallEvent(tick=0, agent="alice", module="planning", request={}, response={},
                          prompt_tokens=100, completion_tokens=20, seconds=1.0),
             LLMCallEvent(tick=2, agent="alice", module="planning", request={}, response=None,
                          seconds=0.5, error="timeout"),
             LLMCallEvent(tick=2, agent="facilitator", module="feedback", request={}, response={},
                          prompt_tokens=300, completion_tokens=5, seconds=2.0)]
    assert llm_usage(calls) == [("alice", "planning", 2, 100, 20, 1, 1.5),
                                ("facilitator", "feedback", 1, 300, 5, 0, 2.0),
                                ("all", "", 3, 400, 25, 1, 3.5)]


def test_the_window_shows_tokens_as_of_the_shown_step(qtbot, tmp_path):
    path = tmp_path / "llm.jsonl"
    record_llm_episode(path)
    calls = [e for e in load_recording(path).events if isinstance(e, LLMCallEvent)]
    assert len(calls) == 3 and all(c.prompt_tokens > 0 for c in calls)

    window = make_window(qtbot, tmp_path)
    try:
        assert window.open_recording(path)
        window.model.seek(window.model.timeline.num_steps)
        window.panels.refresh(force=True)
        total = (sum(c.prompt_tokens for c in calls), sum(c.completion_tokens for c in calls))
        assert window.panels.usage.totals() == total
        assert window.tokens_label.text() == f"LLM tokens {total[0]}+{total[1]}"
        assert window.panels.usage.item(0, 0).text() == "alice" and window.panels.usage.item(0, 2).text() == "3"

        window.model.seek(1)  # only alice's first decision has happened
        window.panels.refresh(force=True)
        assert window.panels.usage.totals() == (calls[0].prompt_tokens, calls[0].completion_tokens)
    finally:
        window.shutdown()
