"""A world declared only under ``tests/`` (``tests/corridor_world.py``: its rules, its plug-in
registered here for this module only with ``sim.plugins.registered``, its method declarations) is played by every method of
the papers without a line changed outside this folder: ProToM as facilitator, the llm agent and
facilitator against a real OpenAI-compatible server on loopback, the team mechanism with the
world's declared team seats and score, and a human seat fed actions as the app feeds them."""

from __future__ import annotations

import pytest

from agents.human.seat import HumanAgent
from agents.methods import families_with
from agents.registry import AgentSpecError, agent_kinds, make_agent, make_mechanism, mechanism_kinds
from experiments.team_diagnosis import default_agents
from experiments.teams import final_team_score
from sim.events import BeliefEvent, ErrorEvent, FeedbackStatusEvent, LLMCallEvent, StepEvent, TeamEvent
from sim.session import Session, TickStatus
from tests import corridor_world
from tests.corridor_world import FAMILY
from tests.llm_loopback import LoopbackLLM


@pytest.fixture(scope="module")
def world():
    with corridor_world.installed() as corridor:
        yield corridor


def test_the_methods_find_the_world_by_its_declaration(world):
    for method in ("protom", "llm", "teams"):
        assert FAMILY in families_with(method)
    assert agent_kinds()["llm"].plays(FAMILY)
    for kind in ("protom", "oracle", "random", "llm"):
        assert FAMILY in mechanism_kinds()[kind].worlds()
    assert not agent_kinds()["llm"].plays("household")  # declares no llm prompts
    with pytest.raises(AgentSpecError, match="does not work in 'household'"):
        make_mechanism("protom", "household")


def test_protom_facilitates_the_corridor(world):
    protom = make_mechanism("protom", FAMILY)
    seats = {a: make_agent("corridor-walker", FAMILY) for a in world.agents}
    session = Session(world, seats, seed=3, mechanisms=[protom])
    session.run()
    assert session.outcome()["success"]
    posteriors = [e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "goal_posterior"]
    assert posteriors, "ProToM inferred nothing"
    last = {p["agent"]: p["goals"] for p in posteriors[-2:]}
    # after watching both walk, the true gems are the most probable ones
    assert max(last["alice"], key=last["alice"].get) == "east" and last["alice"]["east"] > 0.9
    assert max(last["bob"], key=last["bob"].get) == "west" and last["bob"]["west"] > 0.9
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]


def test_the_llm_agent_and_facilitator_play_it_against_a_loopback_server(world):
    # the model answers the first legal action listed and, as facilitator, "nothing"
    choose = lambda options, where: "nothing" if "nothing" in options else options[0]  # noqa: E731
    with LoopbackLLM("ok", choose=choose) as server:
        url = f"base_url={server.base_url}"
        seats = {"alice": make_agent(f"llm:k=1,{url}", FAMILY), "bob": make_agent("corridor-walker", FAMILY)}
        facilitator = make_mechanism(f"llm:{url}", FAMILY)
        session = Session(world, seats, seed=0, mechanisms=[facilitator], max_ticks=6)
        session.run()
        prompts = [r["messages"] for r in server.requests]
    steps = [e for e in session.events if isinstance(e, StepEvent)]
    assert [s.joint_action.get("alice") for s in steps][::2] == ["left", "right", "left"]  # the model's moves
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]
    tom = [e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "tom"]
    assert [t["source"] for t in tom] == ["model"] * 3 and tom[0]["level_names"] == ["ToM_level1"]
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    assert {c.module for c in calls} == {"planning", "feedback"}
    assert any("you want the east gem" in m[0]["content"] for m in prompts)
    assert any("Corridor facilitator." in m[0]["content"] for m in prompts)
    assert session.metrics()["feedback"] == 0


def test_without_usable_answers_the_declared_fallback_walks_to_the_gem(world):
    with LoopbackLLM("not_json_answer") as server:
        agent = make_agent(f"llm:k=0,base_url={server.base_url},max_retries=0,repair_attempts=0", FAMILY)
        session = Session(world, {"alice": agent, "bob": make_agent("corridor-walker", FAMILY)}, seed=0)
        session.run()
    assert session.outcome()["success"]
    fallbacks = [e for e in session.events if isinstance(e, ErrorEvent) and e.kind == "llm_fallback"]
    assert fallbacks and all("took the walker's action 'right'" in e.message for e in fallbacks)


def test_the_team_mechanism_forms_teams_of_the_declared_seats_and_scores_them(world):
    assert default_agents("corridor", world) == ["corridor-walker:k=1"]
    seats = {a: make_agent(default_agents("corridor", world)[0], FAMILY) for a in world.agents}
    teams = make_mechanism("teams", FAMILY)
    session = Session(world, seats, seed=0, mechanisms=[teams])
    outcome = session.run()
    assert [e for e in session.events if isinstance(e, TeamEvent)]
    team = teams.episode_summary()["team"]
    assert team and set(team) <= set(world.agents)
    expected = sum(1 - outcome["arrived"][a] / outcome["t_max"] for a in team) / len(team)
    assert final_team_score(FAMILY, outcome, team) == pytest.approx(expected)


def test_a_human_seat_plays_it_as_the_app_feeds_it(world):
    human = HumanAgent("person")
    session = Session(world, {"alice": human, "bob": make_agent("corridor-walker", FAMILY)}, seed=0,
                      mechanisms=[make_mechanism("protom", FAMILY)])
    moves = iter(["right"] * 5)
    status = session.advance()
    while status != TickStatus.DONE:
        if status == TickStatus.WAITING:  # the app's worker waits for the person; a key press submits the action
            human.submit(next(moves))
        status = session.advance()
    assert session.outcome()["success"] and session.outcome()["arrived"]["alice"] is not None
    statuses = [e for e in session.events if isinstance(e, FeedbackStatusEvent)]
    assert all(e.status in ("accepted", "ignored", "completed", "not_executable") for e in statuses)
    # an illegal key is refused and the person is asked again, as in the app
    human2 = HumanAgent("person")
    start = Session(world, {"alice": human2, "bob": make_agent("corridor-walker", FAMILY)}, seed=0)
    assert start.advance() == TickStatus.WAITING
    human2.submit("jump")
    start.advance()
    assert human2.last_refusal is not None and "unknown action" in human2.last_refusal[1]
