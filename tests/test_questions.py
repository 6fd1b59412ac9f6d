"""Teaching questions (``sim/questions.py``): the loader reads a scenario's ``questions`` strictly
(one message naming the file, the field and the value), and, headless, the question falls due
where declared and its result (what happened, each order's prediction) is read from the event
stream of a played episode, whatever the seats. A recording's header keeps the questions it was
played with (read as strictly); a recording of format version 2, which did not, replays with its
scenario file's."""

from __future__ import annotations

import copy
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agents.registry import make_agent
from sim.events import PredictionEvent
from sim.household.scenario import json_schema
from sim.inputs import read_json
from sim.questions import QUESTIONS_FIELD, due, read_questions, result
from sim.recording import (
    FORMAT_VERSION,
    RecordingError,
    RecordingWriter,
    convert_recording,
    load_recording,
    read_header,
)
from sim.registry import ScenarioError, find_scenario, load_questions, load_scenario, read_scenario
from sim.replay import Replay
from sim.session import Session
from ui.session.catalog import scenario_questions
from ui.session.timeline import ReplayTimeline

TRANSFER = "false-belief-unexpected-transfer"
SECOND = "false-belief-second-order"


def transfer() -> dict[str, Any]:
    return read_json(find_scenario(TRANSFER))


def q0(d: dict[str, Any]) -> dict[str, Any]:
    return d[QUESTIONS_FIELD][0]


