"""The LLM pieces of the kitchen against a real loopback HTTP endpoint: the Figure A8
facilitator (its prompt, its options, the feedback it sends and the "None" answer) and the
LLM cook (its fog-of-war prompt, the model's actions, the simulated cook's fallback)."""

from __future__ import annotations

from agents.llm.client import LLMClient
from agents.llm.config import LLMSettings
from agents.llm.agent import LLMAgent
from agents.llm.facilitator import LLMFacilitator
from agents.llm.kitchen import describe_state
from agents.kitchen.heuristic import KitchenHeuristicAgent
from agents.protom.kitchen import load_world
from agents.registry import agent_kinds, make_mechanism, mechanism_kinds
from sim.events import ErrorEvent, FeedbackEvent, FeedbackStatusEvent, LLMCallEvent, StepEvent
from sim.registry import SCENARIO_DIR, load_scenario
from sim.session import Session
from tests.llm_loopback import LoopbackLLM

LEVELS = SCENARIO_DIR / "kitchen" / "protom"
PASS_ONION = "Bob passes the FreshOnion in (1, 10) to Alice"


def client(server: LoopbackLLM, **kw) -> LLMClient:
    return LLMClient(LLMSettings(base_url=server.base_url, **kw), sleep=lambda s: None)


def test_the_llm_kinds_play_both_worlds():
    assert agent_kinds()["llm"].worlds() == ("dkg", "kitchen")
    assert mechanism_kinds()["llm"].worlds() == ("dkg", "kitchen")


def test_the_facilitator_asks_with_figure_a8_and_sends_the_chosen_pass():
    world = load_world(LEVELS / "kitchen-15-walled-onion.kitchen.txt")
    # the model passes the onion when it is an option, else says "None" (inferred goals: the first dish)
    choose = lambda options, where: (PASS_ONION if PASS_ONION in options else "None" if "None" in options  # noqa: E731
                                     else options[0])
    with LoopbackLLM("ok", choose=choose) as server:
        facilitator = LLMFacilitator(client=client(server))
        seats = {a: KitchenHeuristicAgent() for a in world.agents}
        session = Session(world, seats, seed=0, mechanisms=[facilitator], max_ticks=40)
        session.run()
        prompt = server.requests[0]["messages"][0]["content"]
    assert "multi-agent 2d grid Overcooked environment" in prompt
    assert "# Your Task as a Social Facilitator" in prompt and "## Recent action history" in prompt
    assert f"- {PASS_ONION}\n" in prompt and prompt.count("\n- None") == 1
    assert "wants" not in prompt  # the cooks' goals are not given away
    feedback = [e for e in session.events if isinstance(e, FeedbackEvent)]
    assert feedback[0].target == "bob" and feedback[0].tick == 1
    assert feedback[0].feedback == {"type": "pass", "agent": "bob", "item": "FreshOnion", "at": [1, 10],
                                   "to": "alice", "via": [1, 6]}
    assert feedback[0].text.startswith("Bob, please pass the FreshOnion at (1, 10) to Alice")
    statuses = [(e.agent, e.status) for e in session.events if isinstance(e, FeedbackStatusEvent)]
    assert statuses[:2] == [("bob", "accepted"), ("bob", "completed")]
    assert session.outcome()["success"]  # without the pass Alice could never cook


def test_a_none_answer_sends_nothing():
    world = load_world(LEVELS / "kitchen-15-walled-onion.kitchen.txt")
    with LoopbackLLM("ok", choose=lambda options, where: "None" if "None" in options else options[0]) as server:
        session = Session(world, {a: KitchenHeuristicAgent() for a in world.agents}, seed=0,
                          mechanisms=[LLMFacilitator(client=client(server))], max_ticks=5)
        session.run()
    assert session.metrics()["feedback"] == 0 and session.metrics()["llm_calls"] == 5


def test_the_llm_facilitator_kind_still_works_in_doors_keys_and_gems():
    facilitator = make_mechanism("llm:base_url=http://127.0.0.1:9/v1", "dkg")
    assert isinstance(facilitator, LLMFacilitator)
    world, _ = load_scenario("two-rooms")
    facilitator.reset(world, world.reset(0), None)
    assert type(facilitator.play).__name__ == "DKGLLM" and facilitator.history == []


def test_the_state_text_lists_agents_and_objects():
    world = load_world(LEVELS / "kitchen-15-walled-onion.kitchen.txt")
    text = describe_state(world, world.reset(0))
    assert " 1 /.1...-...o.*" in text
    assert "- Alice (digit 1): at (1, 2); holds nothing; has not delivered yet" in text
    assert "FreshOnion on the counter at (1, 10)" in text


def test_the_llm_cook_sees_only_its_room_and_plays_the_models_actions():
    world = load_world(LEVELS / "kitchen-15-walled-onion.kitchen.txt")
    with LoopbackLLM("ok", choose=lambda options, where: "left" if "left" in options else options[0]) as server:
        cook = LLMAgent(k=1, client=client(server))
        session = Session(world, {"alice": cook, "bob": KitchenHeuristicAgent()}, seed=0, max_ticks=3)
        session.run()
        system, user = server.requests[0]["messages"]
    assert "You are Alice (digit 1). Your goal dish is SimpleOnion." in system["content"]
    assert " 1 /.1...-...?.*" in user["content"]  # Bob's onion is out of view
    steps = [e for e in session.events if isinstance(e, StepEvent)]
    assert [s.joint_action["alice"] for s in steps] == ["left", "left", "left"]
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]


def test_without_usable_answers_the_simulated_cook_finishes_the_dish():
    world = load_world(LEVELS / "kitchen-01-two-kitchens.kitchen.txt")
    with LoopbackLLM("not_json_answer") as server:
        cooks = {a: LLMAgent(k=0, client=client(server, max_retries=0, repair_attempts=0)) for a in world.agents}
        session = Session(world, cooks, seed=0)
        session.run()
    assert session.outcome()["success"] and session.outcome()["ticks"] == 12  # the noise-free plan
    fallbacks = [e for e in session.events if isinstance(e, ErrorEvent) and e.kind == "llm_fallback"]
    assert len(fallbacks) == sum(len(s.joint_action) for s in session.events if isinstance(s, StepEvent))
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    assert len(calls) == len(fallbacks)  # one call per decision, no retries, each unusable
