"""An LLM seat in the window: the real embedded model answers in the session's thread while the
window shows the seat as thinking and keeps running."""

from __future__ import annotations

import os
import time

import pytest

from agents.llm.server import embedded_missing
from sim.events import LLMCallEvent, StepEvent

from ui_support import make_window, plan


@pytest.mark.slow
@pytest.mark.skipif(embedded_missing() is not None and not os.environ.get("OPENAI_BASE_URL"),
                    reason=f"no model to answer: {embedded_missing()}")
def test_an_llm_seat_thinks_without_freezing_the_window(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(plan("two-rooms", {"alice": "llm", "bob": "planner"}), playing=False)
        window.step_forward()  # one decision: alice's
        # The window's event loop must keep turning while the model thinks: count the turns in
        # which the window itself (the label and the view's overlay) shows alice as thinking.
        turns_while_thinking, end = 0, time.monotonic() + 600
        while not any(isinstance(e, StepEvent) for e in window.model.timeline.events):
            assert time.monotonic() < end, "the LLM seat never answered"
            qtbot.wait(10)
            if "alice" in window.thinking_label.text() and "alice" in window.view.overlays.thinking:
                turns_while_thinking += 1
        assert turns_while_thinking >= 3
        assert any(isinstance(e, LLMCallEvent) and e.agent == "alice" for e in window.model.timeline.events)
        assert window.model.timeline.joint_action(0).keys() == {"alice"}
        qtbot.waitUntil(lambda: not window.thinking_label.text(), timeout=10_000)
    finally:
        window.shutdown()