@pytest.mark.parametrize("change, field, words", [
    (lambda d: q0(d).update(colour="red"), "questions[0].colour", "unknown field; expected one of id, text"),
    (lambda d: q0(d).update(text=5), "questions[0].text", "expected text in quotes, got 5"),
    (lambda d: q0(d)["ask"].update(tick=2), "questions[0].ask", "expected exactly one of 'tick'"),
    (lambda d: q0(d).update(ask={}), "questions[0].ask", "expected exactly one of 'tick'"),
    (lambda d: q0(d)["ask"].update(before="carol"), "questions[0].ask.before",
     "expected an agent of the scenario (sally, anne), got 'carol'"),
    (lambda d: q0(d)["choices"].pop(), "questions[0].choices", "at least 2 items"),
    (lambda d: q0(d)["choices"][1].update(id="basket"), "questions[0]", "choice id 'basket' occurs twice"),
    (lambda d: q0(d)["choices"][1].update(at=["attic"]), "questions[0].choices[1].at[0]",
     "expected a name of the scenario's world (a place, room, object...), got 'attic'"),
    (lambda d: q0(d)["choices"][0].update(at=[]), "questions[0].choices[0].at", "at least 1 item"),
    (lambda d: q0(d)["reveal"].update(agent="carol"), "questions[0].reveal.agent",
     "expected an agent of the scenario (sally, anne), got 'carol'"),
    (lambda d: q0(d)["reveal"].update(by="guess"), "questions[0].reveal.by", "expected 'action' or 'belief'"),
    (lambda d: q0(d)["reveal"].pop("events"), "questions[0].reveal", "needs 'agent' and 'events'"),
    (lambda d: (q0(d).pop("about"), q0(d).update(reveal={"by": "belief", "says": "x"})), "questions[0]",
     "a reveal by belief needs 'about'"),
    (lambda d: q0(d)["about"].update(minds=["sally", "bob"]), "questions[0].about.minds[1]",
     "expected an agent of the scenario (sally, anne), got 'bob'"),
    (lambda d: q0(d)["about"].update(object="kite"), "questions[0].about.object",
     "expected an object id or class of the scenario, got 'kite'"),
    (lambda d: d[QUESTIONS_FIELD].append(copy.deepcopy(q0(d))), "questions[1].id",
     "'sally-looks' is already the id of questions[0]"),
    (lambda d: d.update(questions={"id": "x"}), "questions", "expected a list [...]"),
])
def test_bad_questions_are_refused_with_the_file_the_field_and_the_value(tmp_path, change, field, words) -> None:
    data = transfer()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ScenarioError) as caught:
        read_scenario(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: field '{field}': "), message
    assert words in message, message
    assert "\n" not in message


def test_questions_stay_out_of_the_world_spec_and_load_by_name() -> None:
    _family, spec, _start = read_scenario(find_scenario(TRANSFER))
    assert QUESTIONS_FIELD not in spec
    (question,) = load_questions(TRANSFER)
    assert question.id == "sally-looks" and question.ask_after == "moved"
    assert [c.id for c in question.choices] == ["basket", "box"]
    assert load_questions("household-prepare-meal-01") == ()


def test_the_household_schema_describes_questions() -> None:
    schema = json_schema()
    questions = schema["properties"][QUESTIONS_FIELD]
    assert questions["type"] == "array" and "Predict, then see" in questions["description"]
    assert re.search("QuestionModel", json.dumps(schema))


def play(name: str, seats: list[str], answer: str | None) -> tuple[Any, list[Any], int | None]:
    """Play ``name`` headless, asking like the app: the answer goes in before the due step."""
    world, scenario = load_scenario(name)
    questions = load_questions(name)
    session = Session(world, {a: make_agent(s, "household") for a, s in zip(world.agents, seats)}, seed=0,
                      scenario=scenario)
    states, asked = [session.state], None
    while not session.finished:
        q = due(questions, session.events, session.tick, world.active_agents(session.state))
        if q is not None:
            assert asked is None, "asked twice"
            asked = session.tick
            assert answer is not None
            session.emit(PredictionEvent(tick=session.tick, question=q.id, choice=answer))
        session.advance()
        states.append(session.state)
    r = result(questions[0], session.events, lambda t, obj: world.locate(states[t], obj))
    return r, session.events, asked


def test_which_order_matched_depends_on_the_minds_that_played() -> None:
    # a 1st-order Anne tells Sally: Sally goes to the toy box, as a 0th-order mind predicts
    told, _, asked = play(TRANSFER, ["cobel", "cobel"], "basket")
    assert asked == 1
    assert told.seen.choice.id == "box" and told.seen.tick == 3 and told.right is False
    assert told.seen.messages == ("anne sent sally a message at step 1",)
    assert told.matching_orders() == [0]
    # a level-0 Anne says nothing: Sally goes to the empty basket, as a 1st-order mind predicts
    silent, _, _ = play(TRANSFER, ["cobel", "cobel:order=0"], "basket")
    assert silent.seen.choice.id == "basket" and silent.right is True and silent.matching_orders() == [1]
    assert {p.order: p.choice.id for p in silent.orders} == {0: "box", 1: "basket"}


def test_a_second_order_question_reads_the_first_mind_s_model_of_the_second() -> None:
    first, _, _ = play(SECOND, ["cobel", "cobel"], "box")
    assert first.seen.choice.id == "basket" and first.right is False
    assert {p.order: p.choice.id for p in first.orders} == {0: "box", 1: "box", 2: "basket"}
    # a level-0 Anne models Bob as believing what she believes: her 2nd-order answer is the box
    level0, _, _ = play(SECOND, ["cobel:order=0", "cobel"], "box")
    assert level0.seen.choice.id == "box" and level0.right is True and level0.matching_orders() == [0, 1, 2]


def test_a_question_whose_answer_already_showed_is_not_asked() -> None:
    _r, events, _ = play(TRANSFER, ["cobel", "cobel"], "basket")
    questions = load_questions(TRANSFER)
    without_answer = [e for e in events if not isinstance(e, PredictionEvent)]
    world, _ = load_scenario(TRANSFER)
    assert due(questions, without_answer[:0], 0, world.agents) is None  # before the move: not yet
    assert due(questions, without_answer, 4, world.agents) is None  # Sally already went to look


def test_any_world_s_scenario_may_ask_a_question(tmp_path) -> None:
    """Doors, Keys and Gems: which door will alice open first? Read from her 'unlock' events;
    no order predictions without 'about'. Its names are the world's (``World.names``)."""
    data = read_json(find_scenario("protom-02-own-keys"))
    data[QUESTIONS_FIELD] = [{
        "id": "first-door", "text": "Which door will alice open first?", "ask": {"tick": 0},
        "choices": [{"id": "red", "text": "The red door", "at": ["door1"]},
                    {"id": "blue", "text": "The blue door", "at": ["door2"]}],
        "reveal": {"by": "action", "agent": "alice", "events": ["unlock"], "says": "alice opened"}}]
    path = tmp_path / "own-keys-asked.json"
    path.write_text(json.dumps(data))
    world, scenario = load_scenario(str(path))
    (question,) = load_questions(str(path))
    session = Session(world, {a: make_agent("planner", "dkg") for a in world.agents}, seed=0, scenario=scenario)
    assert due((question,), session.events, 0, world.active_agents(session.state)) is question
    session.emit(PredictionEvent(tick=0, question=question.id, choice="blue"))
    session.run()
    r = result(question, session.events, lambda t, obj: None)
    assert r.seen.choice.id == "red" and r.seen.tick == 6 and r.right is False and r.orders == ()
    data[QUESTIONS_FIELD][0]["choices"][1]["at"] = ["door9"]
    path.write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match=re.escape("field 'questions[0].choices[1].at[0]': expected a name of "
                                                      "the scenario's world (a place, room, object...), got 'door9'")):
        read_scenario(path)


