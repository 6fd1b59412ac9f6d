"""The desktop app driven through its real window (pytest-qt, offscreen platform)."""

from __future__ import annotations

import sys

import pytest
from PyQt6.QtCore import QMimeData, QPointF, Qt, QUrl
from PyQt6.QtGui import QDropEvent
from PyQt6.QtTest import QTest
from ui_support import close_to, make_window, open_window, pixel, plan, play_human_until, wait_finished

from sim.events import StepEvent
from sim.recording import load_recording
from sim.registry import load_scenario
from sim.replay import Replay
from ui import errors
from ui.render import sprites
from ui.session.timeline import LiveTimeline, ReplayTimeline
from ui.settings import AppSettings
from ui.toast import episode_summary


@pytest.fixture
def window(qtbot, tmp_path):
    with open_window(qtbot, tmp_path) as w:
        yield w


def finished_recording(qtbot, window, seats=("planner", "planner"), seed=0):
    window.start_session(plan("two-rooms", list(seats), seed=seed))
    wait_finished(qtbot, window)
    return window.model.recording_path


def test_a_scenario_plays_by_itself_and_is_recorded(qtbot, window):
    path = finished_recording(qtbot, window)
    timeline = window.model.timeline
    assert isinstance(timeline, LiveTimeline)
    assert timeline.outcome.outcome["success"] is True
    assert window.model.cursor == timeline.num_steps == 25  # the view followed the episode to its end
    assert path is not None and path.parent == window.settings.recordings_dir
    recording = load_recording(path)
    assert recording.complete and recording.footer["outcome"]["success"] is True
    assert len(recording.steps) == timeline.num_steps
    assert "gems held 2/2" in window.score_label.text()
    assert window.panels.log.model_.count > 0
    assert str(path) in window.settings.recent_files()[0]


def test_a_human_moves_with_key_presses_and_the_game_waits_for_them(qtbot, window):
    window.start_session(plan("two-rooms", {"alice": "human", "bob": "planner"}))
    qtbot.waitUntil(lambda: window.model.human_to_move() == "alice")
    assert window.view.overlays.human == "alice"
    assert set(window.view.overlays.legal) == {"down", "right", "wait"}  # highlighted on the map
    assert window.action_bar.isVisible() and "Your turn, alice" in window.action_bar.text()
    qtbot.wait(300)
    assert window.model.timeline.num_steps == 0  # nobody moves while the human thinks

    QTest.keyClick(window.view, Qt.Key.Key_Up)  # a wall: nothing happens
    qtbot.wait(200)
    assert window.model.timeline.num_steps == 0
    QTest.keyClick(window.view, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 2)  # alice moved, then bob (planner)
    steps = [e for e in window.model.timeline.events if isinstance(e, StepEvent)]
    assert steps[0].joint_action == {"alice": "down"}
    assert "bob" in steps[1].joint_action
    qtbot.waitUntil(lambda: window.model.human_to_move() == "alice")
    QTest.keyClick(window.view, Qt.Key.Key_D)  # WASD works too
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 3)
    assert window.model.timeline.joint_action(2) == {"alice": "right"}
    world = window.model.timeline.world
    assert world.rc(window.model.timeline.state_at(3).agent_cells[0]) == (2, 2)


def test_a_human_can_play_a_whole_episode(qtbot, window):
    window.start_session(plan("two-rooms", {"alice": "human", "bob": "planner"}))
    play_human_until(qtbot, window, "alice", lambda: window.model.timeline.outcome is not None)
    assert window.model.timeline.outcome.outcome["success"] is True


def test_reopen_a_recording_and_seek_backwards(qtbot, window):
    path = finished_recording(qtbot, window)
    live = window.model.timeline
    live_states = [live.state_at(k) for k in range(live.num_steps + 1)]
    assert window.open_recording(path)
    timeline = window.model.timeline
    assert isinstance(timeline, ReplayTimeline) and timeline.num_steps == len(live_states) - 1
    assert window.model.cursor == 0 and "replay" in window.mode_label.text()

    window.model.seek_end()
    QTest.keyClick(window.view, Qt.Key.Key_J)  # step back
    assert window.model.cursor == timeline.num_steps - 1
    QTest.keyClick(window.view, Qt.Key.Key_PageUp)  # 10 back
    assert window.model.cursor == timeline.num_steps - 11
    QTest.keyClick(window.view, Qt.Key.Key_Home)
    assert window.model.cursor == 0
    QTest.keyClick(window.view, Qt.Key.Key_L)  # step forward
    assert window.model.cursor == 1
    for k in (20, 3, 17, 0, 25):
        window.playback.slider.setValue(k)  # the scrubber
        assert window.model.cursor == k
        assert window.view.state == live_states[k]
    window.panels.refresh()
    assert window.panels.log.model_.count == timeline.log_count(25)
    window.model.seek(4)
    window.panels.refresh()
    assert window.panels.log.model_.count == timeline.log_count(4) < timeline.log_count(25)


