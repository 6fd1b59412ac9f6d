"""Task rounds (sim/rounds.py): one episode plays its scenario several times in a row with the same
seats and mechanisms; the Session, Replay, take-overs, the team mechanism, the experiment runner and
the command line agree on where rounds end."""

from __future__ import annotations

import json

import pytest

from agents.registry import make_agent, make_mechanism, seat_specs
from experiments.runner import SCENARIO_DIR, main
from sim.events import RoundEvent, StepEvent, TeamEvent
from sim.recording import RecordingError, RecordingWriter, load_recording
from sim.registry import load_scenario
from sim.replay import Replay
from sim.session import Session
from tests.test_recording_replay import sealed


def planners(world):
    return {a: make_agent("planner", "dkg") for a in world.agents}


def test_each_round_starts_from_the_scenario_and_the_episode_tick_counts_every_step():
    world, _ = load_scenario("two-rooms")
    session = Session(world, planners(world), seed=0, rounds=3)
    out = session.run()
    rounds = [e for e in session.events if isinstance(e, RoundEvent)]
    # the planners are deterministic: every round takes 25 steps
    assert [(e.tick, e.round, e.outcome["length"]) for e in rounds] == [(25, 1, 25), (50, 2, 25)]
    assert session.tick == 75 and session.metrics()["ticks"] == 75 and session.round == 2
    assert out["rounds"] == 3 and len(out["round_outcomes"]) == 2
    assert out["length"] == 25 and out["success"]  # the outcome is the last round's
    steps = [e.tick for e in session.events if isinstance(e, StepEvent)]
    assert steps == list(range(75))
    assert session.header()["rounds"] == 3
    # one round is the episode as it always was
    single = Session(world, planners(world), seed=0)
    assert single.run() == {k: v for k, v in out.items() if k not in ("rounds", "round_outcomes")}
    assert "rounds" not in single.header()
    with pytest.raises(ValueError, match="rounds must be a whole number >= 1"):
        Session(world, planners(world), seed=0, rounds=0)


def test_a_recorded_episode_of_rounds_replays_exactly_and_a_take_over_crosses_a_round(tmp_path):
    world, _ = load_scenario("two-rooms")
    session = Session(world, planners(world), seed=0, rounds=2)
    live = [session.state]
    path = tmp_path / "rounds.jsonl"
    RecordingWriter.attach(session, path)
    while not session.finished:
        session.advance()
        live.append(session.state)
    replay = Replay(path, keyframe_every=8)
    assert replay.warnings == [] and replay.rounds == 2 and replay.num_steps == 50
    assert [replay.state_at(k) for k in range(51)] == live
    assert replay.state_at(25) == world.reset(0)  # round 2 starts from the scenario's layout
    assert [e.round for e in replay.events_at(25) if isinstance(e, RoundEvent)] == [1]
    # take over at step 30, in the second round: the same planners play it out the same way
    prefix = [replay.joint_action(k) for k in range(30)]
    again = Session(world, planners(world), seed=0, rounds=2, prefix=prefix)
    assert again.round == 1 and again.tick == 30 and again.state == live[30]
    assert again.run()["round_outcomes"] == session.outcome()["round_outcomes"]
    assert again.tick == 50
    # a mechanism starting in round 2 counts on the episode's clock, not the round's
    teams = make_mechanism("teams", "dkg")
    late = Session(world, planners(world), seed=0, rounds=2, prefix=prefix, mechanisms=[teams])
    late.start()
    assert [e.tick for e in late.events if isinstance(e, TeamEvent)] == [30]
    assert teams.lifetimes[0]["formed_tick"] == 30


def test_a_header_with_a_bad_round_count_is_refused(tmp_path):
    world, _ = load_scenario("two-rooms")
    session = Session(world, planners(world), seed=0, rounds=2)
    path = tmp_path / "r.jsonl"
    RecordingWriter.attach(session, path)
    session.run()
    objs = [json.loads(line) for line in path.read_text().splitlines()]
    objs[0]["rounds"] = 0
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(sealed(objs))  # a file written with that header, not one edited after
    with pytest.raises(RecordingError, match="header field 'rounds': expected a whole number >= 1"):
        Replay(load_recording(bad))


def test_a_team_formed_in_one_round_plays_the_next_ones_and_the_idle_wait():
    world, _ = load_scenario("rush-02-five")
    noisy = "tom-planner:k=cycle,horizon=3,noise=0.3"  # ben and dot act at random 30% of the time
    specs = seat_specs(world.agents, [f"ben={noisy}", f"dot={noisy}", "tom-planner:k=cycle,horizon=3"])
    seats = {a: make_agent(specs[a], "dkg") for a in world.agents}
    mechanism = make_mechanism("teams:round_steps=6,max_size=eta,embedding=steps", "dkg")
    session = Session(world, seats, seed=0, mechanisms=[mechanism], rounds=3)
    out = session.run()
    ends = [e.tick for e in session.events if isinstance(e, RoundEvent)]
    changes = [e for e in session.events if isinstance(e, TeamEvent)]
    assert len(ends) == 2 and out["rounds"] == 3
    assert len(changes) >= 2 and changes[-1].tick < ends[0]  # re-formed in the first round, kept after
    idle = set(world.agents) - set(mechanism.team)
    assert idle & {"ben", "dot"}  # an agent the others cannot predict is left out
    later = {e.joint_action[a] for e in session.events if isinstance(e, StepEvent) and e.tick >= ends[0]
             for a in e.joint_action if a in idle}
    assert later == {"wait"}  # and stand aside through the later rounds
    assert not any(out["holding_goal"][a] for a in idle)  # the last round's outcome: theirs not done
    # predictions pending when a round ends are dropped, not scored against the next round
    assert all(not waiting for waiting in mechanism.tracker.pending.values())


