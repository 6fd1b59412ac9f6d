"""ProToM in a real Session: feedback and its statuses are Events, recorded and replayed."""

from __future__ import annotations

from agents.registry import make_agent, make_mechanism
from main import main
from sim.events import BeliefEvent, FeedbackEvent, FeedbackStatusEvent
from sim.recording import RecordingWriter, load_recording
from sim.registry import load_scenario
from sim.replay import Replay
from sim.session import Session


def test_session_records_feedback_and_replays(tmp_path):
    world, name = load_scenario("protom-15-locked-in")
    seats = {a: make_agent("boltzmann:temperature=0.3,show_plan=false") for a in world.agents}
    session = Session(world, seats, seed=42, scenario=name, mechanisms=[make_mechanism("protom", "dkg")])
    path = tmp_path / "episode.jsonl"
    RecordingWriter.attach(session, path)
    outcome = session.run()
    assert outcome["success"]  # Alice could not have left her room without Bob's help

    feedback = [e for e in session.events if isinstance(e, FeedbackEvent)]
    assert len(feedback) == 1
    fb = feedback[0]
    assert fb.target == "bob" and fb.facilitator == "protom"
    assert fb.feedback == {"type": "unlock", "agent": "bob", "door": "door1", "for": "alice"}
    assert fb.explanation.startswith(("I believe Alice is trying to get",
                                   "I am not sure yet which gem Alice wants"))
    statuses = [e.status for e in session.events if isinstance(e, FeedbackStatusEvent) and e.feedback_id == fb.feedback_id]
    assert statuses == ["accepted", "completed"]
    posteriors = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "goal_posterior"]
    assert len(posteriors) == len(world.agents) * session.tick  # every agent, every step
    assert abs(sum(posteriors[-1].data["goals"].values()) - 1) < 1e-5

    recording = load_recording(path)
    assert recording.complete and recording.footer["metrics"]["feedback"] == 1
    assert recording.header["mechanisms"] == [{"kind": "protom", "name": "protom", "phi": 0.0, "eps": 0.1, "particles": 1,
                                               "divergence": "centralised", "prune_below": 0.001,
                                               "respect_busy": True}]
    replay = Replay(recording)
    assert not replay.warnings and replay.num_steps == session.tick
    assert replay.state_at(replay.num_steps) == session.state
    assert [e.type for e in replay.events_at(fb.tick) if e.type.startswith("feedback")][:2] == ["feedback", "feedback_status"]
    last = replay.belief_at("protom", "goal_posterior", replay.num_steps)
    assert last is not None and last.data["agent"] in world.agents
    considered = replay.belief_at("protom", "feedback_candidates", fb.tick)
    assert considered is not None and considered.data["chosen"] is not None


def test_no_feedback_where_it_is_not_needed():
    world, name = load_scenario("protom-02-own-keys")
    for seed in range(3):
        seats = {a: make_agent("boltzmann:temperature=0.3,show_plan=false") for a in world.agents}
        session = Session(world, seats, seed=seed, scenario=name, mechanisms=[make_mechanism("protom", "dkg")])
        assert session.run()["success"]
        assert session.counters["feedback"] == 0
        # ... although it weighed the candidates at every step
        assert any(isinstance(e, BeliefEvent) and e.kind == "feedback_candidates" for e in session.events)


def test_compliance_zero_ignores_feedback_and_the_facilitator_may_ask_again():
    world, name = load_scenario("protom-15-locked-in")
    seats = {a: make_agent("boltzmann:temperature=0.3,compliance=0,show_plan=false") for a in world.agents}
    session = Session(world, seats, seed=1, scenario=name, mechanisms=[make_mechanism("protom", "dkg")],
                      max_ticks=12)
    session.run()
    statuses = [e.status for e in session.events if isinstance(e, FeedbackStatusEvent)]
    assert statuses and set(statuses) == {"ignored"}
    assert session.counters["feedback"] == len(statuses) > 1


def test_run_command_takes_a_facilitator(tmp_path, capsys):
    assert main(["run", "protom-17-bobs-door", "--agents", "boltzmann:temperature=0.3", "--facilitator",
                 "oracle", "--episodes", "1", "--out", str(tmp_path), "--quiet"]) == 0
    table = (tmp_path / "metrics.csv").read_text().splitlines()
    assert table[0].split(",")[:4] == ["scenario", "seed", "agents", "mechanisms"]
    row = dict(zip(table[0].split(","), table[1].split(",")))
    assert row["mechanisms"] == "oracle" and row["success"] == "True" and row["feedback"] == "1"
    assert main(["run", "protom-17-bobs-door", "--facilitator", "protom:bogus=1", "--quiet",
                 "--out", str(tmp_path)]) == 2
    assert "unknown parameter 'bogus'; it takes phi" in capsys.readouterr().err


def test_the_default_says_when_it_averaged_over_some_hypotheses_only():
    from agents.protom.core import AUTO_CAP, AUTO_EXACT_UP_TO
    world, name = load_scenario("team-01-six")  # six agents, six gems: up to 720 hypotheses
    seats = {a: make_agent("tom-planner:k=cycle", world.family) for a in world.agents}
    session = Session(world, seats, seed=0, scenario=name, mechanisms=[make_mechanism("protom", "dkg")])
    session.run(max_steps=2)
    considered = [e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "feedback_candidates"]
    assert considered and considered[0]["hypotheses_total"] > AUTO_EXACT_UP_TO
    assert 1 <= considered[0]["hypotheses"] <= AUTO_CAP
    assert 0 < considered[0]["hypotheses_mass"] < 1  # the share of the probability the kept ones hold
    # where every hypothesis is kept (a shipped two-agent scenario), the field is left out
    world, name = load_scenario("protom-15-locked-in")
    seats = {a: make_agent("boltzmann:temperature=0.3,show_plan=false") for a in world.agents}
    session = Session(world, seats, seed=42, scenario=name, mechanisms=[make_mechanism("protom", "dkg")])
    session.run(max_steps=5)
    considered = [e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "feedback_candidates"]
    assert considered and all("hypotheses_total" not in d and "hypotheses_mass" not in d for d in considered)