def test_replay_plays_at_its_speed(qtbot, window, monkeypatch):
    path = finished_recording(qtbot, window)
    window.open_recording(path)
    clock = [1000.0]  # the playback clock, moved by hand: steps follow elapsed time at the chosen speed
    monkeypatch.setattr("ui.session.controllers.time.monotonic", lambda: clock[0])
    window.clock.timer.setInterval(10**6)  # only the ticks below advance the cursor
    window.playback.set_speed(8.0)
    QTest.keyClick(window.view, Qt.Key.Key_K)  # play
    assert window.model.playing and window.model.cursor == 0
    clock[0] += 0.5
    window.clock.tick()
    assert window.model.cursor == 4  # 0.5 s at 8 steps/s
    clock[0] += 0.1
    window.clock.tick()
    assert window.model.cursor == 4  # 0.8 of a step owed: not yet
    clock[0] += 0.025
    window.clock.tick()
    assert window.model.cursor == 5
    QTest.keyClick(window.view, Qt.Key.Key_BracketRight)  # faster: 16 steps/s
    clock[0] += 0.25
    window.clock.tick()
    assert window.model.cursor == 9
    clock[0] += 100
    window.clock.tick()
    assert window.model.cursor == window.model.timeline.num_steps and not window.model.playing  # stops at the end


def test_take_over_from_a_replayed_step_with_a_human_seat(qtbot, window):
    path = finished_recording(qtbot, window)
    window.open_recording(path)
    replay = Replay(str(path))
    window.model.seek(6)
    QTest.keyClick(window.view, Qt.Key.Key_T)  # take over from here
    assert window.setup.takeover_step == 6 and window.setup_dock.isVisible()
    # a seat shows only the parameters chosen and not at their default (planner: compliance=1.0 is the default)
    assert window.setup.seats() == {"alice": "planner", "bob": "planner"}
    window.setup.set_seat("alice", "human")
    QTest.mouseClick(window.setup.start_button, Qt.MouseButton.LeftButton)
    timeline = window.model.timeline
    assert isinstance(timeline, LiveTimeline)
    assert timeline.num_steps >= 6
    assert timeline.world.state_hash(timeline.state_at(6)) == replay.world.state_hash(replay.state_at(6))
    assert window.setup.takeover_step is None
    qtbot.waitUntil(lambda: window.model.human_to_move() == "alice")  # step 6 is alice's turn
    QTest.keyClick(window.view, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: timeline.num_steps >= 8)
    assert timeline.joint_action(6) == {"alice": "wait"}
    assert "bob" in timeline.joint_action(7)
    window.stop_session()
    recording = load_recording(window.model.recording_path)
    assert len(recording.header["prefix"]) == 6
    assert recording.header["seats"]["alice"]["kind"] == "human"
    assert Replay(recording).num_steps >= 8  # the new file replays from the start through the take-over


