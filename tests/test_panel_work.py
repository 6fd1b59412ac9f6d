"""A panel's refresh reads only what is new: the events it visits when the cursor moves one step
are as many at step 10 as at step 10,000 of a long log (counted, never timed)."""

from __future__ import annotations

import pytest

from sim.events import BeliefEvent, FeedbackEvent, FeedbackStatusEvent, LLMCallEvent, MessageEvent
from sim.registry import load_scenario
from ui.session.timeline import LiveTimeline

STEPS = 10_000


@pytest.fixture(scope="module")
def long_timeline():
    """10,000 steps, each with a message, a model call, a suggestion and its answer, and a belief."""
    world, name = load_scenario("two-rooms")
    timeline = LiveTimeline(world, {"seed": 0, "scenario": name}, world.reset(0))
    a, b = world.agents[:2]
    for t in range(1, STEPS + 1):
        timeline.append([
            MessageEvent(tick=t, sender=a, recipients=[b], text=f"hello {t}", words=2),
            LLMCallEvent(tick=t, agent=a, module="planning", request={}, response={}, prompt_tokens=10,
                         completion_tokens=2),
            FeedbackEvent(tick=t, feedback_id=t, facilitator="f", target=b, feedback={"n": t % 3},
                          text=f"do {t % 3}", explanation=""),
            FeedbackStatusEvent(tick=t, feedback_id=t, agent=b, status="ignored" if t % 2 else "completed"),
            BeliefEvent(tick=t, owner="f", kind="particles", data={"agent": a if t % 2 else b, "n": t}),
        ], None)
    return timeline


def work_at(panel, timeline, step):
    panel.show_at(timeline, step - 1)
    panel.show_at(timeline, step)
    return panel.visited


@pytest.mark.parametrize("make", ["messages", "usage", "feedback"])
def test_a_refresh_costs_the_same_at_step_10_and_10000(qapp, long_timeline, make):
    from ui.panels.common import FeedbackHistoryPanel, MessageLogPanel
    from ui.panels.usage import LLMUsagePanel

    panel = {"messages": MessageLogPanel, "usage": LLMUsagePanel, "feedback": FeedbackHistoryPanel}[make]()
    early = work_at(panel, long_timeline, 10)  # playback: the panel follows the cursor one step on
    late = work_at(panel, long_timeline, STEPS)
    assert early == late and 0 < late <= 5  # the new events, and the rows folded again (at most two)
    assert work_at(panel, long_timeline, STEPS) == late  # and again after looking back (read once)


def test_the_panels_show_what_a_full_read_shows(qapp, long_timeline):
    from ui.panels.common import FeedbackHistoryPanel, MessageLogPanel
    from ui.panels.usage import LLMUsagePanel, llm_usage

    messages, usage, feedback = MessageLogPanel(), LLMUsagePanel(), FeedbackHistoryPanel()
    for step in (0, 5, 6, 40, 12, 13):
        for panel in (messages, usage, feedback):
            panel.show_at(long_timeline, step)
        visible = long_timeline.log[:long_timeline.log_count(step)]
        assert messages.texts() == [e.text for e in visible if isinstance(e, MessageEvent)]
        assert usage.rows == llm_usage([e for e in visible if isinstance(e, LLMCallEvent)])
        statuses = {r.event.feedback_id: r.status_at(step) for r in long_timeline.feedback_until(step)}
        assert feedback.statuses() == statuses
        assert messages.rowCount() == len(messages.texts()) and feedback.rowCount() == len(feedback.rows_shown)
        fresh = FeedbackHistoryPanel()
        fresh.show_at(long_timeline, step)
        assert feedback.rows_shown == fresh.rows_shown and len(fresh.rows_shown) == step


def test_latest_beliefs_by_agent_match_a_full_read(long_timeline):
    for tick in (0, 1, 2, 10, 9_999, STEPS):
        latest: dict[str, dict] = {}
        for event in long_timeline.belief_log["particles"]:
            if event.tick <= tick:
                latest[str(event.data.get("agent", event.owner))] = dict(event.data)
        assert long_timeline.latest_by_subject("particles", tick) == tuple(latest.values())
