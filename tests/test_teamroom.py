"""The team room without a model: the sandbox (refusals, time-outs, limits), pass@1 by hand on
known submissions, scenario errors that name the file and field, the scripted policies and
their ToM levels, the teams mechanism in the room, record + replay, and the view."""

import json
import re

import pytest

from agents.registry import make_agent
from agents.teamroom.scripted import ScriptedRoomAgent, debater_argument, rubric
from agents.teams.mechanism import TeamFormationMechanism
from main import main
from sim.events import BeliefEvent, MessageEvent, TeamEvent
from sim.recording import RecordingWriter, load_recording
from sim.registry import ScenarioError, load_scenario, load_spec
from sim.replay import Replay
from sim.session import Session
from sim.teamroom import sandbox
from sim.teamroom.sandbox import Limits, matches, run_tests
from sim.teamroom.world import IDLE, ProgrammingRoom
from sim.world import IllegalAction

ADD_CASES = [{"args": [1, 2], "expected": 3}, {"args": [2, 2], "expected": 4}, {"args": ["a", 1], "raises": "TypeError"}]
FAST = Limits(case_seconds=0.5)


# ------------------------------------------------------------------ sandbox

def test_the_sandbox_passes_good_code_and_names_the_first_failure():
    good = run_tests("def add(a, b):\n    return a + b", "add", ADD_CASES)
    assert good.outcomes == ("pass", "pass", "pass") and good.ok and good.problem == ""
    bad = run_tests("def add(a, b):\n    return a - b", "add", ADD_CASES)
    assert bad.outcomes == ("fail", "fail", "pass") and not bad.ok and bad.problem == "case 1: wrong result"
    assert (bad.passed, bad.total) == (1, 3)


@pytest.mark.parametrize("code, problem", [
    ("def add(a, b) return a", "SyntaxError"),
    ("def plus(a, b):\n    return a + b", "NameError: the code defines no function 'add'"),
    ("import socket\ndef add(a, b):\n    return a + b", "import of socket halted"),
    ("import urllib.request\ndef add(a, b):\n    return 3", "import of socket halted"),
    ("import subprocess\ndef add(a, b):\n    return 3", "import of subprocess halted"),
    ("import os\ndef add(a, b):\n    os.system('true')\n    return a + b", "AttributeError: module 'os' has no attribute 'system'"),
    ("import os\ndef add(a, b):\n    os.fork()\n    return a + b", "has no attribute 'fork'"),
    ("def add(a, b):\n    block = bytearray(2 * 1024 ** 3)\n    return a + b", "MemoryError"),
    ("raise SystemExit(3)\ndef add(a, b):\n    return a + b", "SystemExit"),
])
def test_the_sandbox_refuses_what_it_must_and_says_why(code, problem):
    report = run_tests(code, "add", ADD_CASES, FAST)
    assert not report.ok and "pass" not in report.outcomes[:2]
    assert problem in report.problem


def test_an_endless_loop_times_out_per_case_and_the_rest_still_runs():
    code = ("def add(a, b):\n    if a == 1:\n        while True:\n            pass\n    return a + b")
    report = run_tests(code, "add", ADD_CASES, FAST)
    assert report.outcomes == ("timeout", "pass", "pass")
    assert report.problem == "case 1: took longer than its time limit"


def test_a_loop_that_ignores_its_alarm_is_stopped_by_the_parents_clock_and_the_rest_still_runs():
    code = ("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
            "def add(a, b):\n    while a == 1:\n        pass\n    return a + b")
    report = run_tests(code, "add", ADD_CASES, Limits(case_seconds=0.3))
    assert report.outcomes == ("timeout", "pass", "pass")
    assert report.problem == "case 1: took longer than its time limit"


def test_prints_never_mix_with_the_answers():
    prints = run_tests("import os\ndef add(a, b):\n    print('noise' * 1000)\n    os.write(1, b'{}\\n')\n"
                       "    return a + b", "add", ADD_CASES, FAST)
    assert prints.ok


def test_the_code_runs_in_the_box_where_the_machine_has_one():
    """On the machines the project sets up (scripts/setup.sh installs bubblewrap) the code runs
    boxed; tests/test_sandbox_escape.py tries to get out."""
    report = run_tests("def add(a, b):\n    return a + b", "add", ADD_CASES, FAST)
    assert report.isolation == sandbox.isolation() == "bubblewrap"