def test_drag_and_drop_opens_a_recording_and_recent_files_remember_it(qtbot, window, tmp_path):
    path = finished_recording(qtbot, window)
    window.close_episode()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    drop = QDropEvent(QPointF(100, 100), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    window.dropEvent(drop)  # opens in the background: the window keeps running meanwhile
    qtbot.waitUntil(lambda: isinstance(window.model.timeline, ReplayTimeline))
    assert window.model.timeline.num_steps == 25
    again = AppSettings.at(tmp_path / "settings.ini")
    assert again.recent_files()[0] == str(path.resolve())


def test_a_broken_recording_is_reported_not_fatal(qtbot, window, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not a recording\n")
    assert window.open_recording(bad) is False
    assert "not a ToM Arena recording" in window.statusBar().currentMessage()
    assert window.model.timeline is None


def test_the_world_view_draws_walls_floor_and_agents(qtbot, window):
    window.start_session(plan("two-rooms", ["human", "human"]))  # nobody moves: a still picture
    qtbot.waitUntil(lambda: window.view.frames_drawn > 0)
    image = window.view.grab().toImage()
    renderer = window.renderer
    t = renderer.tile
    assert t >= 24
    wall = renderer.cell_rect(0, 0)
    assert close_to(pixel(image, wall.x + t * 0.3, wall.y + t * 0.25), sprites.WALL)
    floor = renderer.cell_rect(1, 3)  # not next to alice (her moves are highlighted)
    assert close_to(pixel(image, floor.x + t * 0.5, floor.y + t * 0.5), sprites.FLOOR)
    for a, agent in enumerate(("alice", "bob")):
        x, y = renderer.agent_point(window.model.timeline.state_at(0), a)
        assert close_to(pixel(image, x + t * 0.5, y + t * 0.30), sprites.agent_color(a)), agent
    door = renderer.cell_rect(2, 4)
    assert close_to(pixel(image, door.x + t * 0.2, door.y + t * 0.8), sprites.ITEM_COLORS["red"])


def test_the_view_scales_with_the_window(qtbot, window):
    window.start_session(plan("two-rooms", ["human", "human"]))
    qtbot.waitUntil(lambda: window.view.frames_drawn > 0)
    small = window.renderer.tile
    window.resize(1800, 1100)
    qtbot.waitUntil(lambda: window.renderer.tile > small)
    assert window.view.surface.get_size() == (window.view.width(), window.view.height())


def test_a_slow_agent_shows_a_thinking_indicator_and_the_window_stays_responsive(qtbot, window, tmp_path):
    """A seat whose decision stays under way until the test lets it go (the ``held`` agent): the
    window says it is thinking, and its timers keep running meanwhile."""
    release, holding = tmp_path / "release", tmp_path / "holding"
    window.start_session(plan("two-rooms", [f"held:release={release},holding={holding}", "planner"]))
    try:
        qtbot.waitUntil(holding.exists, timeout=30_000)
        qtbot.waitUntil(lambda: "thinking" in window.thinking_label.text(), timeout=30_000)
        assert window.view.overlays.thinking
        ticks = []
        window.panels.timer.timeout.connect(lambda: ticks.append(1))
        qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=30_000)  # the panel timer runs while the seat thinks
        assert window.model.timeline.num_steps == 0 and "thinking" in window.thinking_label.text()
    finally:
        release.touch()
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 1, timeout=30_000)


def test_errors_in_slots_are_reported_not_fatal(qtbot, window):
    try:
        raise RuntimeError("a bug in a view")
    except RuntimeError:
        errors.report(*sys.exc_info())
    qtbot.waitUntil(lambda: "a bug in a view" in window.statusBar().currentMessage())


