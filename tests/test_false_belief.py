"""The classic false-belief scenarios of the household (``scenarios/household/false-belief/``).

For each scenario a first-order CoBel agent (``cobel``, the default) and a level-0 one
(``cobel:order=0``: it takes each partner to believe what it believes itself) take different
actions at a stated step, and the false belief shows in the ``symbolic_beliefs`` snapshots at the
steps it holds (the believed place differs from the true one) until it is corrected. The world's
additions these scenarios use (objects held from the start, rooms explored before, labels,
scripted moves) are checked here too.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from agents.cobel.agent import HOUSEHOLD_VOCABULARY, CoBelAgent
from agents.cobel.belief_world import team_misalignments
from agents.registry import AgentSpecError, make_agent
from sim.events import BeliefEvent, ErrorEvent, StepEvent
from sim.household.scenario import validate_household
from sim.household.world import HouseholdWorld
from sim.inputs import read_json
from sim.registry import ScenarioError, find_scenario, load_scenario
from sim.session import Session

TRANSFER = "false-belief-unexpected-transfer"
CONTENTS = "false-belief-unexpected-contents"
SECOND = "false-belief-second-order"
SCENARIOS = (TRANSFER, CONTENTS, SECOND)

BALL_ON_BASKET = "<ball>(1) ON <basket>(1000)"
BALL_IN_BOX_TRANSFER = "<ball>(1) IN <box>(1003)"
BALL_IN_BOX_SECOND = "<ball>(1) IN <box>(1004)"
SUGAR_IN_JAR = "<sugar>(2) IN <sugar_jar>(1001)"
SUGAR_ON_SHELF = "<sugar>(2) ON <pantry_shelf>(1002)"


class Episode:
    """One played episode: the joint action of each step, the true state at each tick and
    every agent's ``symbolic_beliefs`` snapshot by tick (a snapshot of tick k is the mind
    after it chose its action of step k - 1, shown beside state k)."""

    def __init__(self, scenario: str, seats: dict[str, str], seed: int = 0) -> None:
        world, name = load_scenario(scenario)
        self.world = world
        self.session = Session(world, {a: make_agent(seats.get(a, "cobel"), "household") for a in world.agents},
                               seed=seed, scenario=name)
        self.session.run()
        self.steps = [e.joint_action for e in self.session.events if isinstance(e, StepEvent)]
        self.world_events = [e.world_events for e in self.session.events if isinstance(e, StepEvent)]
        self.states = [world.reset(seed)]
        for joint in self.steps:
            self.states.append(world.step(self.states[-1], joint).state)
        self.beliefs: dict[int, dict[str, dict[str, Any]]] = {}
        for e in self.session.events:
            if isinstance(e, BeliefEvent) and e.kind == "symbolic_beliefs":
                self.beliefs.setdefault(e.tick, {})[e.owner] = e.data

    def action(self, tick: int, agent: str) -> str:
        return self.steps[tick][agent]

    def p(self, tick: int, agent: str, atom: str, about: str | None = None) -> float:
        """The probability ``agent``'s snapshot of ``tick`` gives ``atom`` (in its model of
        ``about`` when given)."""
        data = self.beliefs[tick][agent]
        entries = data["zero_order"] if about is None else data["first_order"][about]
        return next((x["p"] for x in entries if x["atom"] == atom), 0.0)

    def true_place(self, tick: int, obj: str) -> str:
        return self.world.where(self.states[tick], self.world.object_index[obj])

    def held_ticks(self, agent: str, atom: str, about: str | None = None) -> list[int]:
        return [t for t in sorted(self.beliefs) if self.p(t, agent, atom, about) >= 0.5]


@pytest.fixture(scope="module")
def played() -> dict[tuple[str, str], Episode]:
    """Each scenario with a first-order anne ("first") and a level-0 anne ("zero"); the
    partner is a first-order CoBel agent in both."""
    return {(s, level): Episode(s, {"anne": "cobel" if level == "first" else "cobel:order=0"})
            for s in SCENARIOS for level in ("first", "zero")}


def test_the_scenarios_load_by_name_with_a_description_of_what_to_watch() -> None:
    for name in SCENARIOS:
        path = find_scenario(name)
        assert path.parent.name == "false-belief"
        data = read_json(path)
        assert data["category"] == "false-belief" and "Watch" in data["description"]
        world, loaded = load_scenario(name)
        assert loaded == name and set(world.agents) >= {"anne"}


def test_unexpected_transfer(played) -> None:
    first, zero = played[TRANSFER, "first"], played[TRANSFER, "zero"]
    # the ball moves while sally is in the kitchen and anne in the bedroom, at the end of step 0
    for ep in (first, zero):
        moved = [w for w in ep.world_events[0] if w["kind"] == "moved"]
        assert moved == [{"kind": "moved", "agent": None, "data": {"object": "ball_1", "from": "basket", "to": "box",
                                                                   "by": "Anne's little brother"}}]
        assert ep.true_place(0, "ball_1") == "basket" and ep.true_place(1, "ball_1") == "box"
        # anne models sally's false belief only at first order
        assert ep.action(0, "anne") == "walk bedroom" and ep.action(0, "sally") == "walk kitchen"
    # step 1: first-order anne tells sally where the ball is; level-0 anne shelves a book
    assert first.action(1, "anne") == f"say anne AT <bedroom>(2002)\n{BALL_IN_BOX_TRANSFER}"
    assert zero.action(1, "anne") == "put book_1 shelf"
    # the beliefs anne decided on at step 1 (shown beside state 2): she saw the box; at first order
    # she believes sally believes the basket, at level 0 that sally "knows" the box
    assert first.p(2, "anne", BALL_IN_BOX_TRANSFER) == zero.p(2, "anne", BALL_IN_BOX_TRANSFER) == 1.0
    assert first.p(2, "anne", BALL_ON_BASKET, about="sally") == 1.0
    assert zero.p(2, "anne", BALL_ON_BASKET, about="sally") == 0.0
    assert zero.p(2, "anne", BALL_IN_BOX_TRANSFER, about="sally") == 1.0
    # once told, sally is believed to know (tick 3)
    assert first.p(3, "anne", BALL_IN_BOX_TRANSFER, about="sally") == 1.0
    # so sally goes to the bedroom at step 3, or back to the empty basket
    assert first.action(3, "sally") == "walk bedroom"
    assert zero.action(3, "sally") == "walk playroom"
    # sally's false belief: held while the ball is in the box, until the message (tick 3) or the
    # sight of the empty basket (tick 5)
    for ep, last in ((first, 2), (zero, 4)):
        held = ep.held_ticks("sally", BALL_ON_BASKET)
        assert held == list(range(1, last + 1))
        assert all(ep.true_place(t, "ball_1") != "basket" for t in held)
    assert first.p(3, "sally", BALL_IN_BOX_TRANSFER) >= 0.9


def test_unexpected_contents(played) -> None:
    first, zero = played[CONTENTS, "first"], played[CONTENTS, "zero"]
    world = first.world
    assert world.places[world.place_index["sugar_jar"]].label == "sugar"
    assert first.true_place(0, "salt_1") == "sugar_jar" and first.true_place(0, "sugar_1") == "pantry_shelf"
    for ep in (first, zero):
        # everyone read the label: the sugar is believed in the jar, by each and of each other
        assert ep.p(1, "sally", SUGAR_IN_JAR) == 1.0 and ep.p(1, "sally", SUGAR_IN_JAR, about="anne") == 1.0
        # anne opens the jar at step 0 while sally shelves her books
        assert ep.action(0, "anne") == "open sugar_jar" and ep.action(0, "sally") == "walk bedroom"
        assert ep.p(2, "anne", SUGAR_IN_JAR) == 0.0
        # sally walks to the jar (step 3) and sees the salt in it (her snapshot of tick 5)
        assert ep.action(3, "sally") == "walk kitchen"
        assert ep.held_ticks("sally", SUGAR_IN_JAR) == [1, 2, 3, 4]
    # anne, at first order, keeps sally's belief in the label
    assert first.p(4, "anne", SUGAR_IN_JAR, about="sally") == 1.0
    assert zero.p(4, "anne", SUGAR_IN_JAR, about="sally") == 0.0
    # step 4, the sugar found: first-order anne tells sally where it is, and that she will fetch it
    # (a message shares the sender's intent with the misaligned beliefs); level-0 anne takes it
    assert first.action(4, "anne") == f"say anne AT <pantry>(2002)\n{SUGAR_ON_SHELF}\nanne WILL_FETCH <sugar>(2)"
    assert zero.action(4, "anne") == "grab sugar_1"
    assert first.p(6, "sally", SUGAR_ON_SHELF) >= 0.9 and zero.p(6, "sally", SUGAR_ON_SHELF) == 0.0


def test_second_order(played) -> None:
    first, zero = played[SECOND, "first"], played[SECOND, "zero"]
    for ep in (first, zero):
        moved = [w["data"] for w in ep.world_events[0] if w["kind"] == "moved"]
        assert moved == [{"object": "ball_1", "from": "basket", "to": "box", "by": "the cat"}]
        # bob saw the ball leave the basket: he no longer believes it there, nor knows where it is
        assert ep.p(2, "bob", BALL_ON_BASKET) == 0.0 and ep.p(2, "bob", BALL_IN_BOX_SECOND) == 0.0
    # first-order anne believes bob still believes the basket (tick 2, beside the ball in the box):
    # a false belief about a belief, between their minds
    assert first.true_place(2, "ball_1") == "box" and first.p(2, "anne", BALL_IN_BOX_SECOND) == 1.0
    assert first.p(2, "anne", BALL_ON_BASKET, about="bob") == 1.0
    found = team_misalignments([first.beliefs[2]["anne"], first.beliefs[2]["bob"]], vocabulary=HOUSEHOLD_VOCABULARY)
    ball = [(m["kind"], m["agents"]) for m in found if m["topic"] == "place of <ball>(1)"]
    # (bob, likewise, does not know that anne saw where the ball went)
    assert sorted(ball) == [("false_belief", ["anne", "bob"]), ("false_belief", ["bob", "anne"])], found
    # step 1: first-order anne tells bob where the ball went; level-0 anne shelves a book
    assert first.action(1, "anne") == f"say anne AT <bedroom>(2002)\n{BALL_IN_BOX_SECOND}"
    assert zero.action(1, "anne") == "put book_1 bookshelf"
    # her message corrects her own model of bob (she believes he believes what she told him)
    assert first.p(3, "anne", BALL_IN_BOX_SECOND, about="bob") == 1.0 and first.p(3, "bob", BALL_IN_BOX_SECOND) >= 0.9
    # level 0 never held the false belief about bob: it takes him to know the box
    assert zero.p(2, "anne", BALL_IN_BOX_SECOND, about="bob") == 1.0
    # bob, told, goes to the bedroom at step 2; untold, he searches the kitchen
    assert first.action(2, "bob") == "walk bedroom" and zero.action(2, "bob") == "walk kitchen"


def test_level_zero_is_an_option_of_the_cobel_agent() -> None:
    assert CoBelAgent().order == 1 and make_agent("cobel:order=0", "household").order == 0
    assert make_agent("cobel:order=0", "household").describe()["order"] == 0
    for bad in (2, -1, True):
        with pytest.raises(ValueError, match="order"):
            CoBelAgent(order=bad)


def test_level_zero_and_no_first_order_are_opposite_assumptions_and_not_combined() -> None:
    """``order=0`` takes a partner to know what the agent knows, ``first_order=false`` to know nothing
    (docs/cobel.md): the error of each names the other, and together they are refused (``order=0``
    replaces the model ``first_order=false`` would leave empty)."""
    with pytest.raises(ValueError, match="first_order=false is the opposite"):
        CoBelAgent(order=2)
    with pytest.raises(AgentSpecError, match="order=0 with first_order=false") as caught:
        make_agent("cobel:order=0,first_order=false", "household")
    assert "\n" not in str(caught.value)
    assert make_agent("cobel:first_order=false", "household").describe()["order"] == 1


def spec_of(name: str) -> dict[str, Any]:
    """A scenario file's data for the world's validator (the loader takes its teaching
    ``questions`` out first: ``sim/questions.py``)."""
    data = read_json(find_scenario(name))
    data.pop("questions", None)
    return data


@pytest.mark.parametrize("change, field", [
    (lambda d: d["objects"].append({"id": "cup_9", "class": "cup", "at": "sally"}), "objects[5].at"),
    (lambda d: d["agents"][0]["explored"].append("attic"), "agents[0].explored[2]"),
    (lambda d: d["places"][0].update(label="ball"), "places[0].label"),
    (lambda d: d["moves"][0].update(to="attic"), "moves[0].to"),
    (lambda d: d["moves"][0].update(object="nothing"), "moves[0].object"),
    (lambda d: d["moves"][0].update(seen_by=["carol"]), "moves[0].seen_by[0]"),
    (lambda d: d["moves"][0].update(seen_by=["sally"]), "moves[0]"),
])
def test_bad_teaching_fields_name_the_field(change, field) -> None:
    data = copy.deepcopy(spec_of(TRANSFER))
    change(data)
    with pytest.raises(ScenarioError, match=re.escape(f"field '{field}'")):
        validate_household(data, "x.json")


def test_a_move_waits_until_its_conditions_hold_and_happens_once() -> None:
    data = copy.deepcopy(spec_of(TRANSFER))
    data["moves"][0]["after"] = 0
    world = HouseholdWorld(validate_household(data, "x.json"))
    ball = world.object_index["ball_1"]
    s = world.reset(0)
    assert [o for o in s.hands[world.agent_index["sally"]]] == [world.object_index["cup_1"], world.object_index["cup_2"]]
    assert world.observe(s, "sally").room_explored and world.observe(s, "sally").explored == ("playroom", "kitchen")
    # sally stays in the playroom: nothing moves
    s = world.step(s, {"sally": "wait", "anne": "walk bedroom"}).state
    assert world.where(s, ball) == "basket" and s.moved == 0
    result = world.step(s, {"sally": "walk kitchen", "anne": "wait"})
    assert [e.kind for e in result.events] == ["walked", "moved"]
    s = result.state
    assert world.where(s, ball) == "box" and s.moved == 1
    # brought back to the basket while sally is away, it stays there: a move happens once
    s = world.step(s, {"sally": "wait", "anne": "put book_1 shelf"}).state
    s = world.step(s, {"sally": "wait", "anne": "grab ball_1"}).state
    s = world.step(s, {"sally": "wait", "anne": "walk playroom"}).state
    result = world.step(s, {"sally": "wait", "anne": "put ball_1 basket"})
    assert [e.kind for e in result.events] == ["put"] and world.where(result.state, ball) == "basket"


@pytest.mark.parametrize("kind", ["rhp", "coela", "capo", "mhp", "tom-helper", "cobel:order=0"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_household_agent_finishes_the_scenarios_without_an_illegal_action(scenario: str, kind: str) -> None:
    """Labels and moves are for every planner: a labelled receptacle is opened before a grab
    from it, and a belief found wrong is dropped."""
    world, name = load_scenario(scenario)
    session = Session(world, {a: make_agent(kind, "household") for a in world.agents}, seed=0, scenario=name)
    session.run()
    assert world.outcome(session.state)["success"]
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]