def test_an_experiment_design_plays_rounds_and_scores_the_last(tmp_path):
    design = without_team_bounds(json.loads((SCENARIO_DIR / "experiments" / "teams-rush-confirm.json").read_text()))
    design.update(experiment="rounds-small", scenarios=["dkg/rush-02-*"], seeds={"count": 1, "first": 0}, rounds=3)
    design["conditions"] = [{"name": "teams", "mechanisms": ["teams:round_steps=6,max_size=eta"]},
                            {"name": "random-teams", "mechanisms": ["random-teams:round_steps=6"]}]
    design["reference"], design["tests"]["compare"] = "random-teams", [["teams", "random-teams"]]
    path = tmp_path / "d.json"
    path.write_text(json.dumps(as_run_before(design)))
    assert main(path, out=tmp_path / "run", jobs=1, quiet=True) == 0
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()[1:]]
    assert len(records) == 2 and all(r["outcome"]["rounds"] == 3 for r in records)
    assert "each plays the scenario 3 times in a row" in (tmp_path / "run" / "report.md").read_text()


def test_run_command_takes_rounds(tmp_path, capsys):
    import main as cli

    assert cli.main(["run", "two-rooms", "--rounds", "2", "--out", str(tmp_path), "--quiet"]) == 0
    replay = Replay(tmp_path / "two-rooms-seed0.jsonl")
    assert replay.rounds == 2 and replay.num_steps == 50 and replay.warnings == []
    assert cli.main(["run", "two-rooms", "--rounds", "0", "--out", str(tmp_path / "x")]) == 2
    assert "--rounds must be at least 1, got 0" in capsys.readouterr().err


def test_the_per_task_round_confirmation_plays_its_shipped_halls(tmp_path):
    """teams-task-confirm (docs/reports/teams-task-confirm.md): its 48 halls are generators.make_taskround's output for seed 53,
    and its design runs, every team mechanism judging once per task round, re-forming only at a
    round's end."""
    from generators import make_taskround

    assert make_taskround.main(["--check"]) == 0
    design = without_team_bounds(json.loads((SCENARIO_DIR / "experiments" / "teams-task-confirm.json").read_text()))
    assert design["tests"]["alpha"] == 0.0125 and design["rounds"] == 5
    design.update(experiment="task-small", scenarios=["dkg/taskround-02-*"], seeds={"count": 1, "first": 0}, rounds=2)
    path = tmp_path / "d.json"
    path.write_text(json.dumps(as_run_before(design)))
    assert main(path, out=tmp_path / "run", jobs=1, quiet=True) == 0
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()[1:]]
    assert sorted(r["condition"] for r in records) == ["matched-random", "random-teams", "teams"]
    for record in records:
        summary = record["mechanisms"][next(iter(record["mechanisms"]))]
        assert summary["rounds"] == 2 and record["outcome"]["rounds"] == 2  # one cooperation round per task round
        # the teams' lifetimes, counted in task rounds, add up to the episode's 2 rounds
        assert summary["average_lifetime"] * summary["teams_formed"] == pytest.approx(2)


def test_the_facilitator_starts_each_task_round_afresh():
    """Mechanism.round_start: ProToM's goal inference starts again from the round's first state (its
    particles stood for the ended round's world, where everyone already held a gem), so a second
    round is inferred as the first was."""
    world, _ = load_scenario("two-rooms")
    facilitator = make_mechanism("protom", "dkg")
    session = Session(world, planners(world), seed=0, mechanisms=[facilitator], rounds=2)
    out = session.run()
    assert out["rounds"] == 2 and out["success"] and session.counters["errors"] == 0
    posteriors = {}
    for event in session.events:
        if getattr(event, "kind", None) == "goal_posterior":
            posteriors.setdefault(event.tick, {})[event.data["agent"]] = event.data["goals"]
    assert session.tick == 50 and posteriors[26] == posteriors[1]  # the same first step, the same inference


def without_team_bounds(design: dict) -> dict:
    """A team design without its floor and ceiling over every team (``over_teams`` conditions,
    added after the declared runs; tests/test_teams_ceiling.py plays them): the declared
    conditions only, with ``random-teams`` the floor again."""
    design["conditions"] = [c for c in design["conditions"] if "over_teams" not in c]
    for key in ("ceiling", "share_metrics"):
        design.pop(key, None)
    if "floor" in design:
        design["floor"] = "random-teams"
    return design


def as_run_before(design: dict) -> dict:
    """A design of the earlier team experiments with the final-team size check off for its team
    metrics: Algorithm 1 may keep the team of every agent, which the check refuses now."""
    for metric in design["metrics"]:
        if str(metric.get("derive", "")).startswith("experiments.teams:"):
            metric.setdefault("params", {})["equal_sizes"] = False
    return design
