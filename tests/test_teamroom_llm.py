"""room-llm agents in the team room through the LLM layer: against a real OpenAI-compatible
server on loopback (answers that follow the schema: references as the engineers' code, fixed
alignment scores), a failing endpoint (every fallback), exact re-runs from the transcript, and
the embedded model (Gemma 3 270M; each test skips when it cannot run here)."""

import json

import jsonschema
import pytest
from llm_loopback import LoopbackLLM, schema_instance

from agents.llm.server import embedded_missing
from agents.llm.transcript import rerun_session
from agents.teamroom.llm import LLMRoomAgent, alignment_schema, level_schema, make_room_llm, strip_fences, template
from agents.teams.mechanism import TeamFormationMechanism
from sim.events import BeliefEvent, ErrorEvent, LLMCallEvent
from sim.recording import RecordingWriter
from sim.registry import load_scenario
from sim.session import Session
from sim.teamroom.world import DebateRoom, ProgrammingRoom


@pytest.fixture
def no_endpoint(monkeypatch, tmp_path):
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TOM_ARENA_LLM_TIMEOUT", "600")
    for var in ("OPENAI_BASE_URL", "TOM_ARENA_LLM_BASE_URL", "TOM_ARENA_LLM_CONFIG", "TOM_ARENA_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)


def room(name, rounds=None):
    world, _ = load_scenario(name)
    spec = world.spec()
    if rounds is not None:
        spec["rounds"] = rounds
    return ProgrammingRoom(spec) if spec["kind"] == "programming" else DebateRoom(spec)


class ScriptedServer(LoopbackLLM):
    """A loopback endpoint whose engineers answer with given code, whose self-evaluations give
    ``score`` to everyone, and which otherwise answers the schema's first choices."""

    def __init__(self, world, code_for, score=0.5, **kw):
        super().__init__(**kw)
        self.world, self.code_for, self.score = world, code_for, score

    def answer(self, body):
        fmt = body.get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
        value = schema_instance(schema, lambda options, path: options[0])
        prompt = body["messages"][-1]["content"]
        if "belief alignment scores" in prompt:
            return json.dumps({name: {"score": self.score, "explanation": "as expected",
                                      "justification": "the action matches the belief"} for name in schema["required"]})
        for level in [k for k in value if k.startswith("ToM_level")]:
            if "Your current action is to write " in prompt:
                names = prompt.split("Your current action is to write ", 1)[1].split(". You have", 1)[0].split(", ")
                value[level]["action"] = "```python\n" + "\n\n".join(self.code_for(n) for n in names) + "\n```"
            elif value[level]["action"].startswith("text for"):
                value[level]["action"] = f"I argue for round {len(self.requests)}."
        return json.dumps(value)


def play(tmp_path, world, seats, mechanisms=(), name="room"):
    session = Session(world, seats, seed=0, scenario=world.name, mechanisms=list(mechanisms))
    path = tmp_path / f"{name}.jsonl"
    RecordingWriter.attach(session, path)
    session.run()
    return session, path


def reruns_exactly(session, path):
    again = rerun_session(path)
    again.run()
    assert [e.to_dict() for e in again.events] == [e.to_dict() for e in session.events]


def test_templates_follow_appendices_c_and_d():
    assert json.loads(template("pm", 0)) == {"ToM_level0": {
        "belief": "no belief", "action": '{x_0 The instruction for engineers. Begin with "The Engineer should ..."}'}}
    two = json.loads(template("debater", 2))
    assert list(two) == ["ToM_level1", "ToM_level2"]
    assert two["ToM_level2"]["belief"] == "{y_2: inferred actions for teammate debaters based on your arguments x_1}"
    assert two["ToM_level1"]["action"] == "{x_1: your arguments}"
    jsonschema.validate({"ToM_level0": {"belief": "no belief", "action": "x"}}, level_schema("engineer", 0))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"ToM_level1": {"belief": "b", "explanation": "e", "action": ""}}, level_schema("pm", 1))
    jsonschema.validate({"a": {"score": -1, "explanation": "", "justification": ""}}, alignment_schema(["a"]))
    assert strip_fences("```python\ndef f():\n    return 1\n```") == "def f():\n    return 1"


