"""The team mechanisms in a real Session, on a tiny world defined here: agents on a line moving
left or right by a fixed schedule, scripted to predict each other well, neutrally or badly."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from agents.registry import make_mechanism
from agents.teams.mechanism import AlignmentTracker, RandomTeamMechanism, TeamFormationMechanism
from sim.events import BeliefEvent, TeamEvent
from sim.seats import Agent, TeamAssignment
from sim.session import Session
from sim.snapshots import SnapshotError
from sim.world import StepResult, World, require_joint

ACTIONS = ("left", "right", "stay")


@dataclass(frozen=True, slots=True)
class LineState:
    t: int
    positions: tuple[int, ...]


class LineWorld(World):
    """Agents on cells 0..width-1 of a line, all moving at once; moves off the ends stay put."""

    family = "test-line"
    simultaneous = True

    def __init__(self, names: Sequence[str], width: int = 30, horizon: int = 30) -> None:
        self.names, self.width, self.horizon = tuple(names), width, horizon

    @property
    def agents(self) -> tuple[str, ...]:
        return self.names

    def reset(self, seed: int) -> LineState:
        return LineState(0, tuple(self.width // 2 for _ in self.names))

    def active_agents(self, state: LineState) -> tuple[str, ...]:
        return () if self.done(state) else self.names

    def legal_actions(self, state: LineState, agent: str) -> tuple[str, ...]:
        return ACTIONS if agent in self.active_agents(state) else ()

    def step(self, state: LineState, joint_action: Mapping[str, str]) -> StepResult[LineState]:
        require_joint(self, state, joint_action)
        delta = {"left": -1, "right": 1, "stay": 0}
        moved = tuple(min(self.width - 1, max(0, p + delta[joint_action[a]]))
                      for a, p in zip(self.names, state.positions))
        return StepResult(LineState(state.t + 1, moved))

    def observe(self, state: LineState, agent: str) -> LineState:
        return state

    def done(self, state: LineState) -> bool:
        return state.t >= self.horizon

    def state_key(self, state: LineState) -> tuple:
        return (state.t, state.positions)

    def outcome(self, state: LineState) -> dict[str, Any]:
        return {"ticks": state.t}

    def render_text(self, state: LineState) -> str:
        return " ".join(f"{a}@{p}" for a, p in zip(self.names, state.positions))


Schedule = Callable[[int], str]


def zigzag(period: int) -> Schedule:
    return lambda t: "right" if (t // period) % 2 == 0 else "left"


def switched(before: Schedule, after: Schedule, at: int) -> Schedule:
    return lambda t: before(t) if t < at else after(t)


OPPOSITE = {"left": "right", "right": "left", "stay": "stay"}


class ScriptedPredictor(Agent):
    """Acts by its schedule; after each step predicts the others' next ``horizon`` actions:
    ``accurate`` by the schedules it believes in, ``neutral`` as staying put (phi 0 against
    moves), ``opposite`` as the reverse of the truth (phi -1)."""

    kind = "scripted-predictor"

    def __init__(self, schedule: Schedule, beliefs: Mapping[str, Schedule], style: str = "accurate",
                 horizon: int = 2, level: int = 1) -> None:
        self.schedule, self.beliefs, self.style, self.horizon, self.level = schedule, beliefs, style, horizon, level
        self.teams: list[TeamAssignment] = []

    def act(self, observation: LineState, legal_actions: Sequence[str]) -> str:
        return self.schedule(observation.t)

    def receive_team(self, assignment: TeamAssignment) -> None:
        self.teams.append(assignment)

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        t = self.ctx.tick  # the next action anyone takes is at this tick
        about = {}
        for other, schedule in self.beliefs.items():
            truth = [schedule(t + k) for k in range(self.horizon)]
            if self.style == "neutral":
                guess = ["stay"] * self.horizon
            elif self.style == "opposite":
                guess = [OPPOSITE[a] for a in truth]
            else:
                guess = truth
            about[other] = {"trajectory": guess}
        return [("predictions", {"about": about, "level": self.level})]


NAMES = ("a", "b", "c", "d", "e")


def _session(schedules: Mapping[str, Schedule], styles: Mapping[str, str], mechanism, *,
             believed: Mapping[str, Schedule] | None = None, horizon: int = 30, seed: int = 0):
    """Each agent believes the others follow ``believed`` (default: their real schedules)."""
    world = LineWorld(NAMES, horizon=horizon)
    believed = dict(schedules if believed is None else believed)
    seats = {a: ScriptedPredictor(schedules[a], {o: believed[o] for o in NAMES if o != a}, styles[a])
             for a in NAMES}
    return Session(world, seats, seed=seed, mechanisms=[mechanism]), seats


def test_accurate_predictors_end_up_teamed_and_a_drop_reforms_after_the_adaptation_round():
    steady = {a: zigzag(p) for a, p in zip(NAMES, (2, 3, 4, 5, 3))}
    # c changes course at tick 14 and nobody expects it
    actual = dict(steady, c=switched(steady["c"], lambda t: OPPOSITE[steady["c"](t)], 14))
    styles = {"a": "accurate", "b": "accurate", "c": "accurate", "d": "neutral", "e": "opposite"}
    mechanism = TeamFormationMechanism(window=1)
    session, seats = _session(actual, styles, mechanism, believed=steady)
    session.run()

    teams = [e for e in session.events if isinstance(e, TeamEvent)]
    assert [e.teams["team"] for e in teams] == [list(NAMES), ["a", "b", "c"], ["a", "b", "d"]]
    assert teams[0].reason.startswith("initial team")
    for event in teams[1:]:
        assert event.reason.startswith("re-formed:") and "adaptation round" in event.reason
        assert event.mechanism == "teams" and event.data["phase"] == "formed"
    # first formation: d (neutral) and e (opposite) fail eps, {a, b, c} is the only eps-clique of 3
    assert teams[1].data["filtered"] is True and "eps-filtered" in teams[1].reason
    # after c's change no 3-team has every pair >= eps: the fallback picks a, b and neutral d
    assert teams[2].data["filtered"] is False and "fallback" in teams[2].reason

    states = {e.tick: e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "team_state"}
    # predictions of 2 steps made after step 0 resolve after step 2: the first round over theta
    # is round 3 (state 3), the team keeps working through the adaptation round and re-forms at 4
    assert states[3]["phase"] == "adapting" and states[3]["teams"]["team"] == list(NAMES)
    assert states[3]["misaligned"] == pytest.approx(8 / 20)
    assert teams[1].tick == 4
    # c's switch at tick 14 first shows in the predictions resolved after step 14 (state 15)
    assert states[14]["phase"] == "monitoring" and states[14]["misaligned"] == 0
    assert states[15]["phase"] == "adapting" and states[15]["misaligned"] == pytest.approx(2 / 6)
    assert teams[2].tick == 16

    final = states[session.tick]
    assert final["stable"] is True and final["idle"] == ["c", "e"]
    assert [x["rounds"] for x in final["lifetimes"]] == [4, 12, 14]  # rounds 0-4, 4-16, 16-30
    assert final["levels"] == {a: 1 for a in NAMES}
    # every seat hears every assignment, idle ones included (so that they know to stand aside)
    assert [list(t.teams["team"]) for t in seats["a"].teams] == [e.teams["team"] for e in teams]
    assert [list(t.teams["team"]) for t in seats["e"].teams] == [e.teams["team"] for e in teams]
    assert [t.team_of("e") for t in seats["e"].teams] == ["team", None, None]


def test_matched_random_baseline_keeps_the_monitor_and_draws_the_team_at_random():
    """choose=random: Algorithm 1's monitor, trigger and adaptation round as they are, and a random
    team of the same size where Eq. 5 would choose: re-formations happen at the same ticks."""
    steady = {a: zigzag(p) for a, p in zip(NAMES, (2, 3, 4, 5, 3))}
    actual = dict(steady, c=switched(steady["c"], lambda t: OPPOSITE[steady["c"](t)], 14))
    styles = {"a": "accurate", "b": "accurate", "c": "accurate", "d": "neutral", "e": "opposite"}
    ticks = {}
    for choose in ("welfare", "random"):
        mechanism = TeamFormationMechanism(window=1, choose=choose, max_size="eta")
        session, _ = _session(actual, styles, mechanism, believed=steady, seed=3)
        session.run()
        teams = [e for e in session.events if isinstance(e, TeamEvent)]
        ticks[choose] = teams[1].tick
        assert all(len(e.teams["team"]) == 3 for e in teams[1:])
        if choose == "random":
            assert "drawn at random (baseline)" in teams[1].reason and teams[1].data["method"] == "random"
            assert mechanism.describe()["choose"] == "random"
    assert ticks["welfare"] == ticks["random"] == 4
    with pytest.raises(ValueError, match="choose must be"):
        TeamFormationMechanism(choose="best")


def test_alignment_matrix_snapshot_shows_phi_with_thresholds():
    schedules = {a: zigzag(p) for a, p in zip(NAMES, (2, 3, 4, 5, 3))}
    styles = {"a": "accurate", "b": "neutral", "c": "opposite", "d": "accurate", "e": "accurate"}
    session, _ = _session(schedules, styles, TeamFormationMechanism(window=3), horizon=8)
    session.run()
    matrices = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "alignment_matrix"]
    assert len(matrices) == session.tick + 1 and matrices[0].owner == "teams" and matrices[0].tick == 0  # from the start
    first, last = matrices[0].data, matrices[-1].data
    assert first["phi"][0] == [None] * 5  # nothing resolved after one step
    assert last["agents"] == list(NAMES) and last["eps"] == 0.2 and last["theta"] == 0.3
    assert last["phi"][0] == [None, 1.0, 1.0, 1.0, 1.0]
    assert last["phi"][1] == [0.0, None, 0.0, 0.0, 0.0]
    assert last["phi"][2] == [-1.0, -1.0, None, -1.0, -1.0]
    assert last["samples"][0][1] == 3


def test_random_baseline_draws_ceil_half_and_tracks_alignment_too():
    schedules = {a: zigzag(2) for a in NAMES}
    styles = dict.fromkeys(NAMES, "accurate")
    drawn = []
    for seed in range(6):
        session, _ = _session(schedules, styles, make_mechanism("random-teams"), horizon=6, seed=seed)
        session.run()
        teams = [e for e in session.events if isinstance(e, TeamEvent)]
        assert len(teams) == 1 and len(teams[0].teams["team"]) == 3
        assert teams[0].mechanism == "random-teams" and "at random" in teams[0].reason
        drawn.append(tuple(teams[0].teams["team"]))
        state = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "team_state"][-1].data
        assert state["bas"] == 1.0 and state["ftm"] == dict.fromkeys(NAMES, 1.0)
    assert len(set(drawn)) > 1  # the draw follows the seed
    session, _ = _session(schedules, styles, RandomTeamMechanism(size=2, every=2), horizon=6, seed=0)
    session.run()
    assert [len(e.teams["team"]) for e in session.events if isinstance(e, TeamEvent)] == [2, 2, 2, 2]


def test_perfect_alignment_keeps_every_agent_teamed():
    schedules = {a: zigzag(p) for a, p in zip(NAMES, (2, 3, 4, 5, 3))}
    session, _ = _session(schedules, dict.fromkeys(NAMES, "accurate"), TeamFormationMechanism(), horizon=12)
    session.run()
    teams = [e for e in session.events if isinstance(e, TeamEvent)]
    assert [e.teams["team"] for e in teams] == [list(NAMES)]
    state = [e for e in session.events if isinstance(e, BeliefEvent) and e.kind == "team_state"][-1].data
    assert state["lifetimes"][0]["rounds"] == 12 and state["welfare"] == 5.0 and state["stable"] is True


def test_bad_snapshots_are_reported_by_the_tracker_and_refused_where_they_are_emitted():
    tracker = AlignmentTracker(["a", "b"])
    tracker.update({}, {"a": {"predictions": {"about": {"zed": {"trajectory": ["left"]},
                                                        "b": {"trajectory": []}}}}})
    assert len(tracker.problems) == 2 and "zed" in tracker.problems[0] and "'trajectory'" in tracker.problems[1]

    class Garbled(ScriptedPredictor):
        def belief_snapshots(self):
            return [("predictions", {"about": "everyone"})]

    world = LineWorld(NAMES, horizon=3)
    seats = {a: Garbled(zigzag(2), {}) for a in NAMES}
    session = Session(world, seats, seed=0, mechanisms=[TeamFormationMechanism()])
    with pytest.raises(SnapshotError, match="'a' emitted a 'predictions' snapshot .* field 'about' must be an object"):
        session.run()  # a snapshot that does not fit its kind is refused where it is emitted


def test_self_evaluation_snapshots_feed_phi():
    tracker = AlignmentTracker(["pm", "eng1", "eng2"])
    answer = '```json\n{"eng1": {"score": 0.7, "explanation": "ok"}, "eng2": {"score": -2}}\n```'
    assert tracker.update({}, {"pm": {"alignment_self_evaluation": {"answer": answer}}}) == 2
    phi = tracker.matrix()
    assert phi[0, 1] == pytest.approx(0.7) and phi[0, 2] == -1.0


def test_a_round_window_averages_the_current_round_and_carries_the_last_one():
    tracker = AlignmentTracker(["a", "b"], window="round")

    def score(value: float) -> None:
        tracker.update({}, {"a": {"alignment_self_evaluation": {"scores": {"b": value}}}})

    score(1.0)
    score(0.0)
    assert tracker.matrix()[0, 1] == 0.5 and tracker.sample_counts()[0][1] == 2
    tracker.close_round()  # the round's mean stays phi until the next round has a score
    assert tracker.matrix()[0, 1] == 0.5 and tracker.sample_counts()[0][1] == 2
    score(-1.0)
    assert tracker.matrix()[0, 1] == -1.0 and tracker.sample_counts()[0][1] == 1
    assert np.isnan(tracker.matrix()[1, 0]) and tracker.totals[("a", "b")] == [0.0, 3]
    windowed = AlignmentTracker(["a", "b"], window=2)
    for value in (1.0, 0.0, -1.0):
        windowed.update({}, {"a": {"alignment_self_evaluation": {"scores": {"b": value}}}})
    windowed.close_round()  # a window of scores does not care about rounds
    assert windowed.matrix()[0, 1] == -0.5
    for bad in (0, "rounds", True, 1.5):
        with pytest.raises(ValueError, match="window: expected a whole number >= 1"):
            AlignmentTracker(["a", "b"], window=bad)


def test_a_round_of_algorithm_1_can_be_a_task_round():
    """round_steps=task with window=round: the monitor judges at the end of each task round of the
    Session, on phi over that round, and team lifetimes count task rounds (seed 000's Table 4)."""
    schedules = {a: zigzag(p) for a, p in zip(NAMES, (2, 3, 2, 3, 2))}  # the same in every 12-step round
    styles = {"a": "accurate", "b": "accurate", "c": "accurate", "d": "neutral", "e": "opposite"}
    world = LineWorld(NAMES, horizon=12)
    seats = {a: ScriptedPredictor(schedules[a], {o: schedules[o] for o in NAMES if o != a}, styles[a])
             for a in NAMES}
    mechanism = TeamFormationMechanism(round_steps="task", window="round")
    session = Session(world, seats, seed=0, mechanisms=[mechanism], rounds=3)
    session.run()
    assert session.tick == 36

    states = {e.tick: e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "team_state"}
    # nothing is judged inside a round: the round count and the misaligned share change at its end only
    assert {t: states[t]["rounds"] for t in (11, 12, 23, 24, 36)} == {11: 0, 12: 1, 23: 1, 24: 2, 36: 3}
    assert states[11]["misaligned"] is None and states[12]["misaligned"] == pytest.approx(8 / 20)
    assert states[12]["phase"] == "adapting"  # d's (0) and e's (-1) rows over round 1: 8 of 20 pairs
    teams = [e for e in session.events if isinstance(e, TeamEvent)]
    assert [(e.tick, e.teams["team"]) for e in teams] == [(0, list(NAMES)), (24, ["a", "b", "c"])]
    assert "for 1 round(s) and still after 1 adaptation round(s)" in teams[1].reason
    assert [x["rounds"] for x in states[36]["lifetimes"]] == [2, 1]  # of 3 task rounds
    summary = mechanism.episode_summary()
    assert summary["team_size"] == 3 and summary["teams_formed"] == 2 and summary["average_lifetime"] == 1.5
    assert mechanism.describe()["round_steps"] == "task" and mechanism.describe()["window"] == "round"
    with pytest.raises(ValueError, match="round_steps: expected a whole number >= 1 .* or 'task'"):
        TeamFormationMechanism(round_steps=0)


def test_the_literal_counter_adds_up_misaligned_pairs_over_rounds_and_divides_by_the_team_size():
    """counter=literal: Algorithm 1 as printed (c grows by the round's misaligned pairs and is reset
    only when Eq. 5 is re-optimized; line 11 tests c / |T| > theta). e predicts nobody (phi 0): 4 of
    the 20 pairs, a share of 20 % that never passes theta 30 %, but c / |T| = 4 / 5 does at once."""
    schedules = {a: zigzag(p) for a, p in zip(NAMES, (2, 3, 4, 5, 3))}
    styles = dict(dict.fromkeys(NAMES, "accurate"), e="neutral")
    formed = {}
    for counter in ("share", "literal"):
        mechanism = TeamFormationMechanism(window=1, adaptation=0, counter=counter)
        session, _ = _session(schedules, styles, mechanism, horizon=12)
        session.run()
        formed[counter] = [(e.tick, e.teams["team"]) for e in session.events if isinstance(e, TeamEvent)]
        states = {e.tick: e.data for e in session.events if isinstance(e, BeliefEvent) and e.kind == "team_state"}
        if counter == "share":
            assert max(s["misaligned"] or 0 for s in states.values()) == pytest.approx(0.2)
        else:  # the first scores resolve after step 2: c = 4 pairs of e, c / |T| = 0.8
            assert states[3]["misaligned"] == pytest.approx(0.8) and states[4]["misaligned"] == 0
            reason = [e for e in session.events if isinstance(e, TeamEvent)][-1].reason
            assert reason.startswith("re-formed: c / |T| = 0.80") and mechanism.describe()["counter"] == "literal"
    assert formed == {"share": [(0, list(NAMES))], "literal": [(0, list(NAMES)), (3, ["a", "b", "c", "d"])]}
    with pytest.raises(ValueError, match="counter must be"):
        TeamFormationMechanism(counter="sum")


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="theta"):
        TeamFormationMechanism(theta=1.5)
    with pytest.raises(ValueError, match="tau"):
        TeamFormationMechanism(tau=0)
    world = LineWorld(NAMES)
    with pytest.raises(ValueError, match="alpha names agents"):
        Session(world, {a: ScriptedPredictor(zigzag(2), {}) for a in NAMES}, seed=0,
                mechanisms=[TeamFormationMechanism(alpha={"zed": 1.0})])


