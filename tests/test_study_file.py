"""Study files: strict reading with one-line errors, the drawn trial orders, the reveal, the
per-seat frame, and the study commands' usage errors."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from main import main
from sim.events import FeedbackEvent, FeedbackStatusEvent
from sim.registry import load_scenario
from study.design import (
    StudyError,
    balanced_latin_square,
    draw_trials,
    find_study,
    load_study,
    reveal,
)
from study.seat_view import public_layout, seat_frame
from tests.study_support import write_study
from ui.net.protocol import PROTOCOL_VERSION, SEAT_MESSAGES, ProtocolError, decode


def _edited(tmp_path: Path, **changes) -> Path:
    path = write_study(tmp_path)
    data = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("changes, words", [
    ({"baseline": "control"}, "baseline 'control' is not a condition"),
    ({"trials_per_condition": "2"}, "field 'trials_per_condition': expected a whole number"),
    ({"order": {"draw": "alphabetical", "seed": 0}}, "field 'order.draw'"),
    ({"scenarios": ["dkg/protom-05-trio"]}, "expected a kitchen or dkg level for two people"),
    ({"scenarios": ["protom/kitchen-10-onion-for-bob", "dkg/protom-01-open-hall"]},
     "field 'scenarios[1]': 'dkg/protom-01-open-hall' is a dkg level; expected a kitchen level like the study's first"),
    ({"scenarios": ["no-such-level"]}, "field 'scenarios[0]': no scenario named"),
    ({"scenarios": [str(Path(__file__).parent / "fixtures" / "gym_cooking" / "open-divider_salad.txt")]},
     "field 'scenarios[0]': networked seats play kitchens where each cook has its own dish"),
    ({"conditions": [{"name": "a", "mechanisms": ["protom:phi=x"]}, {"name": "none"}], "baseline": "none"},
     "field 'conditions[0].mechanisms'"),
    ({"conditions": [{"name": "none"}, {"name": "none"}], "baseline": "none"}, "condition names must be distinct"),
    ({"consent": None}, "field 'consent': missing"),
    ({"colour": "blue"}, "field 'colour': unknown field"),
])
def test_bad_study_files_are_one_line(tmp_path, changes, words):
    path = _edited(tmp_path, **changes)
    with pytest.raises(StudyError, match=re.escape(words)) as err:
        load_study(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_duplicate_key_and_the_shipped_study(tmp_path):
    path = tmp_path / "twice.json"
    path.write_text('{"study": "a", "study": "b"}')
    with pytest.raises(StudyError, match="occurs twice"):
        load_study(path)
    study = load_study(find_study("protom-kitchen-human"))
    assert [c.name for c in study.conditions] == ["protom", "llm", "none"] and study.trials == 6
    assert study.questionnaire.scale.points == 7 and len(study.questionnaire.items) == 4


def test_orders_are_drawn_per_pair_and_balanced(tmp_path):
    study = load_study(write_study(tmp_path, trials=2))
    for pair in range(1, 6):
        trials = draw_trials(study, pair)
        assert trials == draw_trials(study, pair)  # the same seed and pair: the same order
        assert Counter(t.condition for t in trials) == {"protom": 2, "none": 2}
        assert [t.number for t in trials] == [1, 2, 3, 4]
    assert len({tuple(t.condition for t in draw_trials(study, p)) for p in range(1, 9)}) > 1
    for n in range(2, 7):
        rows = balanced_latin_square(n)
        assert all(sorted(r) == list(range(n)) for r in rows)
        for k in range(n):  # every condition equally often at every position
            assert Counter(r[k] for r in rows) == {c: len(rows) // n for c in range(n)}
        follows = Counter((r[k], r[k + 1]) for r in rows for k in range(n - 1))
        assert len(follows) == n * (n - 1) and len(set(follows.values())) == 1  # carry-over balanced


def test_reveal_lists_every_feedback_with_its_final_status():
    events = [FeedbackEvent(tick=1, feedback_id=1, facilitator="protom", target="alice", feedback={}, text="Pass",
                            explanation="", utility=None),
              FeedbackStatusEvent(tick=2, feedback_id=1, agent="alice", status="accepted"),
              FeedbackStatusEvent(tick=5, feedback_id=1, agent="alice", status="completed"),
              FeedbackEvent(tick=6, feedback_id=2, facilitator="protom", target="bob", feedback={}, text="Pick up",
                            explanation="", utility=None),
              FeedbackStatusEvent(tick=6, feedback_id=2, agent="bob", status="ignored")]
    outcome = {"success": False, "ticks": 9, "goals": {"alice": "SimpleOnion", "bob": "SimpleLettuce"},
               "delivered": {"alice": 7, "bob": None}}
    shown = reveal(events, outcome, "alice", ("alice", "bob"))
    assert shown["others"] == [{"name": "bob", "goal": "SimpleLettuce", "delivered": False}]
    assert [f["status"] for f in shown["feedback"]] == ["Completed", "Ignored"] and not shown["completed"]


def test_a_seat_frame_holds_only_what_the_seat_sees():
    world, _ = load_scenario("protom/kitchen-15-walled-onion")
    state = world.initial_state
    frame = seat_frame(world, state, "alice")
    assert "o" not in "".join(public_layout(world)) and frame["goal"] == world.goals["alice"]
    assert world.goals["bob"] not in json.dumps(frame)
    obs = world.observe(state, "alice")
    assert len(frame["stations"]) == len(obs.stations) < len(world.station_cells)
    assert [a["name"] for a in frame["agents"]] == ["alice"]  # bob is in the other room


def test_a_dkg_seat_frame_hides_only_the_other_goal():
    """Doors, Keys and Gems is fully observable: a seat sees the whole map, both players and what
    they hold, but of the goals only its own; the experimenter's frame has both."""
    from study.seat_view import dkg_action, experimenter_frame

    world, _ = load_scenario("dkg/protom-02-own-keys")
    state = world.reset(0)
    frame = seat_frame(world, state, "bob")
    assert set(frame) == {"world", "tick", "t_max", "seat", "turn", "done", "layout", "doors", "items", "agents",
                          "goal", "goal_color", "delivered", "actions", "assistant"}
    assert frame["goal"] == world.goals["bob"] and frame["actions"] == []  # alice moves first
    assert len(frame["items"]) == len(world.items) and len(frame["doors"]) == len(world.doors)
    assert [a["name"] for a in frame["agents"]] == list(world.agents)
    first = seat_frame(world, state, world.agents[0])
    assert first["actions"] == list(world.legal_actions(state, world.agents[0]))
    whole = experimenter_frame(world, state)
    assert whole["goals"] == world.goals and "actions" not in whole
    assert dkg_action("up", ["up", "wait"]) == "up" and dkg_action("down", ["up", "wait"]) is None
    assert dkg_action("unlock", ["unlock door1", "unlock door1 key1"]) == "unlock door1"
    assert dkg_action("pickup", ["wait", "pickup key2"]) == "pickup key2"
    outcome = {"success": False, "holding_goal": {"alice": True, "bob": False}, "ticks": 4}
    shown = reveal([], outcome, "alice", ("alice", "bob"), goals=dict(world.goals))
    assert shown["others"] == [{"name": "bob", "goal": world.goals["bob"], "delivered": False}]