def test_engineers_code_is_run_and_scored_and_self_evaluations_reach_the_teams_mechanism(tmp_path, no_endpoint):
    world = room("text-tools", rounds=2)
    with ScriptedServer(world, lambda n: world.by_name[n]["reference"], score=0.5) as server:
        seats = {a: make_room_llm(k=1, base_url=server.base_url, model="loopback") for a in world.agents}
        mech = TeamFormationMechanism(round_steps=2)
        session, path = play(tmp_path, world, seats, [mech])
        out = world.outcome(session.state)
        assert out["pass_at_1"] == 1.0 and out["final_pass"] == 1.0
        # the manager's first plan came from the schema's first choice: every function to engineer1
        assert dict(session.state.plans[0].assignments) == {n: "engineer1" for n in world.subtask_names}
        assert session.state.plans[0].instruction.startswith("I argue for round")  # the server's text, as it came
        evaluations = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "alignment_self_evaluation"]
        assert evaluations and evaluations[0].owner == "pm" and evaluations[0].data["scores"] == {
            "engineer1": 0.5, "engineer2": 0.5, "engineer3": 0.5, "engineer4": 0.5}
        assert "Implemented" not in json.dumps(evaluations[0].data["actions"])
        matrix = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "alignment_matrix"][-1].data
        assert matrix["phi"][0][1] == 0.5
        levels = [e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "predictions"]
        assert levels and all(d == {"level": 1, "about": {}} for d in levels)
        calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
        assert {c.module for c in calls} == {"planning", "alignment"}
        pm_prompt = calls[0].request["body"]["messages"][-1]["content"]
        assert "There are engineers in the team. Your current action is to plan round 1." in pm_prompt
        assert "You have the ability of 1 Level Theory of Mind" in pm_prompt
        assert not [e for e in session.events if isinstance(e, ErrorEvent)]
        reruns_exactly(session, path)


def test_wrong_code_from_the_model_fails_its_tests(tmp_path, no_endpoint):
    world = room("number-tools", rounds=1)
    with ScriptedServer(world, lambda n: f"def {n}(*args):\n    return None") as server:
        seats = {a: make_room_llm(k=0, base_url=server.base_url, model="loopback") for a in world.agents}
        session, _ = play(tmp_path, world, seats)
    out = world.outcome(session.state)
    assert out["pass_at_1"] == 0.0 and out["submissions"] == 1  # everything went to engineer1
    assert session.state.submissions[0].report("is_prime").problem == "case 1: wrong result"


def test_a_debate_with_a_judge_on_the_endpoint(tmp_path, no_endpoint):
    world = room("car-free-centres", rounds=1)
    with ScriptedServer(world, lambda n: "") as server:
        levels = {"aff1": 0, "aff2": 1, "aff3": 2}
        seats = {a: make_room_llm(k=levels.get(a, 0), base_url=server.base_url, model="loopback") for a in world.agents}
        session, path = play(tmp_path, world, seats)
        calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
        aff3 = next(c for c in calls if c.agent == "aff3")
        prompt = aff3.request["body"]["messages"][-1]["content"]
        assert "You are a member of the debating team. The debate topic is Should cities ban private cars" in prompt
        assert '"ToM_level2"' in prompt
        out = world.outcome(session.state)
        assert out["winner"] == "tie" and out["scores"] == {"affirmative": 0.0, "negative": 0.0}  # the schema minimum
        assert out["statements"] == {"affirmative": 3, "negative": 3}
        reruns_exactly(session, path)


def test_a_failing_endpoint_gives_every_fallback_and_the_room_goes_on(tmp_path, no_endpoint):
    world = room("death-penalty", rounds=1)
    with LoopbackLLM("error500") as server:
        seats = {a: make_room_llm(k=1, base_url=server.base_url, model="loopback", max_retries=0)
                 for a in world.agents}
        session, _ = play(tmp_path, world, seats)
    fallbacks = [e for e in session.events if isinstance(e, ErrorEvent) and e.kind == "llm_fallback"]
    assert {e.source for e in fallbacks} == set(world.agents)
    out = world.outcome(session.state)
    assert out["statements"] == {"affirmative": 0, "negative": 0} and out["sat_out"] == 6
    assert session.state.verdict.reason.startswith("rubric")
    pworld = room("text-tools", rounds=1)
    with LoopbackLLM("error500") as server:
        seats = {a: make_room_llm(k=1, base_url=server.base_url, model="loopback", max_retries=0)
                 for a in pworld.agents}
        session, _ = play(tmp_path, pworld, seats, name="prog")
    assert session.state.plans[0].instruction.startswith("The Engineer should")  # the scripted manager's plan
    assert pworld.outcome(session.state)["submissions"] == 0  # never a reference solution in place of the model


