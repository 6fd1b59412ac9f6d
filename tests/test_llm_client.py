"""The LLM client against a real OpenAI-compatible server on loopback: structured output,
validation, repair, retries, degrading response formats, token accounting; and the k-level
ToM answer formats of Belief-Aligned Team Formation, Appendix C."""

import json
from pathlib import Path

import jsonschema
import pytest

from agents.llm.agent import LLMAgent
from agents.llm.client import (
    AnswerError,
    LLMClient,
    OpenAITransport,
    extract_json,
    fold_system,
    strict_schema,
    token_usage,
    validation_problem,
)
from agents.llm.config import EmbeddedSettings, LLMSettings
from agents.llm.dkg import history_window
from agents.llm.server import EmbeddedServer
from agents.llm.tom import final_action, level_names, tom_levels, tom_schema, tom_template
from sim.events import ErrorEvent, LLMCallEvent
from sim.registry import load_scenario
from sim.session import Session
from tests.llm_loopback import LoopbackLLM

SCHEMA = {"type": "object", "properties": {"move": {"type": "string", "enum": ["up", "down"]}},
          "required": ["move"], "additionalProperties": False}
MESSAGES = [{"role": "user", "content": "Which way? Answer JSON."}]


def client_for(server: LoopbackLLM, **settings) -> tuple[LLMClient, list[float]]:
    waits: list[float] = []
    base = {"base_url": server.base_url, "timeout": 1.0, "max_retries": 2, "backoff": 0.25}
    client = LLMClient(LLMSettings(**{**base, **settings}), sleep=waits.append)
    return client, waits


def ask(client: LLMClient, **kw):
    return client.ask_json(MESSAGES, SCHEMA, agent="alice", module="planning", tick=3, **kw)


def test_a_valid_answer_is_one_recorded_call_with_tokens():
    with LoopbackLLM("ok") as server:
        client, _ = client_for(server, structured_output="json_schema", model="m1", temperature=0.2)
        outcome = ask(client, seed=11)
    assert outcome.ok and outcome.value == {"move": "up"} and outcome.attempts == 1
    (call,) = outcome.events
    assert isinstance(call, LLMCallEvent) and call.error is None and call.tick == 3
    assert call.request["body"]["response_format"]["type"] == "json_schema"
    assert call.request["body"]["model"] == "m1" and call.request["body"]["seed"] == 11
    assert call.prompt_tokens > 0 and call.completion_tokens > 0
    assert json.loads(call.response["content"]) == {"move": "up"}
    # what reached the server is what was recorded (minus transport headers)
    assert server.requests[0]["messages"] == call.request["body"]["messages"]
    assert server.requests[0]["response_format"] == call.request["body"]["response_format"]
    assert client.ledger.as_dict() == {"alice": {"planning": {"calls": 1, "prompt_tokens": call.prompt_tokens,
                                                              "completion_tokens": call.completion_tokens}}}
    assert token_usage(outcome.events) == client.ledger.as_dict()


def test_llama_cpp_style_json_object_with_schema():
    with LoopbackLLM("ok") as server:
        client, _ = client_for(server, structured_output="json_object")
        outcome = ask(client)
    assert outcome.ok
    assert server.requests[0]["response_format"] == {"type": "json_object", "schema": SCHEMA}


def test_an_endpoint_without_json_schema_gets_json_object_next():
    with LoopbackLLM("ok", reject_json_schema=True) as server:
        client, waits = client_for(server)  # auto: json_schema for a non-embedded endpoint
        outcome = ask(client)
        again = ask(client)
    assert outcome.ok and again.ok and waits == []
    kinds = [e.kind for e in outcome.events if isinstance(e, ErrorEvent)]
    assert kinds == ["llm_rejected_format"]
    assert [r["response_format"]["type"] for r in server.requests] == ["json_schema", "json_object", "json_object"]
    assert client.structured_mode() == "json_object"


def test_a_transient_500_is_retried_with_backoff():
    with LoopbackLLM("error500", fail_first=2) as server:
        client, waits = client_for(server)
        outcome = ask(client)
    assert outcome.ok and outcome.attempts == 3
    assert waits == [0.25, 0.5]  # doubles each retry
    calls = [e for e in outcome.events if isinstance(e, LLMCallEvent)]
    assert [c.error is not None for c in calls] == [True, True, False]
    assert all("HTTP 500" in c.error for c in calls[:2])
    assert [c.request["attempt"] for c in calls] == [1, 2, 3]