def test_values_compare_as_json_with_bools_apart_and_tolerance():
    assert matches([1, 2], [1, 2]) and not matches([1, 2], [2, 1])
    assert not matches(True, 1) and not matches(1, True) and matches(False, False)
    assert matches(0.1 + 0.2, 0.3, 1e-9) and not matches(0.1 + 0.2, 0.3)
    assert matches({"a": [1]}, {"a": [1]}) and not matches({"a": 1}, {"a": 1, "b": 2})
    assert run_tests("def f():\n    return (1, 2)", "f", [{"args": [], "expected": [1, 2]}]).ok
    assert not run_tests("def f():\n    return {1, 2}", "f", [{"args": [], "expected": [1, 2]}]).ok


# ------------------------------------------------------------------ pass@1 by hand

def programming_world(rounds=2) -> ProgrammingRoom:
    world, _ = load_scenario("text-tools")
    spec = world.spec()
    spec["rounds"] = rounds
    return ProgrammingRoom(spec)


def submit(names, code):
    return {"type": "submit", "subtasks": names, "code": code}


def test_pass_at_1_counts_first_counted_submissions_only():
    """Round 1: engineer1 (assigned word_count) submits the reference: pass; engineer2 (assigned
    longest_word) submits the draft that crashes on '': fail; engineer3 submits is_palindrome's
    reference but is assigned it: pass; engineer4 sits out (char_histogram never submitted in round
    1); engineer1 also submits is_palindrome, not its own: tested, not counted.
    Round 2: engineer2 fixes longest_word and engineer4 submits char_histogram's reference.
    pass@1 = (word_count, is_palindrome, char_histogram) = 3/4; final = 4/4; by round 2/4, 4/4."""
    world = programming_world()
    by = world.by_name
    state = world.reset(0)
    assert dict(state.assignments) == {"word_count": "engineer1", "longest_word": "engineer2",
                                       "is_palindrome": "engineer3", "char_histogram": "engineer4"}
    state = world.step(state, {"pm": {"type": "plan", "assignments": {}, "instruction": "go"}}).state
    result = world.step(state, {
        "engineer1": submit(["word_count", "is_palindrome"], by["word_count"]["reference"] + "\n\n" + by["is_palindrome"]["drafts"][0]),
        "engineer2": submit(["longest_word"], by["longest_word"]["drafts"][0]),
        "engineer3": submit(["is_palindrome"], by["is_palindrome"]["reference"]),
        "engineer4": dict(IDLE)})
    state = result.state
    assert state.pass_by_round == (0.5,)
    assert dict(state.first) == {"word_count": True, "longest_word": False, "is_palindrome": True,
                                 "char_histogram": None}
    first_sub = state.submissions[0]
    assert first_sub.counted == ("word_count",) and not first_sub.report("is_palindrome").ok
    assert state.counted_report("is_palindrome").ok  # engineer3's counted code, not engineer1's draft
    assert [m.recipients for m in result.messages] == [("pm",)] * 3
    assert "not mine: not counted" in result.messages[0].text
    state = world.step(state, {"pm": dict(IDLE)}).state
    state = world.step(state, {"engineer1": dict(IDLE), "engineer3": dict(IDLE),
                               "engineer2": submit(["longest_word"], by["longest_word"]["reference"]),
                               "engineer4": submit(["char_histogram"], by["char_histogram"]["reference"])}).state
    assert world.done(state)
    out = world.outcome(state)
    assert out["pass_at_1"] == 0.75 and out["final_pass"] == 1.0 and out["pass_by_round"] == [0.5, 1.0]
    assert out["success"] and out["submissions"] == 5 and out["sat_out"] == 4  # engineer4, pm, engineer1, engineer3
    assert world.sat_out(state, 0) == ("engineer4",) and set(world.sat_out(state, 1)) == {"pm", "engineer1", "engineer3"}