# ------------------------------------------------------------------------ in recordings

OLD = Path(__file__).parent / "fixtures" / "recordings" / "false-belief-unexpected-transfer-v2.jsonl.gz"


def test_a_question_reads_back_from_its_file_form() -> None:
    for name in (TRANSFER, SECOND, "false-belief-unexpected-contents"):
        questions = load_questions(name)
        world, _ = load_scenario(name)
        assert questions and read_questions([q.to_dict() for q in questions], world.agents, name,
                                            ScenarioError) == questions


def record_elsewhere(tmp_path: Path) -> tuple[Path, Path, Any]:
    """Sally-Anne copied under another name with its question reworded, played (the answer: the
    basket) and recorded; returns (the scenario's file, the recording, the questions)."""
    data = transfer()
    data["name"] = "taught-elsewhere"
    q0(data)["text"] = "Asked in a copy: where will Sally look for the ball?"
    scenario = tmp_path / "taught-elsewhere.json"
    scenario.write_text(json.dumps(data))
    world, name = load_scenario(str(scenario))
    questions = load_questions(str(scenario))
    session = Session(world, {a: make_agent("cobel", "household") for a in world.agents}, seed=0, scenario=name,
                      questions=questions)
    path = tmp_path / "taught.jsonl"
    RecordingWriter.attach(session, path)
    while not session.finished:
        if due(questions, session.events, session.tick, world.active_agents(session.state)) is not None:
            session.emit(PredictionEvent(tick=session.tick, question="sally-looks", choice="basket"))
        session.advance()
    return scenario, path, questions


def test_a_recording_keeps_its_questions_when_the_scenario_is_gone(tmp_path) -> None:
    scenario, path, questions = record_elsewhere(tmp_path)
    scenario.unlink()
    assert scenario_questions("taught-elsewhere") == ()  # nothing to find by name either
    recording = load_recording(path)
    assert recording.file_version == FORMAT_VERSION and recording.notes == [] and recording.warnings == []
    assert recording.header["questions"] == [q.to_dict() for q in questions]
    timeline = ReplayTimeline(Replay(recording))
    assert timeline.questions == questions
    assert timeline.questions[0].text == "Asked in a copy: where will Sally look for the ball?"
    r = result(timeline.questions[0], timeline.events,
               lambda tick, obj: timeline.world.locate(timeline.state_at(tick), obj))
    assert r.answer.id == "basket" and r.seen.choice.id == "box" and r.matching_orders() == [0]


