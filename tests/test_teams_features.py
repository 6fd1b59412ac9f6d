"""Appendix A's feature-extractor alignment: the Doors, Keys and Gems extractor phi(s, a) on
hand-made states (known vectors), the zero-vector rule, the tracker and the mechanism with
``embedding=features`` on Doors, Keys and Gems and on a world that brings its own extractor."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from agents.registry import make_agent, make_mechanism
from agents.teams.alignment import alignment_cosine, embed_feature_steps, feature_alignment, trajectory_alignment
from agents.teams.mechanism import AlignmentTracker, TeamFormationMechanism, world_featurizer
from sim.dkg.features import FEATURE_NAMES
from sim.events import ErrorEvent
from sim.seats import Agent
from sim.session import Session
from tests.test_teams_agents import hall_world
from tests.test_teams_mechanism import LineState, LineWorld

# The hall of test_teams_agents (col: 0123456789AB):
#   "#+..r.1.2*%#"   al at col 6, bo at col 8, the red key r at col 4, cy's gem + at col 1,
#   "####R#######"   al's gem * at col 9, bo's gem % at col 10; the red door R below the key,
#   "####3#######"   cy locked in below it.
AL, BO, CY = 0, 1, 2


def vec(**nonzero: float) -> tuple[float, ...]:
    return tuple(float(nonzero.get(name, 0.0)) for name in FEATURE_NAMES)


def moved(world, state, a: int, row: int, col: int, turn: int | None = None):
    cells = state.agent_cells[:a] + (world.cell(row, col),) + state.agent_cells[a + 1:]
    return dataclasses.replace(state, agent_cells=cells, turn=a if turn is None else turn)


def holding_key(world, state, a: int):
    locs = list(state.item_locs)
    locs[world.item_index["key1"]] = -1 - a
    return dataclasses.replace(state, item_locs=tuple(locs))


def test_dkg_features_known_vectors():
    world = hall_world()
    s = world.reset(0)
    assert world.feature_names == FEATURE_NAMES
    # al walks left: away from its gem (col 9), toward the red key that opens the locked door
    f, after = world.action_features(s, "al", "left")
    assert f == vec(dx=-1, gem=-1, key=1)
    assert after.agent_cells[AL] == world.cell(1, 5)
    assert world.action_features(s, "al", "right")[0] == vec(dx=1, gem=1, key=-1)
    # bo, not on turn, is featurized as if it acted alone: toward its gem (col 10), away from the key
    assert world.action_features(s, "bo", "right")[0] == vec(dx=1, gem=1, key=-1)
    # waiting does nothing: the zero vector, the same state
    assert world.action_features(s, "al", "wait") == (vec(), s)
    # so does an action that cannot be taken there (cy is walled in behind a locked door)
    assert world.action_features(s, "cy", "up") == (vec(), s)
    assert world.action_features(s, "al", "pickup key1") == (vec(), s)
    # on the key: picking it up
    on_key = moved(world, s, AL, 1, 4)
    f, after = world.action_features(on_key, "al", "pickup key1")
    assert f == vec(pickup_key=1) and after.item_locs[world.item_index["key1"]] == -1 - AL
    # holding it, one cell right of the door's neighbour: toward the door it opens, away from its gem
    carrying = holding_key(world, moved(world, s, AL, 1, 5), AL)
    assert world.action_features(carrying, "al", "left")[0] == vec(dx=-1, gem=-1, door=1)
    # beside the door: unlocking it
    at_door = holding_key(world, on_key, AL)
    f, after = world.action_features(at_door, "al", "unlock door1")
    assert f == vec(unlock=1) and after.open_doors == 1
    # cy, freed, steps up through the open door toward its gem (col 1)
    f, _ = world.action_features(after, "cy", "up")
    assert f == vec(dy=-1, gem=1)
    # handing the key to bo next to it
    beside = holding_key(world, moved(world, s, AL, 1, 7), AL)
    assert world.action_features(beside, "al", "handover key1 bo")[0] == vec(handover=1)
    # al holding its own gem: gem progress is 0 (nothing left to reach); picking a gem up is flagged
    on_gem = moved(world, s, AL, 1, 9)
    f, got = world.action_features(on_gem, "al", "pickup gem2")
    assert f == vec(pickup_gem=1)
    assert world.action_features(got, "al", "left")[0] == vec(dx=-1, key=1)


def test_zero_vector_rule_and_feature_cosine_known_answers():
    zero, x = np.zeros(3), np.array([1.0, 2.0, 0.0])
    assert alignment_cosine(zero, zero) is None          # undefined and uninformative: no score
    assert alignment_cosine(zero, x) == 0.0 and alignment_cosine(x, zero) == 0.0  # no alignment
    assert alignment_cosine(x, 2 * x) == pytest.approx(1.0)
    assert alignment_cosine(x, -x) == pytest.approx(-1.0)
    left, right, up = vec(dx=-1, key=1), vec(dx=1, key=-1), vec(dy=-1)
    w = vec()
    assert feature_alignment([left], [left]) == pytest.approx(1.0)
    assert feature_alignment([left], [right]) == pytest.approx(-1.0)
    assert feature_alignment([left], [up]) == pytest.approx(0.0)
    assert feature_alignment([w, w], [w, w]) is None     # "waits" predicted, waits done
    assert feature_alignment([w], [left]) == 0.0         # a wait predicted, a move done
    assert feature_alignment([left, w], [left, w]) == pytest.approx(1.0)  # judged on the informative step
    # [left, wait] against [left, left]: dot 2, norms sqrt(2) and 2 -> 1/sqrt(2)
    assert feature_alignment([left, w], [left, left]) == pytest.approx(1 / math.sqrt(2))
    # discount 0.5 on [left, left] vs [left, right]: (2 - 0.5) / (2 + 0.5) = 0.6
    assert feature_alignment([left, left], [left, right], discount=0.5) == pytest.approx(0.6)
    assert feature_alignment([left, left, left], [left]) == pytest.approx(1.0)  # the shorter length
    assert embed_feature_steps([left, up]).shape == (2 * len(FEATURE_NAMES),)
    with pytest.raises(ValueError, match="empty"):
        feature_alignment([], [left])
    with pytest.raises(ValueError, match="one length"):
        embed_feature_steps([(1.0, 0.0), (1.0,)])
    # the action embeddings keep their scores: 'steps' never embeds to zero; 'net' can
    assert trajectory_alignment(["stay"], ["stay"]) == pytest.approx(1.0)
    assert trajectory_alignment(["left", "right"], ["up", "down"], embedding="net") is None


def _predict(tracker: AlignmentTracker, owner: str, about: Mapping[str, Any], state) -> None:
    tracker.update({}, {owner: {"predictions": {"about": about}}}, None, state)


def test_tracker_with_the_dkg_extractor():
    world = hall_world()
    featurize, dims = world_featurizer(world)
    assert dims == len(FEATURE_NAMES)
    tracker = AlignmentTracker(world.agents, window=5, embedding="features", featurize=featurize, dims=dims)
    s = world.reset(0)
    # bo predicts al walks left twice (toward the key) and that cy waits; cy is predicted by al to wait
    _predict(tracker, "bo", {"al": {"trajectory": ["left", "left"]}, "cy": {"trajectory": ["wait"]}}, s)
    _predict(tracker, "cy", {"al": {"trajectory": ["right"]}}, s)
    s1 = world.step(s, {"al": "left"}).state
    tracker.update({"al": "left"}, {}, s, s1)            # al's first action settles cy's 1-step guess
    assert tracker.matrix()[CY, AL] == pytest.approx(-1.0)
    s2 = world.step(s1, {"bo": "wait"}).state
    tracker.update({"bo": "wait"}, {}, s1, s2)
    s3 = world.step(s2, {"cy": "wait"}).state
    tracker.update({"cy": "wait"}, {}, s2, s3)             # cy waited as predicted: no score
    assert np.isnan(tracker.matrix()[BO, CY]) and tracker.unscored == 1
    s4 = world.step(s3, {"al": "left"}).state
    tracker.update({"al": "left"}, {}, s3, s4)
    assert tracker.matrix()[BO, AL] == pytest.approx(1.0)
    assert tracker.taken_features["al"] == [vec(dx=-1, gem=-1, key=1)] * 2
    # a predictor may send its own features (one vector per predicted step), checked
    _predict(tracker, "al", {"bo": {"trajectory": ["right"], "features": [list(vec(dx=1, gem=1, key=-1))]}}, s4)
    _predict(tracker, "cy", {"bo": {"trajectory": ["right"], "features": [[1, 2]]}}, s4)
    assert f"'features' must be one list of {len(FEATURE_NAMES)} numbers per predicted step (1)" in tracker.problems[-1]
    s5 = world.step(s4, {"bo": "right"}).state
    tracker.update({"bo": "right"}, {}, s4, s5)
    assert tracker.matrix()[AL, BO] == pytest.approx(1.0)


class LineFeatureWorld(LineWorld):
    """The line world with its own extractor phi(s, a) = (displacement,): any world can bring one."""

    feature_names = ("dx",)

    def action_features(self, state: LineState, agent: str, action: str):
        k = self.names.index(agent)
        delta = {"left": -1, "right": 1}.get(action, 0)
        p = min(self.width - 1, max(0, state.positions[k] + delta))
        positions = state.positions[:k] + (p,) + state.positions[k + 1:]
        return (float(p - state.positions[k]),), LineState(state.t, positions)


class Fixed(Agent):
    """Moves by a fixed rule and predicts the others by another."""

    kind = "fixed"

    def __init__(self, move: str, guess: Mapping[str, str]) -> None:
        self.move, self.guess = move, guess

    def act(self, observation, legal_actions: Sequence[str]) -> str:
        return self.move

    def belief_snapshots(self):
        return [("predictions", {"about": {o: {"trajectory": [g, g]} for o, g in self.guess.items()}})]


def test_mechanism_uses_a_world_supplied_extractor_and_refuses_worlds_without_one():
    names = ("a", "b", "c", "d")
    moves = {"a": "right", "b": "right", "c": "stay", "d": "left"}
    world = LineFeatureWorld(names, width=60, horizon=12)
    seats = {n: Fixed(moves[n], {o: moves[o] for o in names if o != n}) for n in names}
    mechanism = make_mechanism("teams:embedding=features,window=3", "test-line")
    Session(world, seats, seed=0, mechanisms=[mechanism]).run()
    phi = mechanism.tracker.matrix()
    i = {n: k for k, n in enumerate(names)}
    assert phi[i["a"], i["b"]] == pytest.approx(1.0) and phi[i["b"], i["d"]] == pytest.approx(1.0)
    assert np.isnan(phi[i["a"], i["c"]])  # c stays, predicted to stay: never scored
    assert mechanism.episode_summary()["unscored"] > 0
    # the steps embedding scores the same staying as perfect alignment
    steps = make_mechanism("teams:window=3,embedding=steps", "test-line")
    Session(LineFeatureWorld(names, width=60, horizon=12),
            {n: Fixed(moves[n], {o: moves[o] for o in names if o != n}) for n in names},
            seed=0, mechanisms=[steps]).run()
    assert steps.tracker.matrix()[i["a"], i["c"]] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="embedding=features needs the world's feature extractor.*test-line"):
        Session(LineWorld(names), {n: Fixed("stay", {}) for n in names}, seed=0,
                mechanisms=[TeamFormationMechanism(embedding="features")])
    with pytest.raises(ValueError, match="embedding must be one of auto, steps, net, features"):
        TeamFormationMechanism(embedding="pixels")
    # by default (auto) the world's features where it has an extractor, the action steps elsewhere
    auto = make_mechanism("teams:window=3", "test-line")
    Session(LineFeatureWorld(names, width=60, horizon=12),
            {n: Fixed(moves[n], {o: moves[o] for o in names if o != n}) for n in names},
            seed=0, mechanisms=[auto]).run()
    assert auto.embedding == "features" and np.isnan(auto.tracker.matrix()[i["a"], i["c"]])
    plain = TeamFormationMechanism()
    Session(LineWorld(names, horizon=4), {n: Fixed("stay", {}) for n in names}, seed=0, mechanisms=[plain]).run()
    assert plain.embedding == "steps"


def test_tom_planners_on_the_hall_with_features():
    world = hall_world(t_max=30)
    seats = {"al": make_agent("tom-planner:k=1", "dkg"), "bo": make_agent("tom-planner:k=2", "dkg"),
             "cy": make_agent("tom-planner:k=0", "dkg")}
    mechanism = make_mechanism("teams:embedding=features", "dkg")
    session = Session(world, seats, seed=0, mechanisms=[mechanism])
    session.run()
    assert session.outcome()["holding_goal"]["al"] and session.outcome()["holding_goal"]["bo"]
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]
    tracker = mechanism.tracker
    assert all(len(tracker.taken_features[a]) == len(tracker.taken[a]) for a in world.agents)
    phi = tracker.episode_matrix()
    known = phi[~np.isnan(phi)]
    assert known.size and np.all((known >= -1) & (known <= 1))
    summary = mechanism.episode_summary()
    assert summary["scored"] > 0 and summary["unscored"] > 0  # cy waits locked in, as predicted


def test_cli_names_the_world_without_an_extractor(tmp_path, capsys):
    from main import main

    code = main(["run", "narrow-door", "--mechanism", "teams:embedding=features", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert ("error: narrow-door: embedding=features needs the world's feature extractor phi(s, a), and kitchen "
            "worlds have none") in err