def test_tests_passed_counts_cases_and_a_never_submitted_subtask_fails():
    world = programming_world(rounds=1)
    by = world.by_name
    state = world.step(world.reset(0), {"pm": dict(IDLE)}).state
    state = world.step(state, {"engineer1": submit(["word_count"], by["word_count"]["drafts"][0]),
                               "engineer2": dict(IDLE), "engineer3": dict(IDLE), "engineer4": dict(IDLE)}).state
    report = state.counted_report("word_count")
    total = sum(len(s["tests"]) for s in world.subtasks)
    assert world.outcome(state)["tests_passed"] == round(report.passed / total, 6)
    assert world.outcome(state)["pass_at_1"] == 0.0 and world.outcome(state)["final_pass"] == 0.0


@pytest.mark.parametrize("agent, action, words", [
    ("pm", {"type": "submit", "subtasks": ["word_count"], "code": "x"}, "expected type 'plan' or 'idle'"),
    ("pm", {"type": "plan", "assignments": {"nope": "engineer1"}}, "no subtask 'nope'"),
    ("pm", {"type": "plan", "assignments": {"word_count": "pm"}}, "'pm' is not an engineer"),
    ("engineer1", dict(IDLE), "not engineer1's turn"),
])
def test_illegal_room_actions_are_refused_with_the_reason(agent, action, words):
    world = programming_world()
    assert words in world.why_illegal(world.reset(0), agent, action)
    if agent == "pm":
        with pytest.raises(IllegalAction, match=re.escape(words)):
            world.step(world.reset(0), {"pm": action})


# ------------------------------------------------------------------ scenarios

def write(tmp_path, data, name="room.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def base_programming():
    data = json.loads(open(load_scenario_path("text-tools")).read())
    return data


def load_scenario_path(name):
    from sim.registry import find_scenario
    return find_scenario(name)


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(kind="chess"), "field 'kind': expected 'programming' or 'debate'"),
    (lambda d: d["subtasks"][0].update(name="class"), "field 'subtasks[0].name': expected a Python function name"),
    (lambda d: d["subtasks"][1].update(name="word_count"), "field 'subtasks[1].name': 'word_count' is used twice"),
    (lambda d: d["subtasks"][0].update(tests=[]), "field 'subtasks[0].tests'"),
    (lambda d: d.update(engineers=["engineer1", "engineer1"]), "field 'engineers[1]': 'engineer1' sits twice"),
    (lambda d: d["profiles"]["engineer1"].update(skills=["nothing"]), "field 'profiles.engineer1.skills[0]': no subtask 'nothing'"),
    (lambda d: d["profiles"].update(boss={}), "field 'profiles.boss': not an engineer"),
    (lambda d: d["profiles"]["engineer2"].update(follows=False), "field 'profiles.engineer2.favourite'"),
    (lambda d: d.update(rounds=0), "field 'rounds'"),
    (lambda d: d.update(colour="red"), "field 'colour': unknown field"),
    (lambda d: d["limits"].update(case_seconds=-1) if "limits" in d else d.update(limits={"case_seconds": -1}),
     "field 'limits.case_seconds'"),
])
def test_a_bad_scenario_names_file_and_field(tmp_path, change, words):
    data = base_programming()
    change(data)
    path = write(tmp_path, data)
    with pytest.raises(ScenarioError) as err:
        load_spec(path)
    assert str(path) in str(err.value) and words in str(err.value)


