"""A human cook's accepted Pass or Pickup is judged completed or not executable from the state
(``agents.kitchen.feedback.feedback_progress``, the kitchen plug-in's judge), as the simulated
cooks judge their own; played through a Session with a human seat and the ProToM facilitator."""

from __future__ import annotations

from agents.human.seat import HumanAgent
from agents.kitchen.feedback import feedback_progress
from agents.registry import make_agent, make_mechanism
from sim.events import FeedbackEvent, FeedbackStatusEvent
from sim.plugins import plugin, resolve
from sim.registry import SCENARIO_DIR, build_world, load_spec
from sim.session import Session, TickStatus

# kitchen-08: Alice (SimpleOnion) at (1, 2); her onion lies at (0, 8) in Bob's room, Bob at (1, 9);
# the counter in the wall at (1, 7) is seen and reached from both rooms.
PASS = {"type": "pass", "agent": "bob", "item": "FreshOnion", "at": [0, 8], "to": "alice", "via": [1, 7]}


def world():
    return build_world(*load_spec(SCENARIO_DIR / "kitchen" / "protom" / "kitchen-08-onion-next-door.kitchen.txt"))


def play(w, state, *bob_moves):
    for move in bob_moves:
        state = w.step(state, {"alice": "stay", "bob": move}).state
    return state


def test_the_plugin_names_the_judge_and_the_particles_panel():
    kitchen = plugin("kitchen")
    assert resolve(kitchen.feedback_progress) is feedback_progress
    assert "ui.beliefs.particles:ParticlesPanel" in kitchen.panels


def test_a_pass_is_completed_once_the_item_lies_on_the_shared_counter():
    w = world()
    s0 = w.reset(0)
    assert feedback_progress(w, s0, "bob", PASS) is None
    s2 = play(w, s0, "left", "up")  # to (1, 8), then work (0, 8): Bob holds the onion
    assert w.render_text(s2) and feedback_progress(w, s2, "bob", PASS) is None
    s3 = play(w, s2, "left")  # work (1, 7): the onion goes onto the counter in the wall
    assert feedback_progress(w, s3, "bob", PASS) == "completed"
    no_via = {k: v for k, v in PASS.items() if k != "via"}
    assert feedback_progress(w, s2, "bob", no_via) is None and feedback_progress(w, s3, "bob", no_via) == "completed"


def test_a_pass_whose_item_went_elsewhere_is_not_executable():
    w = world()
    s0 = w.reset(0)
    gone = dict(PASS, item="FreshTomato")  # nothing of the sort lies at (0, 8), nor in Bob's hand
    assert feedback_progress(w, s0, "bob", gone) == "not_executable"
    s2 = play(w, s0, "left", "up", "down")  # Bob holds the onion and walks off: still to do
    assert feedback_progress(w, s2, "bob", PASS) is None
    s4 = play(w, s0, "left", "up", "right", "up")  # ... and leaves it on (0, 9), not on the shared counter
    assert s4.contents[w.station_at[w.cell(0, 9)]] == s0.contents[w.station_at[w.cell(0, 8)]]
    assert feedback_progress(w, s4, "bob", PASS) == "not_executable"
    assert feedback_progress(w, s0, "bob", dict(PASS, via=[3, 3])) is None  # (3, 3) is floor: not judged


def test_a_pickup_is_completed_when_the_cook_took_that_item():
    w = world()
    s0 = w.reset(0)
    pickup = {"type": "pickup", "agent": "bob", "item": "FreshOnion", "at": [0, 8]}
    assert feedback_progress(w, s0, "bob", pickup) is None
    assert feedback_progress(w, play(w, s0, "left", "up"), "bob", pickup) == "completed"
    moved = play(w, s0, "left", "up", "right", "up")  # taken, then left on (0, 9): not the pickup asked for
    assert feedback_progress(w, moved, "bob", pickup) == "not_executable"
    assert feedback_progress(w, s0, "bob", {"type": "unlock", "door": "d"}) is None  # not a kitchen feedback


def test_a_human_cook_carrying_out_the_facilitators_pass_reports_it_completed():
    """Bob is a person: he accepts the suggestion of ProToM-Oracle (the true goals, so the pass does
    not wait for inference from his moves) and walks it; his seat reports
    accepted, then completed, exactly like the simulated cook would."""
    w = world()
    bob = HumanAgent()
    session = Session(w, {"alice": make_agent("kitchen-heuristic:epsilon=0.0", "kitchen"), "bob": bob}, seed=0,
                      mechanisms=[make_mechanism("oracle", "kitchen")])
    moves: list[str] = []
    decided = False
    for _ in range(100):
        result = session.advance()
        if result is TickStatus.DONE or any(isinstance(e, FeedbackStatusEvent) and e.status == "completed"
                                 for e in session.events):
            break
        if result is TickStatus.WAITING:  # Bob's turn: he answers the suggestion, then walks it
            if not decided and bob.offered:
                bob.decide(bob.offered[0].feedback_id, True)
                decided, moves = True, ["left", "up", "left"]  # PASS's route from Bob's start
            bob.submit(moves.pop(0) if moves else "stay")
    statuses = [(e.agent, e.status) for e in session.events if isinstance(e, FeedbackStatusEvent)]
    sent = [e for e in session.events if isinstance(e, FeedbackEvent)]
    assert sent and sent[0].target == "bob" and sent[0].feedback["via"] == [1, 7]
    assert statuses[:2] == [("bob", "accepted"), ("bob", "completed")]
    assert session.state.contents[w.station_at[w.cell(1, 7)]] == w.reset(0).contents[w.station_at[w.cell(0, 8)]]


def waiting_alice(w, facilitator: str, seed: int = 0, ticks: int = 30) -> list[FeedbackEvent]:
    """Alice is a person who stands still (waiting for help); Bob is the simulated cook."""
    alice = HumanAgent()
    session = Session(w, {"alice": alice, "bob": make_agent("kitchen-heuristic", "kitchen")}, seed=seed,
                      mechanisms=[make_mechanism(facilitator, "kitchen")])
    while session.tick < ticks:
        if session.advance() is TickStatus.DONE:
            break
        if session.waiting_for:
            alice.submit("stay")
    return [e for e in session.events if isinstance(e, FeedbackEvent)]


def test_a_human_cook_who_waits_for_help_gets_the_pass():
    """kitchen-08: standing still tells nothing about Alice's dish (ProToM's ``stay_evidence`` 0), so
    ProToM, unsure of her dish, still sends Bob to pass her the onion. Under rules 1 (she knows her
    onion is next door) reading her stays as evidence (``stay_evidence=1``) made her look like a tomato
    cook, and she got nothing in 30 ticks."""
    w = world()
    rules_1 = type(w)({**w.spec(), "rules": 1})
    for level in (w, rules_1):
        for seed in (0, 1):
            sent = waiting_alice(level, "protom", seed)
            assert sent and sent[0].target == "bob" and sent[0].feedback["item"] == "FreshOnion"
            assert sent[0].feedback["to"] == "alice"
    assert waiting_alice(rules_1, "protom", 0)[0].tick == 1
    assert waiting_alice(rules_1, "protom:stay_evidence=1.0", 0) == []