def test_a_warm_up_round_forms_the_first_team_whatever_the_monitor_says():
    """warmup=1: every agent plays the first task round; at its end Eq. 5 chooses (teams) or a
    random team is drawn (random-teams), so every episode ends with a team of the fixed size even
    when alignment never fails (without it, Algorithm 1 keeps the team of every agent)."""
    schedules = {a: zigzag(p) for a, p in zip(NAMES, (2, 3, 2, 3, 2))}
    styles = {"a": "accurate", "b": "accurate", "c": "accurate", "d": "accurate", "e": "neutral"}
    for mechanism in (TeamFormationMechanism(round_steps="task", window="round", max_size="eta", warmup=1),
                      RandomTeamMechanism(round_steps="task", window="round", warmup=1)):
        world = LineWorld(NAMES, horizon=12)
        seats = {a: ScriptedPredictor(schedules[a], {o: schedules[o] for o in NAMES if o != a}, styles[a])
                 for a in NAMES}
        session = Session(world, seats, seed=0, mechanisms=[mechanism], rounds=3)
        session.run()
        teams = [e for e in session.events if isinstance(e, TeamEvent)]
        assert [(e.tick, len(e.teams["team"])) for e in teams] == [(0, 5), (12, 3)]
        assert "warm-up" in teams[1].reason and mechanism.episode_summary()["team_size"] == 3
        if isinstance(mechanism, TeamFormationMechanism):
            assert "e" not in teams[1].teams["team"]  # e predicts nobody: Eq. 5 leaves it out
    with pytest.raises(ValueError, match="warmup must be a whole number >= 0"):
        TeamFormationMechanism(warmup=-1)
