"""The planner trader: full games, ToM value reports, inference of the opponent's target."""

import numpy as np
import pytest

from agents.registry import AgentSpecError, make_agent
from sim.events import BeliefEvent, ErrorEvent
from sim.registry import load_scenario
from sim.session import Session


def play(name, specs, seed=0):
    world, scenario = load_scenario(name)
    seats = {a: make_agent(specs[k % len(specs)], "tradecraft") for k, a in enumerate(world.agents)}
    session = Session(world, seats, seed=seed, scenario=scenario)
    outcome = session.run()
    return world, session, outcome


def reports(session):
    return [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "tom_values"]


def test_traders_play_a_full_game_and_report_at_every_proposal_and_decision():
    world, session, outcome = play("mc1v1-01", ["trader"])
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]
    assert outcome["turns"] >= 1 and session.finished
    found = reports(session)
    assert len([r for r in found if r.data["stage"] == "proposal"]) == outcome["proposals"]
    assert len([r for r in found if r.data["stage"] == "decision"]) == outcome["proposals"]
    for r in found:
        d = r.data
        assert set(d) >= {"stage", "turn", "opponent", "order", "items", "V0", "V1", "V2", "beliefs", "utility"}
        for key in ("V0", "V1", "V2"):
            assert set(d[key]) == set(d["items"])
            assert all(0.0 <= v <= 10.0 for v in d[key].values())


def test_reports_follow_the_configured_order():
    _, session, _ = play("mc1v1-05", ["trader:order=0", "trader:order=1"])
    by_owner = {}
    for r in reports(session):
        by_owner.setdefault(r.owner, set()).update(k for k in ("V0", "V1", "V2") if k in r.data)
    assert by_owner["alice"] == {"V0"}
    assert by_owner["bob"] == {"V0", "V1"}


def test_v0_marks_the_target_route():
    seen_essential = 0
    for name in ("mc1v1-01", "mc1v1-09", "mc1v1-15", "mc1v1-25"):
        world, session, _ = play(name, ["trader"])
        first = next(r for r in reports(session) if r.owner == "alice")
        target = next(iter(world.target_of("alice")))
        v0 = first.data["V0"]
        needed = world.graph.essential(target, set(first.data["items"]))
        seen_essential += len(needed)
        assert all(v0[i] == 10.0 for i in needed)
        assert all(v0[i] == 0.0 for i in first.data["items"]
                   if i not in world.graph.relevant(target, set(first.data["items"])))
    assert seen_essential > 0


def test_inference_puts_more_mass_on_the_true_target_than_the_prior():
    gains = []
    for name in ("mc1v1-03", "mc1v1-07", "mc1v1-12", "mc1v1-20", "mc1v1-30"):
        world, session, _ = play(name, ["trader:explore=0"])
        for r in reports(session):
            if r.data["stage"] != "decision":
                continue
            truth = next(iter(world.target_of(r.data["opponent"])))
            posterior = r.data["beliefs"]["opponent_target"]
            gains.append(posterior.get(truth, 0.0))
    assert gains and np.mean(gains) > 0.25  # candidates number 10-40, so the uniform prior is far lower


def test_three_player_games_run():
    _, session, outcome = play("mc3p-01", ["trader"])
    assert session.finished and not [e for e in session.events if isinstance(e, ErrorEvent)]


def test_bad_trader_specs_are_refused():
    with pytest.raises(AgentSpecError, match="parameter .order.: expected 0, 1 or 2, got 3"):
        make_agent("trader:order=3", "tradecraft")
    with pytest.raises(AgentSpecError, match="does not play 'dkg'"):
        make_agent("trader", "dkg")
