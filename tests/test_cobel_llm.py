"""The CoBel agent with an LLM against a real OpenAI-compatible server on loopback (and, marked slow,
the embedded model): its five prompt modules, schema-checked answers used only when they fit the
world, and the non-LLM agent's choices when the model fails."""

from __future__ import annotations

import pytest

from agents.cobel.agent import CoBelAgent
from agents.cobel.llm_agent import MODULES, CoBelLLMAgent, make_cobel_llm_agent
from agents.llm.client import LLMClient
from agents.llm.config import LLMSettings
from sim.events import BeliefEvent, ErrorEvent, LLMCallEvent, StepEvent
from sim.session import Session
from tests.llm_loopback import LoopbackLLM
from tests.test_household_world import tiny, world_of


def llm_seat(server: LoopbackLLM, **params) -> CoBelLLMAgent:
    settings = LLMSettings(base_url=server.base_url, timeout=0.5, max_retries=0, backoff=0.0)
    return CoBelLLMAgent(client=LLMClient(settings, sleep=lambda s: None), **params)


def play(alice, bob=None, ticks: int = 6, task: str = "transport") -> Session:
    world = world_of(tiny(task))
    session = Session(world, {"alice": alice, "bob": bob or CoBelAgent()}, seed=4, max_ticks=ticks)
    session.run()
    return session


def test_a_healthy_endpoint_is_asked_each_module_and_its_answers_are_used() -> None:
    with LoopbackLLM("ok") as server:
        session = play(llm_seat(server))
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    modules = {c.module for c in calls}
    assert {"rules", "prediction", "planning"} <= modules <= set(MODULES)
    assert [c.module for c in calls].count("rules") == 1  # rules are built once
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]
    assert session.metrics()["llm_calls"] == len(calls) and all(c.error is None for c in calls)
    intents = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "intents" and e.owner == "alice"]
    assert any(e.data["sources"].get("planning") == "model" for e in intents)
    # the loopback model answers the first option, which is the planner's action: the same steps
    body = next(c.request["body"] for c in calls if c.module == "planning")
    prompt = body["messages"][1]["content"]
    assert "Options:" in prompt and "alice BELIEVE" in prompt
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["action"]["enum"][0] in prompt


def test_a_failing_endpoint_falls_back_to_the_non_llm_agent_step_for_step() -> None:
    with LoopbackLLM("error500") as server:
        session = play(llm_seat(server))
    errors = [e for e in session.events if isinstance(e, ErrorEvent)]
    assert errors and {e.kind for e in errors} == {"llm_http_status", "llm_fallback"}
    assert all(e.source == "alice" for e in errors)
    reference = play(CoBelAgent())
    steps = [e.joint_action for e in session.events if isinstance(e, StepEvent)]
    assert steps == [e.joint_action for e in reference.events if isinstance(e, StepEvent)]
    assert session.finished and session.tick == 6


def test_model_answers_are_checked_against_the_world() -> None:
    def choose(options, path):  # the last option everywhere: not the planner's action
        return options[-1]

    with LoopbackLLM("ok", choose=choose) as server:
        agent = llm_seat(server, modules="planning")
        session = play(agent, ticks=4)
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    assert {c.module for c in calls} == {"planning"}
    steps = [e.joint_action["alice"] for e in session.events if isinstance(e, StepEvent) and "alice" in e.joint_action]
    bodies = [c.request["body"] for c in calls]
    chosen = [b["response_format"]["json_schema"]["schema"]["properties"]["action"]["enum"][-1] for b in bodies]
    assert steps == chosen[:len(steps)]  # a legal option is taken as the model chose it


def test_belief_update_answers_that_are_not_sbl_are_dropped() -> None:
    with LoopbackLLM("ok") as server:
        agent = llm_seat(server, modules="belief_update")
        world = world_of(tiny())
        session = Session(world, {"alice": agent, "bob": CoBelAgent()}, seed=0, max_ticks=1)
        obs = world.observe(world.reset(0), "alice")
        agent.update_beliefs(obs)
        from dataclasses import replace
        agent.llm_belief_update(replace(obs, inbox=(("bob", "bob WILL_FETCH <bowl>(6)"),)), tick=0)
    # the loopback answers an empty list: nothing added, and no error
    assert agent.sources["belief_update"] == "model (0 atoms used)"
    from agents.cobel.agent import HOUSEHOLD_VOCABULARY
    from agents.cobel.sbl import parse
    assert session.tick == 0
    assert agent.beliefs.model_of("bob").p(parse("bob WILL_FETCH <bowl>(6)", vocabulary=HOUSEHOLD_VOCABULARY)) == 0


