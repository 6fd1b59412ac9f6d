"""The app model (ui/session/model.py) driven without a window: a recording shown, the cursor moved,
playback by the clock, a person's key routed to their seat, and the feedback pop-up policy."""

from __future__ import annotations

import os
import subprocess
import sys

from agents.registry import make_agent
from sim.events import FeedbackEvent
from sim.recording import RecordingWriter
from sim.registry import load_scenario
from sim.replay import Replay
from sim.seats import Feedback
from sim.session import Session
from ui.render import renderer_for
from ui.session.model import AppModel
from ui.session.timeline import LiveTimeline, ReplayTimeline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def recorded(tmp_path, facilitator: str = "protom"):
    from ui.session import catalog

    world, name = load_scenario("two-rooms")
    mechanisms = catalog.make_mechanisms((facilitator,), world) if facilitator != "none" else []
    session = Session(world, {a: make_agent("planner") for a in world.agents}, seed=0, scenario=name,
                      mechanisms=mechanisms)
    path = tmp_path / "episode.jsonl"
    RecordingWriter.attach(session, path)
    session.run(max_steps=60)
    session.stop()
    return ReplayTimeline(Replay(str(path)))


def live_with_human():
    """A live episode whose first seat a person plays, with its (real) runner not started."""
    from ui.session.runner import SessionRunner

    world, name = load_scenario("two-rooms")
    human = make_agent("human", world.family)
    seats = {a: (human if i == 0 else make_agent("planner")) for i, a in enumerate(world.agents)}
    session = Session(world, seats, seed=0, scenario=name)
    runner = SessionRunner(session, playing=False)
    model = AppModel()
    model.show(LiveTimeline(world, session.header(), session.state), humans={world.agents[0]: human},
               session=session, runner=runner)
    return model, world.agents[0], human, runner


def test_the_model_imports_no_qt():
    code = "import sys, ui.session.model; print(sorted(m for m in sys.modules if m.startswith('PyQt')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_recording_is_shown_from_its_start_and_the_cursor_moves_and_notifies(tmp_path):
    timeline = recorded(tmp_path)
    model, changes = AppModel(), []
    model.subscribe(changes.append)
    model.show(timeline)
    assert model.timeline is timeline and model.cursor == 0 and not model.is_live()
    assert changes == ["timeline"]
    model.move_to(1)
    assert model.cursor == 1 and model.animate and changes[-1] == "cursor"
    model.seek(10**6)  # clamped to the end
    assert model.cursor == timeline.num_steps and not model.animate
    model.step_back()
    assert model.cursor == timeline.num_steps - 1
    model.seek(0)
    tick = timeline.next_feedback_tick(0)
    if tick is not None:  # the facilitator spoke: N goes there and presents it
        shown = model.seek_feedback(True)
        assert model.cursor == tick and shown and all(e.tick == tick for e in shown)


def test_playing_moves_the_cursor_by_elapsed_time_and_stops_at_the_end(tmp_path):
    timeline = recorded(tmp_path, "none")
    model = AppModel()
    model.show(timeline)
    assert model.set_playing(True, now=0.0) and model.playing
    model.advance(now=0.1, speed=4.0)  # 0.4 steps owed: not yet
    assert model.cursor == 0
    _, going = model.advance(now=1.0, speed=4.0)
    assert model.cursor == 4 and going
    model.set_playing(False)
    model.advance(now=5.0, speed=4.0)
    assert model.cursor == 4  # paused: the clock moves nothing
    model.set_playing(True, now=5.0)
    _, going = model.advance(now=5.0 + timeline.num_steps, speed=4.0)
    assert model.cursor == timeline.num_steps and not going and not model.playing
    assert model.set_playing(True, now=0.0) and model.cursor == 0  # at the end, play starts again


def test_a_key_goes_to_the_seat_whose_turn_it_is_and_only_once():
    model, agent, human, runner = live_with_human()
    keymap = renderer_for(model.timeline.world)
    assert model.is_live() and model.human_to_move() == agent
    route = model.route_key("down", keymap)
    assert route.agent == agent and route.action == "down" and not route.note
    assert runner.submitted_since_step() == {agent} and model.humans_to_move() == ()
    again = model.route_key("down", keymap)
    assert again.action is None and "moved already" in again.note
    runner.stop()


def test_the_popup_policy_asks_a_person_tells_about_others_and_respects_off():
    model, agent, human, runner = live_with_human()
    other = next(a for a in model.timeline.world.agents if a != agent)
    human.receive_feedback(Feedback(7, agent, {"type": "go"}, "Go left.", "because"))
    to_person = FeedbackEvent(tick=0, feedback_id=7, facilitator="protom", target=agent, feedback={"type": "go"},
                              text="Go left.", explanation="because")
    to_agent = FeedbackEvent(tick=0, feedback_id=8, facilitator="protom", target=other, feedback={"type": "go"},
                             text="Go right.", explanation="because")
    model.extend([to_person, to_agent], None)
    assert model.popup_for(to_person).ask
    told = model.popup_for(to_agent)
    assert told.show and not told.ask
    assert not model.popup_for(to_agent, awaiting_decision=True).show  # an open question stays
    runner.auto_declined.add(7)
    repeat = model.popup_for(to_person)
    assert not repeat.show and "repeated a suggestion" in repeat.note
    model.set_popups(False)
    assert runner.popups is False
    assert model.popup_for(to_agent) == model.popup_for(to_person) == type(told)(False)
    runner.stop()
