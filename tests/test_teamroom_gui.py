"""The team room in the desktop app (real Qt, offscreen): the scenario list offers it with the
scripted minds and the teams mechanism, a live episode runs to its end in the room's view, and
the Teams panel gets the mechanism's team events."""

import pytest
from ui_support import make_window, plan, wait_drawn, wait_finished

from sim.events import TeamEvent

pytest.importorskip("pytestqt")


def test_a_live_room_episode_in_the_app(qtbot, tmp_path):
    from ui.teamroom.renderer import TeamRoomRenderer

    window = make_window(qtbot, tmp_path)
    try:
        window.fill_setup()
        assert window.setup.select_scenario("number-tools")
        assert set(window.setup.seats().values()) == {"room-scripted"}
        window.start_session(plan("number-tools", ["room-scripted"] * 5,
                                  mechanisms=("teams:round_steps=2,theta=0.2,adaptation=0",)))
        wait_finished(qtbot, window, timeout=60_000)
        assert isinstance(window.renderer, TeamRoomRenderer)
        teams = [e for e in window.model.timeline.events if isinstance(e, TeamEvent)]
        assert len(teams) == 2 and "engineer4" not in teams[-1].teams["team"]
        assert window.model.timeline.outcome.outcome["pass_at_1"] == 1.0
        window.panels.refresh(force=True)
        wait_drawn(qtbot, window)  # the view draws the last state after the batch that ended the episode
        assert window.renderer.cards["engineer4"][1] == "sat out"
        assert "pass@1 100%" in window.score_label.text()
    finally:
        window.stop_session()