def test_the_factory_refuses_unknown_modules() -> None:
    with pytest.raises(ValueError, match="unknown module"):
        make_cobel_llm_agent(base_url="http://127.0.0.1:9/v1", modules="dreaming")


@pytest.mark.slow
def test_the_embedded_model_plays_a_few_steps(monkeypatch, tmp_path) -> None:
    from agents.llm.server import embedded_missing

    if embedded_missing():
        pytest.skip(embedded_missing())
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TOM_ARENA_LLM_TIMEOUT", "600")
    for var in ("OPENAI_BASE_URL", "TOM_ARENA_LLM_BASE_URL", "TOM_ARENA_LLM_CONFIG", "TOM_ARENA_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    agent = make_cobel_llm_agent(modules="prediction+planning")
    session = play(agent, ticks=2, task="household")
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    assert calls and session.finished and session.tick == 2
    assert {c.module for c in calls} <= {"prediction", "planning"}
    # every answer was either used (valid JSON for its schema) or replaced, with the reason recorded
    fallbacks = [e for e in session.events if isinstance(e, ErrorEvent) and e.kind == "llm_fallback"]
    used = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "intents"
            and e.owner == "alice" and "model" in e.data["sources"].values()]
    assert used or fallbacks


def test_the_free_text_ablation_writes_beliefs_as_sentences_and_still_plays() -> None:
    from agents.cobel.llm_agent import belief_sentence
    from agents.cobel.sbl import parse

    assert belief_sentence(parse("alice BELIEVE bob BELIEVE <apple>(3) ON <kitchen_counter>(1004)"), 0.8) == \
        "alice believes bob believes the apple 3 is on the kitchen counter 1004 (fairly sure)"
    assert belief_sentence(parse("alice BELIEVE <kitchen>(2000) EXPLORATION_STATE all"), 1.0) == \
        "alice believes the kitchen 2000 is explored: all (certain)"
    with LoopbackLLM("ok") as server:
        session = play(llm_seat(server, beliefs="text"), bob=llm_seat(server, beliefs="text"))
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    assert calls and not [e for e in session.events if isinstance(e, ErrorEvent)]
    prompts = [c.request["body"]["messages"] for c in calls]
    assert all("Symbolic Belief Language" not in m[0]["content"] for m in prompts)
    users = [m[1]["content"] for m in prompts if "Your beliefs:" in m[1]["content"]]
    assert users and all(" BELIEVE " not in u for u in users) and any(" believes " in u for u in users)
    assert session.seats["alice"].describe()["beliefs"] == "text"
    with pytest.raises(ValueError, match="beliefs='json'"):
        CoBelLLMAgent(client=LLMClient(LLMSettings(base_url=server.base_url)), beliefs="json")


class RulesLLM(LoopbackLLM):
    """Answers the rules module with rules naming the one who asked (proposal or revision)."""

    def answer(self, body):
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema", {})
        if "rules" in schema.get("properties", {}):
            prompt = body["messages"][1]["content"]
            kind = "revised" if "proposes these belief rules" in prompt else "proposed"
            me = body["messages"][0]["content"].split(",")[0].removeprefix("You are ")
            import json

            return json.dumps({"rules": [f"rule one {kind} by {me}", f"rule two {kind} by {me}"]})
        return super().answer(body)


def test_the_belief_rules_are_proposed_by_the_first_agent_and_revised_by_the_other() -> None:
    with RulesLLM("ok") as server:
        session = play(llm_seat(server, modules="rules"), bob=llm_seat(server, modules="rules"), ticks=4,
                       task="household")
    said = [(e.joint_action) for e in session.events if isinstance(e, StepEvent)]
    assert said[0]["alice"] == "say Belief rules proposed: (1) rule one proposed by alice (2) rule two proposed by alice"
    assert not said[0]["bob"].startswith("say")  # bob had nothing to revise yet
    assert said[1]["bob"] == "say Belief rules revised: (1) rule one revised by bob (2) rule two revised by bob"
    alice, bob = session.seats["alice"], session.seats["bob"]
    assert bob.rule_texts == alice.rule_texts == ["rule one revised by bob", "rule two revised by bob"]
    rules_calls = [e for e in session.events if isinstance(e, LLMCallEvent) and e.module == "rules"]
    assert [c.agent for c in rules_calls] == ["alice", "bob"]  # one proposal, one revision
    assert session.metrics()["messages"] == 2  # the exchange costs two messages
    with RulesLLM("ok") as server:
        alone = play(llm_seat(server, modules="rules", rules="alone"), bob=llm_seat(server, modules="rules", rules="alone"),
                     ticks=4, task="household")
    assert alone.metrics()["messages"] == 0
    assert alone.seats["bob"].rule_texts == ["rule one proposed by bob", "rule two proposed by bob"]
