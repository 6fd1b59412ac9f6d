"""The world as one mind believes it (``ui/beliefs/view.py``), the belief timeline
(``ui/beliefs/timeline.py``) and beliefs in plain words (``ui/beliefs/words.py``), in the real window
offscreen.

* Kitchen: heuristic cooks under rules 2 remember what they saw; ProToM watches. A cook's
  remembered object that was moved out of its sight is drawn as a crossed-out ghost with an
  arrow to where one really is; ProToM's particles draw as a distribution of ghosts.
* Household, a false-belief situation built from ``household-prepare-meal-01``: alice (a CoBel
  agent whose moves are scripted, its beliefs its own) explores the kitchen and walks to the
  living room; bob, scripted, then takes the cupcake off the kitchen counter and puts it on the
  dinner table. alice still believes it is on the counter (and that bob believes so too) until
  she walks back and sees it, or, in the second script, until bob tells her in SBL.
* Doors, Keys and Gems: the facilitator's goal inference as each agent's believed goal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PyQt6.QtCore import Qt

from agents.cobel.agent import CoBelAgent
from agents.registry import make_agent
from sim.recording import RecordingWriter
from sim.registry import load_scenario
from sim.replay import Replay
from sim.seats import Agent
from sim.session import Session
from tests.ui_support import make_window
from ui.beliefs.timeline import OBSERVATION, BeliefHistory
from ui.beliefs.view import believed_world, namer_for, view_choices
from ui.beliefs.words import message_words, sbl_in_words
from ui.render.kitchen_beliefs import kitchen_feedback_words
from ui.session import catalog
from ui.session.timeline import ReplayTimeline


class ScriptedCoBel(CoBelAgent):
    """A CoBel agent (its belief world, updates and snapshots) whose moves are scripted and who
    never speaks."""

    kind = "test-scripted-cobel"

    def __init__(self, script: list[str], **params: Any) -> None:
        super().__init__(**params)
        self.script = list(script)

    def plan(self, obs: Any) -> str:
        return self.script.pop(0) if self.script else "wait"

    def miscoordination(self, obs: Any) -> tuple[list, str]:
        return [], ""


class Mover(Agent):
    """Plays a list of actions; ``say TEXT`` sends TEXT as a message."""

    kind = "test-mover"

    def __init__(self, script: list[str]) -> None:
        super().__init__()
        self.script = list(script)

    def act(self, observation: Any, legal_actions: Any) -> Any:
        action = self.script.pop(0) if self.script else "wait"
        if action.startswith("say "):
            return self.ctx.world.message_action(None, self.ctx.agent_id, action[4:])
        return action


def record(tmp_path: Path, name: str, world: Any, scenario: str, seats: dict[str, Any], steps: int,
           mechanisms: list | tuple = ()) -> ReplayTimeline:
    session = Session(world, seats, seed=0, scenario=scenario, mechanisms=list(mechanisms))
    path = tmp_path / f"{name}.jsonl"
    RecordingWriter.attach(session, path)
    session.run(max_steps=steps)
    session.stop()
    return ReplayTimeline(Replay(str(path)))


def moved_cupcake(tmp_path: Path, told: bool = False) -> ReplayTimeline:
    """The false-belief situation of the module doc (``told``: bob says where he put it)."""
    world, name = load_scenario("household-prepare-meal-01")
    alice = ["explore", "walk livingroom", "explore", "wait", "wait", "wait", "walk kitchen", "wait", "wait"]
    bob = ["explore", "wait", "grab cupcake_2", "put cupcake_2 kitchen_dinnertable", "wait"]
    if told:
        alice[3:3] = ["wait"] * 3
        bob[-1] = "say <cupcake>(2) ON <kitchen_dinnertable>(1001)"
    return record(tmp_path, "moved" + ("-told" if told else ""), world, name,
                  {"alice": ScriptedCoBel(alice), "bob": Mover(bob)}, 9)


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory: Any) -> ReplayTimeline:
    world, name = load_scenario("three-rooms")
    return record(tmp_path_factory.mktemp("kitchen"), "kitchen", world, name,
                  {a: make_agent("kitchen-heuristic") for a in world.agents}, 34,
                  catalog.make_mechanisms(("protom",), world))


def show(qtbot: Any, tmp_path: Path, timeline: ReplayTimeline) -> Any:
    window = make_window(qtbot, tmp_path)
    window.model.show(timeline)
    return window


def draw_believed(window: Any, tick: int, choice: tuple[str, str | None] | None) -> Any:
    window.model.seek(tick)
    window.model.set_believed(choice)
    window.view.render_frame()
    return window.renderer


# ------------------------------------------------------------------------------ kitchen

@pytest.mark.slow  # the episode with ProToM takes a few seconds to record
def test_the_kitchen_draws_a_cooks_wrong_belief_as_such(qtbot, tmp_path, kitchen):
    found = BeliefHistory().update(kitchen)
    assert found, "the cooks never held a false belief in this episode"
    tick, holder = found[0].start, found[0].agent
    assert any(c.holder == holder and c.about is None for c in view_choices(kitchen))
    believed = believed_world(kitchen, tick, holder)
    wrong = believed.wrong[0]
    window = show(qtbot, tmp_path, kitchen)
    renderer = draw_believed(window, tick, (holder, None))
    assert window.view.overlays.believed == believed
    assert window.view.overlays.viewer == holder  # the cook's own fog of war
    drawn = {(thing, at): actual for thing, at, actual in renderer.drawn_wrong}
    assert (wrong.thing, tuple(wrong.at)) in drawn
    assert drawn[(wrong.thing, tuple(wrong.at))] == wrong.actual
    assert any(not true for *_, true in renderer.drawn_ghosts)
    # the cross is red on the map where the cook believes the thing is
    rect = renderer.cell_rect(*wrong.at)
    pixels = [tuple(window.view.surface.get_at((x, y)))[:3] for x in range(rect.left, rect.right)
              for y in range(rect.top, rect.bottom)]
    assert any(r > 180 and g < 80 and b < 80 for r, g, b in pixels)
    # in words, with the place named, not coordinates
    line = believed.lines[0]
    assert line.startswith(f"{holder} thinks ") and "of the" in line and "room" in line
    assert "at (" not in line
    # the world as it is again: no ghosts
    renderer = draw_believed(window, tick, None)
    assert renderer.drawn_ghosts == [] and window.view.overlays.believed is None


@pytest.mark.slow  # the episode with ProToM takes a few seconds to record
def test_protoms_particles_draw_as_a_distribution_of_what_a_cook_believes(qtbot, tmp_path, kitchen):
    owner = kitchen.belief_owners("particles")[0]
    choice = next(c for c in view_choices(kitchen) if c.holder == owner and c.about is not None)
    assert choice.label == f"As {owner} thinks {choice.about} believes it"
    tick = next(k for k in range(1, kitchen.num_steps + 1)
                if (v := believed_world(kitchen, k, owner, choice.about)) is not None and v.ghosts)
    believed = believed_world(kitchen, tick, owner, choice.about)
    # shares of the particles: at most the whole at each station (the rest believe it unknown)
    for at in {g.at for g in believed.ghosts}:
        assert 0 < sum(g.p for g in believed.ghosts if g.at == at) <= 1 + 1e-6
    window = show(qtbot, tmp_path, kitchen)
    renderer = draw_believed(window, tick, (owner, choice.about))
    assert renderer.drawn_ghosts
    assert renderer.drawn_particles == []  # the particle overlay gives way to the believed world


@pytest.mark.slow  # the episode with ProToM takes a few seconds to record
def test_the_belief_timeline_lists_a_kitchen_false_belief_with_its_cause(kitchen):
    beliefs = BeliefHistory().update(kitchen)
    assert beliefs
    first = beliefs[0]
    assert first.arose
    assert first.text.startswith(f"{first.agent} thinks ")
    ended = [b for b in beliefs if b.end is not None]
    assert all(b.ended_by for b in ended)


@pytest.mark.slow  # the episode with ProToM takes a few seconds to record
def test_kitchen_suggestions_name_places_in_words_and_ring_them_on_the_map(qtbot, tmp_path, kitchen):
    world = kitchen.world
    payload = {"type": "pass", "agent": "bob", "item": "FreshOnion", "at": [6, 6], "to": "alice", "via": [3, 0]}
    text = kitchen_feedback_words(world, payload, "Bob, please pass the FreshOnion at (6, 6) to Alice: leave it "
                                                  "on the counter at (3, 0).")
    # the rooms are named by what they alone hold (the hall holds the only delivery stations)
    assert text == ("Bob, please pass the onion on the counter in the middle of the serving room to Alice: leave it "
                    "on the left counter (3rd from the top) of the tomato room.")
    assert "(6, 6)" not in text
    window = show(qtbot, tmp_path, kitchen)
    renderer = window.renderer
    state = kitchen.state_at(0)
    import dataclasses
    renderer.draw(window.view.surface, state, overlays=dataclasses.replace(window.view.overlays, feedback=payload))
    assert renderer.feedback_spots == [(6, 6), (3, 0)]
    # the pop-up says it in words, the explanation's object names too
    from sim.events import FeedbackEvent
    event = FeedbackEvent(tick=0, feedback_id=1, facilitator="protom", target="bob", feedback=payload,
                          text="Bob, please pass the FreshOnion at (6, 6) to Alice: leave it on the counter at (3, 0).",
                          explanation="I believe Alice is trying to prepare SimpleTomato, and the other FreshOnion "
                                      "is easier to get for her.")
    window.toast.show_feedback(event, ask=False, world=world)
    assert window.toast.text.text() == text
    assert "the other onion is easier" in window.toast.explanation.text()
    assert "prepare the tomato dish" in window.toast.explanation.text()  # recipes in words too


# ------------------------------------------------------------------------------ household

def test_a_false_belief_from_an_object_moved_out_of_sight_is_drawn_and_ended_by_observation(qtbot, tmp_path):
    timeline = moved_cupcake(tmp_path)
    labels = [c.label for c in view_choices(timeline)]
    assert "As alice believes it" in labels and "As alice thinks bob believes it" in labels
    believed = believed_world(timeline, 5, "alice")
    assert [(g.thing, g.at, g.actual) for g in believed.wrong] == [
        ("cupcake_2", "kitchen_counter", "kitchen_dinnertable")]
    assert believed.lines == ("alice thinks cupcake 2 is on the counter in the kitchen; it is on the dinner table "
                              "in the kitchen",)
    assert "bathroom" in believed.unknown and "kitchen" not in believed.unknown
    first_order = believed_world(timeline, 5, "alice", "bob")
    assert [g.thing for g in first_order.wrong] == ["cupcake_2"]
    assert first_order.lines[0].startswith("alice thinks bob thinks cupcake 2 is on the counter")

    window = show(qtbot, tmp_path, timeline)
    # B steps through the minds of the episode, then back to the world as it is
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.view.setFocus()
    seen = []
    for _ in range(5):
        qtbot.keyClick(window.view, Qt.Key.Key_B)
        seen.append(window.model.believed_choice)
    assert seen == [("alice", None), ("alice", "bob"), None, ("alice", None), ("alice", "bob")]  # bob is scripted
    window.model.seek(0)
    window.model.set_believed(("alice", None))  # nothing reported before the first step
    assert window.view.overlays.believed.reported is False and window.view.overlays.viewer == "alice"
    renderer = draw_believed(window, 5, ("alice", None))
    assert ("cupcake_2", "kitchen_counter", "kitchen_dinnertable") in renderer.drawn_wrong
    assert "bathroom" in renderer.drawn_unknown
    renderer = draw_believed(window, 5, ("alice", "bob"))
    assert ("cupcake_2", "kitchen_counter", "kitchen_dinnertable") in renderer.drawn_wrong
    renderer = draw_believed(window, 9, ("alice", None))  # back in the kitchen, she has seen it
    assert renderer.drawn_wrong == []

    beliefs = BeliefHistory().update(timeline)
    # her own belief, and what she thinks bob believes (first order): both listed
    assert [(b.agent, b.about, b.thing, b.start, b.end) for b in beliefs] == [
        ("alice", None, "cupcake_2", 4, 8), ("alice", "bob", "cupcake_2", 4, 8)]
    assert beliefs[0].arose == "the world changed out of its sight"
    assert beliefs[0].ended_by == OBSERVATION
    assert beliefs[1].text.startswith("alice thinks bob thinks cupcake 2 is on the counter")

    # the panel lists it, and a click on its row goes to the step it arose
    window.model.seek(9)
    window.panels.refresh(force=True)
    panel = window.panels.panel("Belief timeline")
    assert panel is not None and [(b.thing, b.about) for b in panel.rows()] == [("cupcake_2", None), ("cupcake_2", "bob")]
    item = panel.tree.topLevelItem(0).child(0)
    assert "own observation" in item.text(3) and "out of its sight" in item.text(2)
    panel.tree.itemClicked.emit(item, 0)
    assert window.model.cursor == 4


def test_a_false_belief_ended_by_a_message_says_so(tmp_path):
    beliefs = BeliefHistory().update(moved_cupcake(tmp_path, told=True))
    assert [b.about for b in beliefs] == [None, "bob"]  # her own belief and what she thinks bob believes
    assert all(b.ended_by.startswith("a message from bob") for b in beliefs)


def test_belief_rows_and_bubbles_are_in_plain_words_with_raw_sbl_behind_a_toggle(qtbot, tmp_path):
    timeline = moved_cupcake(tmp_path)
    namer = namer_for(timeline.world)
    assert sbl_in_words("alice BELIEVE <cupcake>(2) ON <kitchen_counter>(1000)", namer) == \
        "alice thinks cupcake 2 is on the counter in the kitchen"
    assert sbl_in_words("alice BELIEVE <livingroom>(2001) EXPLORATION_STATE all", namer) == \
        "alice thinks the livingroom is explored"
    assert message_words("<cupcake>(2) ON <kitchen_dinnertable>(1001)\nhello", namer) == \
        "cupcake 2 is on the dinner table in the kitchen; hello"
    window = show(qtbot, tmp_path, timeline)
    window.model.seek(5)
    window.panels.refresh(force=True)
    panel = window.panels.panel("Beliefs")
    row = next(r for r in panel.rows("alice") if "<cupcake>(2) ON" in r.text and r.group == "zero")
    assert row.words == ("alice thinks cupcake 2 is on the counter in the kitchen; it is on the dinner table in "
                         "the kitchen")
    shown = [panel.tree.topLevelItem(0).child(0).child(k).text(0)
             for k in range(panel.tree.topLevelItem(0).child(0).childCount())]
    assert row.words in shown and not any("<" in s for s in shown)
    panel.raw.setChecked(True)
    shown = [panel.tree.topLevelItem(0).child(0).child(k).text(0)
             for k in range(panel.tree.topLevelItem(0).child(0).childCount())]
    assert row.shown in shown and any("<cupcake>(2)" in s for s in shown)


# ------------------------------------------------------------------------------ Doors, Keys and Gems

def test_goal_inference_draws_as_each_agents_believed_goal(qtbot, tmp_path):
    world, name = load_scenario("two-rooms")
    timeline = record(tmp_path, "dkg", world, name, {a: make_agent("planner") for a in world.agents}, 6,
                      catalog.make_mechanisms(("protom",), world))
    choice = next(c for c in view_choices(timeline) if c.about == "*")
    believed = believed_world(timeline, 3, choice.holder, "*")
    assert believed.goals and {g.agent for g in believed.goals} <= set(world.agents)
    window = show(qtbot, tmp_path, timeline)
    renderer = draw_believed(window, 3, (choice.holder, "*"))
    assert renderer.drawn_ghosts
    assert {g for _a, g, _p, _t in renderer.drawn_ghosts} <= set(world.item_index)


def test_the_shipped_unexpected_transfer_scenario_draws_sallys_false_belief_and_lists_it(qtbot, tmp_path):
    """The teaching scenario itself (``scenarios/household/false-belief/``), with the app's
    default seats: while sally is out, the ball is moved; the map draws her belief as a crossed-out
    ghost on the basket with an arrow to the box, and the timeline lists it with what ended it."""
    world, name = load_scenario("false-belief-unexpected-transfer")
    timeline = record(tmp_path, "transfer", world, name, {a: make_agent("cobel") for a in world.agents}, 20)
    beliefs = [b for b in BeliefHistory().update(timeline) if b.agent == "sally"]
    assert beliefs and beliefs[0].thing.startswith("ball")
    first = beliefs[0]
    assert first.arose and first.end is not None and first.ended_by
    believed = believed_world(timeline, first.start, "sally")
    wrong = [(g.thing, g.at, g.actual) for g in believed.wrong]
    assert wrong and wrong[0][1] == "basket" and wrong[0][2] == "box"
    window = show(qtbot, tmp_path, timeline)
    renderer = draw_believed(window, first.start, ("sally", None))
    assert wrong[0] in renderer.drawn_wrong
    renderer = draw_believed(window, first.end + 1, ("sally", None))
    assert not any(t == wrong[0][0] for t, *_ in renderer.drawn_wrong)
