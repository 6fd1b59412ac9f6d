"""Team formation in the app (real Qt, offscreen): the alignment matrix, the team timeline, the
stability indicators and the ToM-level badges follow a live episode step by step, with the
``teams`` mechanism on a five-agent grid world (tests/teams_lanes.py); and a person plays one
seat of a team episode, shown and scored like the others."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import QPoint, Qt
from PyQt6.QtGui import QHelpEvent
from PyQt6.QtTest import QTest
from PyQt6.QtWidgets import QApplication, QToolTip

from sim.events import BeliefEvent, TeamEvent
from sim.recording import load_recording
from tests import teams_lanes
from tests.teams_lanes import LanesWorld, steady
from tests.ui_support import close_to, make_window, pixel
from ui.panels.teams import (
    BELOW_EPS,
    IDLE_COLOR,
    TEAM_PALETTE,
    AlignmentPanel,
    TeamStabilityPanel,
    TeamTimelinePanel,
    level_badges,
    phi_color,
)
from ui.render.base import Overlays
from ui.session.catalog import SessionPlan

SEATS = {"a": "lanes-predictor:level=2", "b": "lanes-predictor", "c": "lanes-predictor:switch=12",
         "d": "lanes-predictor:style=neutral,level=0", "e": "lanes-predictor:style=opposite,level=0"}
BLUE = TEAM_PALETTE[0]


@pytest.fixture(autouse=True)
def lanes_plugin():
    with teams_lanes.installed():
        yield


def step_to(qtbot, window, k: int) -> None:
    """Step the paused live episode to step ``k`` with the Step action, as a person would."""
    while window.model.timeline.num_steps < k:
        before = window.model.timeline.num_steps
        window.step_forward()
        qtbot.waitUntil(lambda before=before: window.model.timeline.num_steps > before, timeout=10_000)
    qtbot.waitUntil(lambda: window.model.cursor == k, timeout=5_000)
    window.panels.refresh(force=True)


def snapshot(window, kind: str, tick: int) -> dict:
    belief = window.model.timeline.belief_at("teams", kind, tick)
    assert belief is not None and belief.tick == tick
    return belief.data


def test_matrix_timeline_indicators_and_badges_follow_a_live_team_episode(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=LanesWorld(), scenario="five-lanes", seats=SEATS,
                                         mechanisms=("teams:window=1",)), playing=False)
        step_to(qtbot, window, 2)
        matrix_panel = window.panels.panel("Alignment")
        timeline_panel = window.panels.panel("Teams")
        stability = window.panels.panel("Team stability")
        assert isinstance(matrix_panel, AlignmentPanel) and isinstance(timeline_panel, TeamTimelinePanel)
        assert isinstance(stability, TeamStabilityPanel)
        view = matrix_panel.view
        # after two steps no prediction has been checked yet: every off-diagonal cell is unknown
        assert view.agents == list("abcde")
        assert {view.cell_text(i, j) for i in range(5) for j in range(5) if i != j} == {"?"}
        assert view.below_eps() == [] and view.theta_text() == "misaligned team pairs: none scored yet (theta 30%)"
        assert "unknown" in view.tooltip_for(0, 1)
        assert timeline_panel.memberships() == dict.fromkeys("abcde", "team")
        assert timeline_panel.reasons() == ["1. at the start (teams): initial team: every agent "
                                            "(Algorithm 1 starts from T = N)"]

        # step 3: the first predictions are scored; d (neutral) and e (opposite) fall below eps
        step_to(qtbot, window, 3)
        data = snapshot(window, "alignment_matrix", 3)
        assert [[view.cell_text(i, j) for j in range(5)] for i in range(5)] == [
            ["" if i == j else ("?" if v is None else f"{v:+.2f}") for j, v in enumerate(row)]
            for i, row in enumerate(data["phi"])]
        assert view.cell_text(0, 1) == "+1.00" and view.cell_text(3, 0) == "+0.00" and view.cell_text(4, 2) == "-1.00"
        assert sorted(view.below_eps()) == sorted((p, q) for p in "de" for q in "abcde" if q != p)
        assert view.misaligned == pytest.approx(0.4) and view.theta == 0.3 and view.eps == 0.2
        assert view.theta_text() == "misaligned team pairs 40% (theta 30%): over theta"
        assert view.tooltip_for(0, 1) == "a about b: phi +1.000 from 1 sample\nat or above eps 0.2"
        assert "below eps 0.2" in view.tooltip_for(4, 0)
        assert stability.value("phase") == "adapting" and stability.value("misaligned") == "40% (theta 30%)"
        assert stability.value("welfare") == f"{snapshot(window, 'team_state', 3)['welfare']:.3f}"
        # the tooltip a person gets by hovering a cell
        center = view.cell_rect(0, 1).center()
        QApplication.sendEvent(view, QHelpEvent(QHelpEvent.Type.ToolTip, QPoint(int(center.x()), int(center.y())),
                                                view.mapToGlobal(QPoint(int(center.x()), int(center.y())))))
        assert QToolTip.text() == view.tooltip_for(0, 1)

        # step 4: the team re-forms after the adaptation round; d and e are left out
        step_to(qtbot, window, 5)
        assert timeline_panel.memberships() == {"a": "team", "b": "team", "c": "team", "d": None, "e": None}
        assert timeline_panel.segments("d") == [(0, 4, "team"), (4, 5, None)]
        assert timeline_panel.segments("a") == [(0, 4, "team"), (4, 5, "team")]
        assert timeline_panel.reasons()[1].startswith("2. after step 4 (teams): re-formed: 40% of the team's "
                                                      "ordered pairs had phi < eps 0.2 (> theta 30%)")
        assert timeline_panel.monitor_series() == [(0, None, "monitoring"), (1, None, "monitoring"), (2, None, "monitoring"),
                                                   (3, 0.4, "adapting"), (4, 0.4, "monitoring"),
                                                   (5, 0.0, "monitoring")]
        assert view.team == ["a", "b", "c"] and view.misaligned == 0.0
        assert view.theta_text() == "misaligned team pairs 0% (theta 30%)"
        assert stability.value("stable") == "yes" and stability.value("welfare") == "3.000"
        assert stability.value("phase") == "monitoring" and stability.value("solver") == "exact, optimal"
        rows = {r[0]: r for r in stability.member_rows()}
        assert rows["a"] == ["a", "team", "2", "+1.00", "+1.00", "1.00"]
        assert rows["d"] == ["d", "idle", "0", "—", "+1.00", "0.00"]
        assert rows["e"] == ["e", "idle", "0", "—", "+1.00", "0.00"]
        assert any(line.strip().startswith("4  ⚑ teams: team: a, b, c — re-formed: 40%")
                   for line in window.panels.log.lines())
        lifetimes = stability.lifetime_rows()
        assert [r[:3] for r in lifetimes] == [["2", "a, b, c", "step 4"], ["1", "a, b, c, d, e", "start"]]
        assert lifetimes[0][4].startswith("re-formed: 40%")

        # what the panels paint: cell colours, the outline of a cell below eps, the theta bar
        image = view.grab().toImage()
        ratio = image.devicePixelRatio()
        ab = view.cell_rect(0, 1)
        assert close_to(pixel(image, (ab.left() + 5) * ratio, (ab.top() + 5) * ratio), phi_color(1.0).getRgb()[:3])
        ea = view.cell_rect(4, 0)
        assert close_to(pixel(image, (ea.left() + 2.5) * ratio, ea.center().y() * ratio), BELOW_EPS.getRgb()[:3])
        assert not close_to(pixel(image, (ab.left() + 2.5) * ratio, ab.center().y() * ratio), BELOW_EPS.getRgb()[:3])

        # ToM-level badges on the map, in the team's colour (grey for the idle agents)
        assert window.view.overlays.badges == {"a": ("k2", BLUE), "b": ("k1", BLUE), "c": ("k1", BLUE),
                                               "d": ("k0", IDLE_COLOR), "e": ("k0", IDLE_COLOR)}
        window.view.render_frame()
        renderer = window.view.renderer
        assert len(renderer.badge_rects) == 5
        badge = renderer.badge_rects[0]
        assert tuple(window.view.surface.get_at((badge.x + 3, badge.centery)))[:3] == BLUE
        anchor = renderer.agent_anchor(window.model.timeline.state_at(5), "a")
        assert badge.left > anchor[0] and abs(badge.centery - anchor[1]) <= badge.height
        # seen through e's eyes (fog of war: e sees its lane and d's), no badge gives away a, b or c
        window.model.set_viewer("e")
        window.view.render_frame()
        assert renderer.drawn_agents == ["d", "e"] and len(renderer.badge_rects) == 2
        window.model.set_viewer("auto")

        # c turns round at tick 12 unannounced: its teammates' predictions fail and the team re-forms
        step_to(qtbot, window, 15)
        team_events = [e for e in window.model.timeline.events if isinstance(e, TeamEvent)]
        assert [e.tick for e in team_events] == [0, 4, 14]
        assert timeline_panel.memberships() == {"a": "team", "b": "team", "c": None, "d": "team", "e": None}
        assert timeline_panel.segments("c") == [(0, 4, "team"), (4, 14, "team"), (14, 15, None)]
        assert len(timeline_panel.reasons()) == 3 and "chose a, b, d" in timeline_panel.reasons()[2]
        assert view.cell_text(0, 2) == "-1.00" and ("a", "c") in view.below_eps()
        assert view.team == ["a", "b", "d"]
        assert level_badges(window.model.timeline, 15)["c"] == ("k1", IDLE_COLOR)

        # seeking back shows the matrix and the timeline as they were
        window.model.seek(5)
        window.panels.refresh(force=True)
        assert view.cell_text(0, 2) == "+1.00" and view.team == ["a", "b", "c"]
        assert len(timeline_panel.reasons()) == 2
        paints = view.paints
        window.panels.refresh(force=True)  # nothing changed: the matrix is not recomputed
        assert view.paints == paints
        window.stop_session()
    finally:
        window.shutdown()


def test_a_person_plays_a_seat_of_the_team_and_is_shown_and_scored_like_the_others(qtbot, tmp_path):
    seats = dict(SEATS, d="human")
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=LanesWorld(), scenario="five-lanes", seats=seats,
                                         mechanisms=("teams:window=1",)), playing=True)
        messages: list[str] = []
        window.statusBar().messageChanged.connect(messages.append)
        keys = {"left": Qt.Key.Key_Left, "right": Qt.Key.Key_Right}
        while window.model.timeline.num_steps < 16:
            qtbot.waitUntil(lambda: window.model.human_to_move() == "d", timeout=10_000)
            before = window.model.timeline.num_steps
            window.focus_view()
            QTest.keyClick(window.view, keys[steady("d", before)])  # d keeps to its schedule
            qtbot.waitUntil(lambda before=before: window.model.timeline.num_steps > before, timeout=10_000)
            qtbot.waitUntil(lambda: window.model.cursor == window.model.timeline.num_steps, timeout=5_000)
            window.panels.refresh(force=True)
            if before + 1 == 3:
                # the others predict the person; the person predicts nobody
                view = window.panels.panel("Alignment").view
                assert [view.cell_text(i, 3) for i in range(5)] == ["+1.00", "+1.00", "+1.00", "", "-1.00"]
                assert [view.cell_text(3, j) for j in range(5)] == ["?", "?", "?", "", "?"]
                assert "d (you)" in view._row_label("d")
                stability = window.panels.panel("Team stability")
                row = next(r for r in stability.member_rows() if r[0] == "d (you)")
                # B_d(T) is unknown (no predictions), how well the team predicts d is scored: (1 + 1 + 1 - 1) / 4
                assert row == ["d (you)", "team", "", "—", "+0.50", "—"]
                assert not stability.you.isHidden() and stability.you.text() == \
                    "You play <b>d</b>: in <b>team</b> with a, b, c, e."
                timeline = window.panels.panel("Teams")
                assert timeline.humans == ["d"] and timeline._label("d") == "d (you)"
        # c turned round at tick 12: the team re-forms at 14; the person, predictable to a and b, stays in
        changes = [e for e in window.model.timeline.events if isinstance(e, TeamEvent)]
        assert [(e.tick, e.teams) for e in changes] == [(0, {"team": list("abcde")}), (14, {"team": ["a", "b", "d"]})]
        stability = window.panels.panel("Team stability")
        row = next(r for r in stability.member_rows() if r[0] == "d (you)")
        assert row[:2] == ["d (you)", "team"] and row[4] == "+1.00"  # a and b predict d exactly
        assert stability.you.text() == "You play <b>d</b>: in <b>team</b> with a, b."
        assert window.panels.panel("Teams").segments("d") == [(0, 14, "team"), (14, 16, "team")]
        # the person was told that the team changed around them, with the mechanism's reason
        told = [m for m in messages if m.startswith("d: you are now")]
        assert told == [f"d: you are now in team with a, b — {changes[1].reason}"]
        window.stop_session()
        recording = load_recording(window.model.recording_path)
        assert recording.header["seats"]["d"]["kind"] == "human"
        assert any(isinstance(e, BeliefEvent) and e.kind == "alignment_matrix" for e in recording.events)
    finally:
        window.shutdown()


def test_the_panels_open_a_recorded_team_episode_and_show_a_mechanism_without_alignment(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=LanesWorld(), scenario="five-lanes", seats=SEATS,
                                         mechanisms=("teams:window=1", "random-teams:size=2")), playing=True)
        qtbot.waitUntil(lambda: window.model.timeline.outcome is not None, timeout=30_000)
        window.stop_session()
        path = window.model.recording_path
        assert window.open_recording(path)
        window.model.seek(6)
        window.panels.refresh(force=True)
        panel = window.panels.panel("Alignment")
        # two team mechanisms: a choice of which one is shown
        assert [panel.owner.box.itemText(i) for i in range(panel.owner.box.count())] == ["random-teams", "teams"]
        panel.owner.box.setCurrentText("random-teams")
        assert panel.view.caption.startswith("random-teams, after step 6")
        assert len(panel.view.team) == 2
        panel.owner.box.setCurrentText("teams")
        assert panel.view.team == ["a", "b", "c"]
        assert Overlays().badges == {}
    finally:
        window.shutdown()


def test_the_panels_name_the_printed_counter_and_scale_its_plot(qtbot, tmp_path):
    """counter=literal: the monitor's value is Algorithm 1's c / |T|, which passes 1; the matrix's
    bar, the stability indicator and the timeline say so, and the timeline's plot grows to hold it."""
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=LanesWorld(), scenario="five-lanes", seats=SEATS,
                                         mechanisms=("teams:window=1,counter=literal",)), playing=False)
        step_to(qtbot, window, 3)  # d's and e's rows below eps: c = 8 pairs, c / |T| = 8 / 5
        view, stability = window.panels.panel("Alignment").view, window.panels.panel("Team stability")
        assert view.theta_text() == "c / |T| 1.60 (theta 0.3): over theta"
        assert stability.value("misaligned") == "1.60 = c / |T| (theta 0.3)" and stability.value("phase") == "adapting"
        step_to(qtbot, window, 5)  # c = 16 after the adaptation round: re-formed, and c starts again
        timeline_panel = window.panels.panel("Teams")
        assert timeline_panel.monitor_series()[3:] == [(3, 1.6, "adapting"), (4, 3.2, "monitoring"),
                                                       (5, 0.0, "monitoring")]
        assert timeline_panel.reasons()[1].startswith("2. after step 4 (teams): re-formed: c / |T| = 3.20")
        assert timeline_panel.counter == "literal" and not timeline_panel.grab().toImage().isNull()
        assert view.theta_text() == "c / |T| 0.00 (theta 0.3)"
        window.stop_session()
    finally:
        window.shutdown()