def test_a_recording_made_before_questions_were_kept_opens_with_its_scenario_s() -> None:
    recording = load_recording(OLD)  # format version 2, written by 6cffaca
    assert recording.file_version == 2 and recording.warnings == [] and recording.footer is not None
    assert recording.header["version"] == FORMAT_VERSION and recording.header["questions"] is None
    assert len(recording.notes) == 1 and "does not keep the teaching questions" in recording.notes[0]
    timeline = ReplayTimeline(Replay(recording))
    assert timeline.replay.warnings == [] and timeline.num_steps == 10
    assert timeline.questions == load_questions(TRANSFER)  # its scenario file's
    r = result(timeline.questions[0], timeline.events,
               lambda tick, obj: timeline.world.locate(timeline.state_at(tick), obj))
    assert r.answer is None and r.seen.choice.id == "box" and r.matching_orders() == [0]


def test_converting_an_old_recording_keeps_its_questions_unknown(tmp_path) -> None:
    dst = tmp_path / "converted.jsonl"
    convert_recording(OLD, dst)
    converted = load_recording(dst)
    assert converted.file_version == FORMAT_VERSION and converted.notes == []
    assert '"questions":null' in dst.read_text().splitlines()[0]
    assert ReplayTimeline(Replay(converted)).questions == load_questions(TRANSFER)


def first(header: dict[str, Any]) -> dict[str, Any]:
    return header["questions"][0]


@pytest.mark.parametrize("change, words", [
    (lambda h: h.update(questions={"id": "x"}), "header field 'questions': expected the teaching questions the "
                                                "episode was played with (a list, [] for none), or null"),
    (lambda h: h.pop("questions"), "header field 'questions': missing; expected the teaching questions"),
    (lambda h: first(h).update(colour="red"), "header: field 'questions[0].colour': unknown field"),
    (lambda h: first(h)["choices"].pop(), "header: field 'questions[0].choices': "),
    (lambda h: first(h).update(ask={}), "header: field 'questions[0].ask': expected exactly one of 'tick'"),
    (lambda h: first(h)["reveal"].update(agent="carol"),
     "header: field 'questions[0].reveal.agent': expected an agent of the scenario (sally, anne), got 'carol'"),
    (lambda h: h["questions"].append(copy.deepcopy(first(h))),
     "header: field 'questions[1].id': 'sally-looks' is already the id of questions[0]"),
])
def test_the_recording_loader_refuses_bad_questions_naming_the_field(tmp_path, change, words) -> None:
    world, name = load_scenario(TRANSFER)
    session = Session(world, {a: make_agent("cobel", "household") for a in world.agents}, seed=0, scenario=name,
                      questions=load_questions(TRANSFER))
    header = session.header()
    change(header)
    path = tmp_path / "bad.jsonl"
    RecordingWriter(path, header).close()  # sealed as written: only its questions are wrong
    for read in (load_recording, read_header):
        with pytest.raises(RecordingError) as caught:
            read(path)
        message = str(caught.value)
        assert message.startswith(f"{path}: ") and words in message and "\n" not in message, message


def test_a_version_2_header_may_not_carry_questions(tmp_path) -> None:
    lines = gzip.decompress(OLD.read_bytes()).splitlines(keepends=True)
    path = tmp_path / "edited.jsonl"
    path.write_bytes(lines[0].replace(b'"prefix":[]', b'"prefix":[],"questions":[]', 1) + b"".join(lines[1:]))
    with pytest.raises(RecordingError, match=re.escape(
            "header field 'questions': a version 3 field in a header that says \"version\": 2; expected "
            "\"version\": 3, or a version 2 header without it")):
        load_recording(path)