def test_an_answer_that_is_not_json_is_repaired_by_asking_again():
    with LoopbackLLM("not_json_answer", fail_first=1) as server:
        client, waits = client_for(server, repair_attempts=1)
        outcome = ask(client)
    assert outcome.ok and outcome.attempts == 2 and waits == []
    errors = [e for e in outcome.events if isinstance(e, ErrorEvent)]
    assert [e.kind for e in errors] == ["llm_invalid_answer"]
    repair = server.requests[1]["messages"]
    assert repair[:1] == MESSAGES and repair[1]["role"] == "assistant" and "invalid JSON" in repair[2]["content"]


def test_budgets_are_bounded():
    with LoopbackLLM("not_json_answer") as server:
        client, _ = client_for(server, repair_attempts=2)
        outcome = ask(client)
    assert not outcome.ok and outcome.attempts == 3 and "invalid JSON" in outcome.failure
    with LoopbackLLM("error500") as server:
        client, waits = client_for(server, max_retries=1)
        outcome = ask(client)
    assert not outcome.ok and outcome.attempts == 2 and len(waits) == 1


def test_a_custom_check_can_refuse_a_schema_valid_answer():
    with LoopbackLLM("ok") as server:
        client, _ = client_for(server, repair_attempts=1)
        outcome = ask(client, check=lambda value: "up is blocked" if value["move"] == "up" else None)
    assert not outcome.ok and "up is blocked" in outcome.failure and len(server.requests) == 2


def test_extract_json_and_validation():
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Sure! {"a": {"b": 2}} Hope that helps.') == {"a": {"b": 2}}
    with pytest.raises(AnswerError, match="invalid JSON"):
        extract_json("no json here")
    assert validation_problem({"move": "up"}, SCHEMA) is None
    assert "move" in validation_problem({"move": "sideways"}, SCHEMA)
    assert "maxLength" not in json.dumps(strict_schema(tom_schema(1, ["up"])))


@pytest.mark.parametrize("k", [0, 1, 2])
def test_tom_templates_and_schemas(k):
    legal = ["up", "wait", "pickup key1"]
    schema = tom_schema(k, legal)
    template = tom_template(k, "one of your legal actions")
    names = level_names(k)
    assert names == {0: ["ToM_level0"], 1: ["ToM_level1"], 2: ["ToM_level1", "ToM_level2"]}[k]
    # each level answers a different legal action, so the test sees which level's action is taken
    per_level = {"ToM_level0": "up", "ToM_level1": "wait", "ToM_level2": "pickup key1"}
    if k == 0:
        # a level-0 agent's belief is always "no belief": the model gives only the action, and the
        # level is written out in the paper's form
        assert list(json.loads(template)) == ["action"]
        answer = {"action": "up"}
        assert tom_levels(answer, 0) == {"ToM_level0": {"belief": "no belief", "action": "up"}}
    else:
        assert list(json.loads(template)) == names
        answer = {name: {"belief": "bob fetches the key", "explanation": "so I act", "action": per_level[name]}
                  for name in names}
        assert tom_levels(answer, k) == answer
    jsonschema.validate(answer, schema)
    assert final_action(answer, k) == {0: "up", 1: "wait", 2: "pickup key1"}[k]  # the highest level's
    bad = json.loads(json.dumps(answer))
    (bad if k == 0 else bad[names[-1]])["action"] = "fly"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    with pytest.raises(jsonschema.ValidationError):  # the paper's full level-0 block is not the answer asked
        jsonschema.validate({"ToM_level0": {"belief": "no belief", "action": "up"}}, tom_schema(0, legal))
    with pytest.raises(ValueError, match="0, 1 or 2"):
        tom_schema(3, legal)


def test_answers_with_raw_newlines_inside_strings_are_read():
    """llama.cpp's JSON grammar lets a raw newline into a string; the answer is still usable."""
    from agents.llm.client import extract_json

    assert extract_json('{"belief": "Bob wants\nthe gem", "action": "up"}') == \
        {"belief": "Bob wants\nthe gem", "action": "up"}