def test_study_commands_refuse_bad_input(tmp_path, capsys):
    assert main(["study", "check", "no-such-study"]) == 2
    assert "error: no study file or shipped study named 'no-such-study'" in capsys.readouterr().err
    assert main(["study", "check", str(write_study(tmp_path)), "--pairs", "2"]) == 0
    assert "pair-02: " in capsys.readouterr().out
    assert main(["study", "analyze", str(tmp_path)]) == 2
    assert "no study.json here" in capsys.readouterr().err
    assert main(["join", "nowhere", "--code", "1"]) == 2
    assert "expected HOST:PORT" in capsys.readouterr().err
    assert main(["study", "host", "--port", "70000"]) == 2
    assert "--port must be between 1 and 65535" in capsys.readouterr().err
    assert main(["gui", "--study", "protom-kitchen-human"]) == 2
    assert "give --host PORT too" in capsys.readouterr().err


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                              lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                          max_size=4),
                              max_leaves=12).map(lambda v: json.dumps(v, allow_nan=True)),
                 st.fixed_dictionaries({"v": st.just(PROTOCOL_VERSION), "type": st.sampled_from(sorted(SEAT_MESSAGES))},
                                       optional={"code": st.text(max_size=8), "action": st.integers() | st.text(),
                                                 "feedback_id": st.integers() | st.booleans(),
                                                 "accept": st.booleans() | st.integers(),
                                                 "page_id": st.text(max_size=4), "answers": st.dictionaries(
                                                     st.text(max_size=4), st.integers())}).map(json.dumps)))
def test_any_frame_is_a_checked_message_or_one_protocol_error(text):
    try:
        message = decode(text, "frame", SEAT_MESSAGES)
    except ProtocolError as exc:
        assert "\n" not in str(exc)
        return
    fields = SEAT_MESSAGES[message["type"]]
    assert set(message) == {"v", "type", *fields}
    assert all(isinstance(message[k], t) and (t != (int,) or not isinstance(message[k], bool))
               for k, t in fields.items())


@pytest.mark.parametrize("row, words", [
    ("mini-study,pair-01,1,protom,protom/kitchen-15-walled-onion,../../x.jsonl,P-1;P-2,False,,6,False",
     "is not under"),
    ("mini-study,pair-01,one,protom,protom/kitchen-15-walled-onion,recordings/x.jsonl,P-1;P-2,False,,6,False",
     "trial 'one'; expected a whole number"),
    ("mini-study,pair-01,1,placebo,protom/kitchen-15-walled-onion,recordings/x.jsonl,P-1;P-2,False,,6,False",
     "condition 'placebo' is not in the study"),
    ("mini-study,pair-01,1,protom,protom/kitchen-15-walled-onion,recordings/x.jsonl,P-1;P-2,False,,6,False",
     "x.jsonl"),
])
def test_a_damaged_study_folder_is_one_error_line(tmp_path, capsys, row, words):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "study.json").write_text(write_study(tmp_path).read_text())
    from study.design import EPISODE_COLUMNS
    (folder / "episodes.csv").write_text(",".join(EPISODE_COLUMNS) + "\n" + row + "\n")
    assert main(["study", "analyze", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err