def test_a_bad_scenario_on_the_command_line_is_one_error_line(tmp_path, capsys):
    data = base_programming()
    data["pm"] = "Project Manager"
    path = write(tmp_path, data)
    assert main(["run", str(path), "--no-record", "--quiet", "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err
    assert "field 'pm': expected a lowercase name" in err and "Traceback" not in err


def test_every_shipped_programming_scenario_has_passing_references_and_failing_drafts():
    from sim.registry import list_scenarios
    rooms = [i for i in list_scenarios() if i.family == "teamroom"]
    assert {i.category for i in rooms} == {"programming", "debate"} and len(rooms) >= 6
    for info in rooms:
        world, _ = load_scenario(str(info.path))
        if not isinstance(world, ProgrammingRoom):
            assert all(world.arguments[side] for side in world.sides)
            continue
        assert len(world.engineers) == 4
        for sub in world.subtasks:
            assert run_tests(sub["reference"], sub["name"], sub["tests"]).ok, (info.name, sub["name"])
            for draft in sub["drafts"]:
                assert not run_tests(draft, sub["name"], sub["tests"]).ok, (info.name, sub["name"], draft)


# ------------------------------------------------------------------ scripted policies

def scripted_session(name, levels=None, mechanisms=(), seed=0):
    world, scenario = load_scenario(name)
    levels = levels or {}
    seats = {a: ScriptedRoomAgent(k=levels.get(a, 1)) for a in world.agents}
    return Session(world, seats, seed=seed, scenario=scenario, mechanisms=list(mechanisms))


def test_a_scripted_project_reaches_known_pass_rates_by_level():
    """list-tools: nobody follows through on flatten at level 1 (its only skilled engineer,
    engineer4, works on its favourite instead); the level-2 manager sees engineer4 ignore the
    assignment and gives flatten to engineer1 (least loaded), who gets it right after its two drafts fail."""
    one = scripted_session("list-tools", {"pm": 1})
    one.run()
    out1 = one.world.outcome(one.state)
    assert out1["pass_at_1"] == 0.75 and out1["final_pass"] == 0.75 and out1["pass_by_round"] == [0.75] * 4
    two = scripted_session("list-tools", {"pm": 2})
    two.run()
    out2 = two.world.outcome(two.state)
    assert out2["pass_at_1"] == 0.75 and out2["pass_by_round"] == [0.75, 0.75, 0.75, 1.0]
    flatten = [s for s in two.state.submissions if "flatten" in s.subtasks]
    assert [s.engineer for s in flatten] == ["engineer1"] * 3
    assert [s.report("flatten").ok for s in flatten] == [False, False, True]
    zero = scripted_session("list-tools", {"pm": 0})
    zero.run()
    assert zero.world.outcome(zero.state)["final_pass"] < 1.0


def test_scripted_debaters_repeat_or_complement_by_level():
    world, _ = load_scenario("death-penalty")
    state = world.reset(0)
    bank = world.arguments["affirmative"]
    assert [debater_argument(world, state, a, 0) for a in ("aff1", "aff2", "aff3")] == [bank[0]] * 3
    assert debater_argument(world, state, "aff1", 1) == bank[1]  # teammates (level 0) will say bank[0]
    assert debater_argument(world, state, "aff1", 2) == bank[-1]  # a new issue
    mixed = scripted_session("death-penalty", {"aff1": 0, "aff2": 1, "aff3": 2, "neg1": 0, "neg2": 0, "neg3": 0})
    mixed.run()
    first = mixed.state.speeches[0]
    assert [t for _, t in first.parts] == [bank[0], bank[1], bank[-1]]
    scores = mixed.world.outcome(mixed.state)["scores"]
    assert scores["affirmative"] > scores["negative"]  # the negative side repeats itself
    assert mixed.world.outcome(mixed.state)["winner"] == "affirmative"


def test_the_rubric_by_hand():
    world, _ = load_scenario("car-free-centres")
    from sim.teamroom.world import DebateState, Speech
    a, b = "alpha bravo charlie", "alpha delta"
    state = DebateState(t=4, round=1, phase="judge", speeches=(
        Speech(0, "affirmative", (("aff1", a), ("aff2", a))), Speech(0, "negative", ()),
        Speech(1, "affirmative", (("aff1", b),)), Speech(1, "negative", (("neg1", b),))))
    # affirmative novelty: 3/3, 0/3, 1/2 -> mean 0.5; presence 1 -> 10 * (0.35 + 0.3) = 6.5
    # negative novelty: 2/2 -> 1; presence 1/2 -> 10 * (0.7 + 0.15) = 8.5
    assert rubric(world, state) == {"affirmative": 6.5, "negative": 8.5}


# ------------------------------------------------------------------ with the teams mechanism

def test_the_teams_mechanism_scores_scripted_predictions_and_drops_the_unpredictable_engineer():
    """number-tools: engineer4 ignores the plan; every level-1 agent predicts the others as plan
    followers, so predictions about engineer4 fail (phi = 0 < eps); with theta = 0.2 the monitor
    re-forms the team without it, and outside the team it sits out."""
    mech = TeamFormationMechanism(round_steps=2, theta=0.2, adaptation=0)
    session = scripted_session("number-tools", mechanisms=[mech])
    session.run()
    teams = [e for e in session.events if isinstance(e, TeamEvent)]
    assert len(teams) == 2 and "engineer4" not in teams[1].teams["team"]
    matrices = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "alignment_matrix"]
    at_reform = next(e.data for e in matrices if e.tick == teams[1].tick)
    agents = at_reform["agents"]
    assert at_reform["phi"][agents.index("pm")][agents.index("engineer4")] == 0.0
    assert at_reform["phi"][agents.index("pm")][agents.index("engineer1")] == 1.0
    # outside the team engineer4 sits out, as everyone now predicts: phi recovers (mean of 0, 1, 1)
    last = matrices[-1].data
    assert last["phi"][agents.index("pm")][agents.index("engineer4")] == pytest.approx(2 / 3, abs=1e-6)
    world, state = session.world, session.state
    assert ("engineer4" in world.sat_out(state, state.round))
    assert any(e.kind == "predictions" and e.data["level"] == 1 for e in session.events if isinstance(e, BeliefEvent))


def test_teams_are_formed_within_one_side_of_the_debate():
    """Seed 000 Section 6.2: the affirmative side picks two of its three debaters by team formation,
    while the negative side and the judge are outside formation and keep working."""
    from agents.teams.mechanism import OUTSIDE_NAME, RandomTeamMechanism

    aff = ("aff1", "aff2", "aff3")
    levels = {"aff1": 0, "aff2": 1, "aff3": 2, "neg1": 0, "neg2": 0, "neg3": 0}
    drawn = RandomTeamMechanism(candidates="aff1+aff2+aff3", round_steps=2)
    session = scripted_session("death-penalty", levels, mechanisms=[drawn])
    session.run()
    team = drawn.episode_summary()["team"]
    assert len(team) == 2 and set(team) <= set(aff)  # ceil(3 / 2) of the candidates
    assert drawn.episode_summary()["outside"] == ["neg1", "neg2", "neg3", "judge"]
    first = next(e for e in session.events if isinstance(e, TeamEvent))
    assert first.teams[OUTSIDE_NAME] == ["neg1", "neg2", "neg3", "judge"]
    world, state = session.world, session.state
    left_out = (set(aff) - set(team)).pop()
    for r in range(1, world.rounds):  # from round 1 (the team is told after the first step) the affirmative
        # debater left out sits out, and the negative side speaks
        assert left_out in world.sat_out(state, r) and not set(world.sat_out(state, r)) & {"neg1", "neg2", "neg3"}

    formed = TeamFormationMechanism(candidates=list(aff), round_steps=2, theta=0.0, adaptation=0, max_size="eta")
    session = scripted_session("death-penalty", levels, mechanisms=[formed])
    session.run()
    teams = [e for e in session.events if isinstance(e, TeamEvent)]
    assert teams[0].teams["team"] == list(aff) and "every candidate" in teams[0].reason
    assert all(set(e.teams["team"]) <= set(aff) and e.teams[OUTSIDE_NAME] == ["neg1", "neg2", "neg3", "judge"]
               for e in teams)
    with pytest.raises(ValueError, match="candidates names agents this world does not have: \\['zed'\\]"):
        scripted_session("death-penalty", mechanisms=[TeamFormationMechanism(candidates="aff1+zed")])
    with pytest.raises(ValueError, match="size 4 exceeds the 3 candidates"):
        scripted_session("death-penalty", mechanisms=[RandomTeamMechanism(candidates="aff1+aff2+aff3", size=4)])


def test_messages_go_through_the_core_and_reach_the_recipients():
    session = scripted_session("death-penalty")
    session.run()
    messages = [e for e in session.events if isinstance(e, MessageEvent)]
    assert len(messages) == 3 * 3 * 2 + 1 and messages[-1].sender == "judge"
    assert set(messages[0].recipients) == set(session.world.agents) - {messages[0].sender}
    obs = session.world.observe(session.state, "aff1")
    assert obs.inbox and obs.inbox[0][0] == "judge"


# ------------------------------------------------------------------ record and replay

@pytest.mark.parametrize("name", ["list-tools", "homework-ban"])
def test_record_and_replay_of_a_room_episode_are_equal(tmp_path, name):
    session = scripted_session(name, {"pm": 2}, mechanisms=[TeamFormationMechanism(round_steps=2)])
    states = [session.state]
    path = tmp_path / f"{name}.jsonl"
    RecordingWriter.attach(session, path)
    while not session.finished:
        session.advance()
        states.append(session.state)
    replay = Replay(str(path))
    assert replay.num_steps == len(states) - 1 and not replay.warnings
    for k, live in enumerate(states):
        assert replay.state_at(k) == live
    rec = load_recording(path)
    assert [e.to_dict() for e in rec.events] == [e.to_dict() for e in session.events]


def test_the_command_line_runs_a_room_with_the_default_agents(tmp_path, capsys):
    assert main(["run", "string-codecs", "--mechanism", "teams:round_steps=2", "--out", str(tmp_path)]) == 0
    rec = load_recording(tmp_path / "string-codecs-seed0.jsonl")
    assert rec.footer["outcome"]["pass_at_1"] == 1.0
    assert make_agent("room-scripted", "teamroom").k == 1


# ------------------------------------------------------------------ the view

def test_the_view_draws_the_room_and_the_debate():
    import pygame

    from ui.teamroom.renderer import TeamRoomRenderer

    pygame.init()
    session = scripted_session("list-tools", {"pm": 1})
    session.run()
    view = TeamRoomRenderer(session.world)
    surface = pygame.Surface((1000, 640))
    view.layout(1000, 640)
    view.draw(surface, session.state)
    assert view.lines[0] == "flatten engineer4 not submitted first —"
    assert view.cards["engineer4"][1] == "working" and view.cards["engineer1"][1] == "sat out"
    assert "pass@1 75%" in view.status_text(session.state)
    debate = scripted_session("car-free-centres", {"aff1": 0, "aff2": 0, "aff3": 0})
    debate.run()
    view = TeamRoomRenderer(debate.world)
    view.layout(800, 500)
    view.draw(pygame.Surface((800, 500)), debate.state)
    assert len(view.lines) == 2 * 2 * 3 and view.cards["aff1"][1] == "spoke"
    assert view.status_text(debate.state).endswith("wins") or view.status_text(debate.state) == "tie"
    small = pygame.Surface((300, 180))
    view.layout(300, 180)
    view.draw(small, debate.state)  # the preview size draws without error


def test_the_debates_teams_never_span_sides_and_the_judge_is_no_member():
    """Without candidates, the team mechanisms form teams within each side (the world's
    formation groups): every assignment names one team per side, each inside its side, and the
    judge only among the others who keep working."""
    from agents.teams.mechanism import OUTSIDE_NAME, RandomTeamMechanism

    aff, neg = ["aff1", "aff2", "aff3"], ["neg1", "neg2", "neg3"]
    levels = {"aff1": 0, "aff2": 1, "aff3": 2, "neg1": 2, "neg2": 1, "neg3": 0}
    mechanisms = [TeamFormationMechanism(round_steps=2, theta=0.0, adaptation=0, max_size="eta"),
                  TeamFormationMechanism(round_steps=2, theta=0.0, adaptation=0, max_size="eta", choose="random"),
                  *[RandomTeamMechanism(round_steps=2, every=1) for _ in range(4)]]
    for seed, mechanism in enumerate(mechanisms):
        session = scripted_session("death-penalty", levels, mechanisms=[mechanism], seed=seed)
        session.run()
        teams = [e for e in session.events if isinstance(e, TeamEvent)]
        assert teams
        for e in teams:
            assert set(e.teams) == {"affirmative", "negative", OUTSIDE_NAME}
            assert set(e.teams["affirmative"]) <= set(aff) and set(e.teams["negative"]) <= set(neg)
            assert e.teams[OUTSIDE_NAME] == ["judge"]
        summary = mechanism.episode_summary()
        assert "judge" not in summary["team"] and summary["outside"] == ["judge"]
        if isinstance(mechanism, RandomTeamMechanism) or len(teams) > 1:
            assert len(summary["teams"]["affirmative"]) == 2 and len(summary["teams"]["negative"]) == 2
        states = [e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "team_state"]
        assert all(set(s["teams"]) == {"affirmative", "negative"} for s in states)