def embedded_client(server: LoopbackLLM) -> LLMClient:
    """A client whose settings name the embedded model, talking to the loopback server."""
    settings = LLMSettings(timeout=2.0, max_retries=0)
    assert settings.uses_embedded
    return LLMClient(settings, transport=OpenAITransport(server.base_url, None, settings.timeout))


def test_the_embedded_model_gets_the_system_text_at_the_head_of_the_first_user_message():
    """llama.cpp's gemma template has no system role and drops system messages: the client folds
    them into the first user message, as Gemma's own template does; other endpoints get them as is."""
    messages = [{"role": "system", "content": "RULES"}, {"role": "user", "content": "STATE"}]
    assert fold_system(messages) == [{"role": "user", "content": "RULES\n\nSTATE"}]
    assert fold_system([{"role": "system", "content": "RULES"}]) == [{"role": "user", "content": "RULES"}]
    with LoopbackLLM("ok") as server:
        client = embedded_client(server)
        client.ask_json(messages, SCHEMA, agent="alice", module="planning", tick=0)
        other, _ = client_for(server)
        other.ask_json(messages, SCHEMA, agent="alice", module="planning", tick=0)
    assert server.requests[0]["messages"] == [{"role": "user", "content": "RULES\n\nSTATE"}]
    assert server.requests[1]["messages"] == messages


def test_dkg_prompts_share_one_static_prefix_across_seats_and_ticks():
    """What a server can reuse: every k = 0 request of an episode, alice's and bob's, starts with
    the same rules, world and answer format, then the recent actions, one list for both seats that
    each request extends; the seat, its goal and the state come after it. Checked in the request
    JSON the server received."""
    world, name = load_scenario("two-rooms")
    with LoopbackLLM("ok") as server:
        client = embedded_client(server)
        seats = {a: LLMAgent(k=0, client=client) for a in world.agents}
        Session(world, seats, seed=0, scenario=name, max_ticks=6).run()
    bodies = server.requests
    assert len(bodies) == 6
    texts = []
    for body in bodies:
        assert [m["role"] for m in body["messages"]] == ["user"]
        assert body["response_format"]["type"] == "json_object"
        assert body["response_format"]["schema"]["required"] == ["action"]  # k = 0: the action alone
        texts.append(body["messages"][0]["content"])
    prefixes = {t[:t.index("Recent actions")] for t in texts}
    assert len(prefixes) == 1
    (prefix,) = prefixes
    assert prefix.startswith("Consider a multi-agent Doors, Keys, and Gems environment")
    assert '"action"' in prefix and "Agent actions" in prefix and "door1 (red door)" in prefix
    assert "Tick " not in prefix and "legal actions now" not in prefix and "You are" not in prefix
    heads = []
    for text, seat, tick in zip(texts, ["alice", "bob"] * 3, range(6)):
        tail = text[len(prefix):]
        head, _, rest = tail.partition(f"\n\nYou are {seat}. Your goal is to collect ")
        assert rest, tail
        assert rest.index(f"Tick {tick} of ") < rest.index("Your legal actions now: ")
        # every action so far, the first mover's too (bob knows the start layout)
        assert head.count("\n- tick ") == tick
        heads.append(head)
    for before, after in zip(heads[1:], heads[2:]):  # each request's actions start with the previous one's
        assert after.startswith(before)


def test_the_history_window_moves_in_steps_and_keeps_at_most_its_length():
    history = [(t, "alice" if t % 2 == 0 else "bob", "wait") for t in range(30)]
    kept = {t: [e[0] for e in history_window([e for e in history if e[0] < t], t, 10)] for t in range(31)}
    assert kept[3] == [0, 1, 2] and kept[10] == list(range(10))
    assert kept[11] == list(range(5, 11)) and kept[15] == list(range(5, 15)) and kept[16] == list(range(10, 16))
    for t, ticks in kept.items():
        assert len(ticks) <= 10 and (t < 10 or len(ticks) >= 6)
        assert ticks == list(range(t - len(ticks), t))
    assert history_window(history, 30, 0) == []
    assert [e[0] for e in history_window(history, 30, 1)] == [29]


def test_the_embedded_server_keeps_logits_of_the_last_token_only():
    command = EmbeddedServer(EmbeddedSettings(threads=1)).command(Path("m.gguf"), 8080)
    assert command[command.index("--logits_all") + 1] == "false"
    assert command[command.index("--chat_format") + 1] == "gemma"