def test_specs_are_checked(no_endpoint):
    with pytest.raises(ValueError, match="k .* must be 0, 1 or 2"):
        make_room_llm(k=3, base_url="http://127.0.0.1:9/v1")
    with pytest.raises(TypeError, match="unknown parameter"):
        make_room_llm(k=1, colour="red", base_url="http://127.0.0.1:9/v1")
    agent = make_room_llm(k=2, base_url="http://127.0.0.1:9/v1")
    assert isinstance(agent, LLMRoomAgent) and agent.describe()["k"] == 2


# ---------------------------------------------------------------------- the embedded model

@pytest.fixture
def embedded(no_endpoint):
    problem = embedded_missing()
    if problem:
        pytest.skip(problem)


@pytest.mark.slow
def test_the_embedded_model_plays_a_programming_round(tmp_path, embedded):
    world = room("text-tools", rounds=1)
    seats = {a: make_room_llm(k=1, max_tokens=400) for a in world.agents}
    session, path = play(tmp_path, world, seats, [TeamFormationMechanism(round_steps=2)])
    out = world.outcome(session.state)
    assert 0.0 <= out["pass_at_1"] <= 1.0 and out["rounds"] == 1
    answers_follow_their_schemas(session)
    reruns_exactly(session, path)


def answers_follow_their_schemas(session):
    """Every answer of the model (constrained decoding) is JSON valid for the schema it was asked,
    unless cut at max_tokens; every decision is the model's or a fallback with its event."""
    calls = [e for e in session.events if isinstance(e, LLMCallEvent)]
    assert calls and all(c.error is None for c in calls)
    for call in calls:
        if call.response["finish_reason"] == "length":
            continue
        schema = call.request["body"]["response_format"]["schema"]
        jsonschema.validate(json.loads(call.response["content"], strict=False), schema)
    tom = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "tom"]
    fallbacks = [e for e in session.events if isinstance(e, ErrorEvent) and e.kind == "llm_fallback"]
    assert tom and sum(e.data["source"] == "fallback" for e in tom) == len(
        [f for f in fallbacks if "alignment" not in f.message and "verdict" not in f.message])


@pytest.mark.slow
def test_the_embedded_model_plays_a_debate_round_and_judges_it(tmp_path, embedded):
    world = room("car-free-centres", rounds=1)
    levels = {"aff1": 0, "aff2": 1, "aff3": 2}
    seats = {a: make_room_llm(k=levels.get(a, 0)) for a in world.agents}
    session, path = play(tmp_path, world, seats)
    assert session.state.verdict is not None
    spoken = sum(len(s.parts) for s in session.state.speeches)
    fallbacks = [e for e in session.events if isinstance(e, ErrorEvent) and e.kind == "llm_fallback"]
    assert spoken + len([f for f in fallbacks if f.source != "judge"]) == 6
    answers_follow_their_schemas(session)
    reruns_exactly(session, path)


class TemplateCopier(LoopbackLLM):
    """A model that answers the Appendix C template itself, placeholders and all (as small models do)."""

    def answer(self, body):
        prompt = body["messages"][-1]["content"] if body["messages"][-1]["role"] == "user" else ""
        for msg in reversed(body["messages"]):
            if msg["role"] == "user" and "Respond in the following JSON format" in msg["content"]:
                prompt = msg["content"]
                break
        template_text = prompt.split("with your own words:\n", 1)[-1]
        return template_text