def test_settings_are_remembered_between_runs(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
    window.dialogs.show_settings()
    dialog = window.dialogs.settings_dialog
    assert not dialog.isModal()
    dialog.speed.setValue(8.0)
    dialog.record.setChecked(False)
    dialog.save()
    again = AppSettings.at(tmp_path / "settings.ini")
    assert again.get("speed") == 8.0 and again.get("record") is False
    assert window.playback.current_speed == 8.0
    window.start_session(plan("two-rooms", ["planner", "planner"]))
    assert window.model.recording_path is None and "not recording" in window.mode_label.text()
    llm_file = tmp_path / "config" / "llm.toml"
    assert not llm_file.exists()  # nothing changed on the LLM page: the user's file is left alone
    page = dialog.llm_page
    assert {"base_url", "api_key", "model", "temperature", "timeout"} <= set(page.fields)
    page.fields["model"].setText("my-model")
    page.fields["base_url"].setText("http://127.0.0.1:9/v1")
    dialog.save()
    from agents.llm.config import load_settings
    saved = load_settings(llm_file, env={})
    assert saved.model == "my-model" and saved.base_url == "http://127.0.0.1:9/v1"
    dialog.close()


def test_every_control_has_a_keyboard_shortcut(window):
    for name in ("play", "step", "back", "start", "end", "next_feedback", "faster", "slower", "take_over",
                 "open", "new", "settings", "show_plans", "accept_feedback", "ignore_feedback"):
        assert window.actions_by_name[name].shortcut().toString(), name


def test_speed_keys_change_the_playback_speed(qtbot, window):
    before = window.playback.current_speed
    QTest.keyClick(window.view, Qt.Key.Key_BracketLeft)
    assert window.playback.current_speed < before
    QTest.keyClick(window.view, Qt.Key.Key_BracketRight)
    assert window.playback.current_speed == before


def test_typing_a_seat_spec_does_not_trigger_single_key_shortcuts(qtbot, window):
    path = finished_recording(qtbot, window)
    window.open_recording(path)
    window.model.seek(3)
    box = window.setup.seat_boxes["alice"]
    box.lineEdit().setFocus()
    box.lineEdit().clear()
    QTest.keyClicks(box.lineEdit(), "boltzmann:temperature=1.5,k")
    QTest.keyClick(box.lineEdit(), Qt.Key.Key_Return)
    assert box.currentText() == "boltzmann:temperature=1.5,k"
    assert window.model.cursor == 3 and not window.model.playing and window.setup.takeover_step is None


def test_a_world_family_can_add_its_own_panels_to_the_minds_dock(qtbot, tmp_path, monkeypatch):
    import dataclasses
    import sys
    import types

    from PyQt6.QtWidgets import QLabel

    from sim import plugins

    class StepCounter(QLabel):
        panel_title = "Counter"

        def show_at(self, timeline, tick):
            self.setText(f"step {tick} of {timeline.num_steps}" if timeline else "")

    module = types.ModuleType("counter_panel_for_test")
    module.StepCounter = StepCounter
    monkeypatch.setitem(sys.modules, "counter_panel_for_test", module)
    dkg = plugins.plugin("dkg")
    with plugins.registered(dataclasses.replace(dkg, panels=("counter_panel_for_test:StepCounter",))):
        window = make_window(qtbot, tmp_path)
        try:
            window.start_session(plan("two-rooms", ["planner", "planner"]))
            wait_finished(qtbot, window)
            window.model.seek(7)
            window.panels.refresh(force=True)
            titles = [window.panels.tabs.tabText(i) for i in range(window.panels.tabs.count())]
            assert "Counter" in titles
            assert window.panels.panel("Counter").text() == "step 7 of 25"
        finally:
            window.shutdown()
    assert plugins.plugin("dkg") is dkg


def test_take_over_from_a_live_session_looking_back(qtbot, window):
    window.playback.set_speed(8)  # slow enough to look back before the episode ends
    window.start_session(plan("two-rooms", ["planner", "planner"]))
    first = window.model.recording_path
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 6)
    QTest.keyClick(window.view, Qt.Key.Key_J)  # step back: the live session pauses
    assert not window.model.playing and not window.model.follow
    window.model.seek(3)
    old = window.model.timeline
    QTest.keyClick(window.view, Qt.Key.Key_T)
    window.setup.set_seat("bob", "human")
    QTest.mouseClick(window.setup.start_button, Qt.MouseButton.LeftButton)
    new = window.model.timeline
    assert new is not old and isinstance(new, LiveTimeline)
    assert new.world.state_hash(new.state_at(3)) == old.world.state_hash(old.state_at(3))
    assert [e.joint_action for e in new.events if isinstance(e, StepEvent)][:3] == \
        [old.joint_action(k) for k in range(3)]  # the earlier steps stay in the log
    qtbot.waitUntil(lambda: window.model.human_to_move() == "bob")
    assert load_recording(first).footer["outcome"]["stopped"] is True  # the first session ended cleanly


def test_an_episode_of_task_rounds_plays_replays_and_takes_over_across_a_round(qtbot, window):
    world, name = load_scenario("two-rooms")
    window.fill_setup()
    assert window.setup.select_scenario(name) and window.setup.rounds.value() == 1
    for agent in ("alice", "bob"):
        window.setup.set_seat(agent, "planner")
    window.setup.rounds.setValue(2)  # the session panel's Task rounds
    QTest.mouseClick(window.setup.start_button, Qt.MouseButton.LeftButton)
    wait_finished(qtbot, window)
    live = window.model.timeline
    assert live.rounds == 2 and live.num_steps == 50  # 25 steps a round for these planners
    title, lines = episode_summary(live)  # the end card speaks of the last round and lists the others
    assert title == "Round 2 of 2: solved in 25 ticks" and lines[0] == "round 1: solved in 25 ticks"
    assert live.state_at(25) == world.reset(0)  # round 2 starts from the scenario's layout
    path = window.model.recording_path
    window.setup.rounds.setValue(1)
    assert window.open_recording(path)
    replay = window.model.timeline
    assert isinstance(replay, ReplayTimeline) and replay.rounds == 2 and replay.num_steps == 50
    assert window.setup.rounds.value() == 2  # the panel shows the recording's rounds
    for k in (24, 25, 26, 49, 3):
        window.model.seek(k)
        assert window.view.state == live.state_at(k)
    window.model.seek(30)
    QTest.keyClick(window.view, Qt.Key.Key_T)  # take over in the second round
    assert window.setup.rounds.value() == 2 and not window.setup.rounds.isEnabled()  # kept from the recording
    QTest.mouseClick(window.setup.start_button, Qt.MouseButton.LeftButton)
    wait_finished(qtbot, window)
    again = window.model.timeline
    assert isinstance(again, LiveTimeline) and again.rounds == 2 and again.num_steps == 50
    assert again.state_at(30) == live.state_at(30) and again.state_at(50) == live.state_at(50)
    header = load_recording(window.model.recording_path).header
    assert header["rounds"] == 2 and len(header["prefix"]) == 30
    # the event log marks the round's end
    assert any(line.strip() == "25  ↻ round 1 over: success; round 2 starts from the beginning"
               for line in window.panels.log.lines())
    assert window.setup.rounds.isEnabled()  # the take-over is over: rounds can be chosen again
    window.play_again()  # the end card's Play again: from the start, with the same rounds
    wait_finished(qtbot, window)
    assert window.model.timeline.rounds == 2 and window.model.timeline.num_steps == 50


def test_a_recording_shows_its_first_frame_before_the_rest_is_read(qtbot, window):
    path = finished_recording(qtbot, window)
    window.close_episode()
    begun_after_frames = []
    load = window.loader.load_in_background

    def load_and_note(p):  # the real load, noting how many frames were painted when it began
        begun_after_frames.append(window.view.frames_drawn)
        load(p)

    window.loader.load_in_background = load_and_note
    frames = window.view.frames_drawn
    assert window.open_recording_in_background(path)
    assert begun_after_frames == []  # not before the event loop has painted the first state
    qtbot.waitUntil(lambda: isinstance(window.model.timeline, ReplayTimeline), timeout=20_000)
    assert begun_after_frames and begun_after_frames[0] > frames
    assert window.model.timeline.num_steps > 0


def test_a_hidden_window_reads_the_recording_all_the_same(qtbot, window):
    path = finished_recording(qtbot, window)
    window.close_episode()
    window.hide()  # paints nothing: the load starts after a short wait instead
    assert window.open_recording_in_background(path)
    qtbot.waitUntil(lambda: isinstance(window.model.timeline, ReplayTimeline), timeout=20_000)


def test_a_new_session_while_a_seat_decides_abandons_the_decision(qtbot, window, tmp_path):
    """A seat whose second decision is under way (the ``held`` agent: it waits until the test
    creates a file): starting another session does not wait for it; that decision is abandoned,
    the old recording ends as stopped after the steps before it, and the new episode plays. Released,
    the old worker ends."""
    release, holding = tmp_path / "release", tmp_path / "holding"
    held = f"held:release={release},holding={holding},at=2"
    window.start_session(plan("two-rooms", [held, "planner"]))
    qtbot.waitUntil(holding.exists, timeout=60_000)  # the decision is under way, and stays so
    old, old_path = window.model.runner, window.model.recording_path
    try:
        window.start_session(plan("two-rooms", ["planner", "planner"]))
        assert old in window.sessions.abandoned  # not waited for: its decision was still running
        assert window.model.timeline.scenario == "two-rooms" and window.model.runner is not old
        recording = load_recording(old_path)
        assert recording.complete and recording.footer["outcome"]["stopped"] is True
        assert len(recording.steps) == 2  # alice moved, bob moved; alice's second decision is held
        wait_finished(qtbot, window)
        assert window.model.timeline.outcome.outcome["success"] is True
        assert old.alive  # still deciding
    finally:
        release.touch()
    qtbot.waitUntil(lambda: not old.alive, timeout=60_000)  # it ends once its decision returns