def test_an_answer_that_copies_the_template_is_sent_back_then_falls_back(tmp_path, no_endpoint):
    from agents.teamroom.llm import copied_template
    assert copied_template({"ToM_level1": {"belief": "b", "explanation": "e", "action": "{x_1: your arguments}"}})
    assert copied_template({"ToM_level0": {"belief": "no belief", "action": "I argue that cars pollute."}}) is None
    world = room("car-free-centres", rounds=1)
    with TemplateCopier() as server:
        seats = {a: make_room_llm(k=1, base_url=server.base_url, model="loopback") for a in world.agents}
        session, _ = play(tmp_path, world, seats)
    invalid = [e for e in session.events if isinstance(e, ErrorEvent) and e.kind == "llm_invalid_answer"]
    assert invalid and "repeats the template's placeholder" in invalid[0].message
    repair = [e for e in session.events if isinstance(e, LLMCallEvent) and e.request["attempt"] == 2]
    assert repair and "replace it with your own words" in repair[0].request["body"]["messages"][-1]["content"]
    assert world.outcome(session.state)["statements"] == {"affirmative": 0, "negative": 0}


class ExampleAnswerer(LoopbackLLM):
    """A model under the short prompts: it copies the example answer (``copy``), or answers in the
    example's form with words of its own."""

    def __init__(self, copy: bool, **kw):
        super().__init__(**kw)
        self.copy = copy

    def answer(self, body):
        fmt = body.get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
        prompt = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"
                       and "Example answer (about another task):" in m["content"]), None)
        if prompt is None:  # the judge, or an Appendix A self-evaluation: the schema's first choices
            return json.dumps(schema_instance(schema, lambda options, path: options[0]))
        example = json.loads(prompt.split("Example answer (about another task):\n", 1)[1])
        if self.copy:
            return json.dumps(example)
        pattern = schema["properties"]["ToM_level1"]["properties"]["belief"]["pattern"]
        mate = pattern.split("^(", 1)[1].split("|", 1)[0].split(")", 1)[0]  # the grammar's first teammate
        for level, block in example.items():
            if level.startswith("ToM_level"):
                block.update(belief=f"{mate} will speak about traffic", explanation="so I speak about air",
                             action=f"Car-free centres clean the air ({len(self.requests)}).")
        return json.dumps(example)


def test_short_prompts_give_a_filled_example_and_refuse_its_copy(tmp_path, no_endpoint):
    """prompt=short (the embedded model's default): one sentence per level and a filled example
    about another task instead of the appendices' placeholders, and beliefs that must name a
    teammate (a schema pattern); an answer that copies the example is sent back, and answers in the
    example's form are the model's."""
    from agents.teamroom.llm import EXAMPLES, copied_template
    assert copied_template({"ToM_level1": {"belief": EXAMPLES["debater"][0], "explanation": "e", "action": "a"}})
    with pytest.raises(ValueError, match="prompt must be one of auto, paper, short"):
        make_room_llm(k=1, base_url="http://127.0.0.1:9/v1", model="x", prompt="long")
    for copy in (True, False):
        world = room("car-free-centres", rounds=1)
        with ExampleAnswerer(copy) as server:
            seats = {a: make_room_llm(k=1, base_url=server.base_url, model="loopback", prompt="short")
                     for a in world.agents}
            session, _ = play(tmp_path, world, seats, name=f"short-{copy}")
        calls = [e for e in session.events if isinstance(e, LLMCallEvent) and e.agent != "judge"]
        prompt = calls[0].request["body"]["messages"][-1]["content"]
        assert "{x_" not in prompt and "Write about THIS task, not the example" in prompt
        schema = calls[0].request["body"]["response_format"]
        schema = schema.get("schema") or schema["json_schema"]["schema"]
        assert schema["properties"]["ToM_level1"]["properties"]["belief"]["pattern"].startswith("^(aff")
        sources = [e.data["source"] for e in session.events if isinstance(e, BeliefEvent) and e.kind == "tom"]
        statements = world.outcome(session.state)["statements"]
        if copy:
            invalid = [e for e in session.events if isinstance(e, ErrorEvent) and e.kind == "llm_invalid_answer"]
            # the example's belief names nobody in the room: the schema's pattern refuses it (a real
            # llama.cpp grammar would not let the model write it at all)
            assert invalid and "does not match" in invalid[0].message and "pat will argue" in invalid[0].message
            assert set(sources) == {"fallback"} and statements == {"affirmative": 0, "negative": 0}
        else:
            assert sources and set(sources) == {"model"} and statements["affirmative"] > 0
