"""Key-rush halls: the k-level ToM planner's key choices (a level-k agent leaves teammates the keys
its level-(k-1) model of them would take), the generator generators/make_rush.py, the
matched random baseline (Algorithm 1's monitor with a random team in place of Eq. 5's) and the
pre-declared design teams-rush-confirm on a small sample."""

from __future__ import annotations

import csv
import json

import pytest

from agents.registry import make_agent
from agents.teams.tom_dkg import DKGTeam, DKGTeamPolicies
from experiments.runner import SCENARIO_DIR, main
from experiments.teams import check_team_scenario, final_team_score
from generators import make_rush, make_scarce
from sim.dkg.scenario import validate_dkg
from sim.dkg.world import DKGWorld
from sim.events import StepEvent, TeamEvent
from sim.registry import build_world, load_spec, split_start
from sim.session import Session
from tests.test_rounds import as_run_before, without_team_bounds

# Two vaults behind red doors, side by side; one red key between al and bo, another far right.
#   col: 0123456789AB
RUSH = ["############",
        "#1k2......k#",
        "#R#R########",
        "#+#*########",
        "############"]


def rush_world(order=("al", "bo")) -> DKGWorld:
    data = {"world": "dkg", "name": "rush", "map": RUSH,
            "legend": {"#": "wall", ".": "floor", "+": {"gem": "cyan"}, "*": {"gem": "pink"},
                       "k": {"key": "red"}, "R": {"door": "red"}, "1": {"agent": "al"}, "2": {"agent": "bo"}},
            "goals": {"al": "gem1", "bo": "gem2"},
            "options": {"t_max": 80, "turn_order": list(order)}}
    return DKGWorld(validate_dkg(data, "rush"))


AL, BO = 0, 1


def test_each_level_leaves_teammates_the_keys_its_model_of_them_takes():
    world = rush_world()
    p = DKGTeamPolicies(world)
    s = world.reset(0)
    both = DKGTeam(world)
    near, far = world.item_index["key1"], world.item_index["key2"]
    # level 0: the optimal plan, which for both goes through the near key
    assert p.target_key(0, s, AL, both) == near and p.target_key(0, s, BO, both) == near
    assert p.policy(0, s, BO, both) == "left"
    # level 1: bo models al as level 0 (al takes the near key) and goes for the far one
    assert p.target_key(1, s, BO, both) == far
    assert p.policy(1, s, BO, both) == "right"
    # level 2: bo models al as level 1, who leaves the near key to bo's level-0 self: bo takes it
    assert p.target_key(2, s, BO, both) == near
    assert p.policy(2, s, BO, both) == "left"
    # a teammate outside the team claims nothing: level 1 takes the near key again
    assert p.policy(1, s, BO, DKGTeam(world, ["bo"])) == "left"
    # predictions follow the same models: a level-2 al expects bo (as level 1) to walk away
    assert p.predict(2, s, BO, both, [], 2) == ["right", "right"]
    assert p.predict(1, s, BO, both, [], 2) == ["left", "pickup key1"]


def _time_to_gems(levels: tuple[int, int]) -> int:
    """The sum of both agents' ticks to their gems (al moves first)."""
    world = rush_world()
    seats = {"al": make_agent(f"tom-planner:k={levels[0]}", "dkg"), "bo": make_agent(f"tom-planner:k={levels[1]}", "dkg")}
    out = Session(world, seats, seed=0).run()
    assert out["success"]
    return sum(out["goal_tick"].values())


def test_right_models_split_the_keys_and_wrong_ones_collide_or_both_yield():
    times = {(a, b): _time_to_gems((a, b)) for a in range(3) for b in range(3)}
    # bo's model of al is right in (0, 1) and (2, 1): al takes the near key, bo heads for the far one
    assert times[0, 1] == times[2, 1] == min(times.values())
    # (0, 0) and (2, 2): both go for the near key; al, first in turn, gets it and bo turns back
    assert times[0, 0] == times[2, 2] > times[0, 1]
    # (1, 1): each leaves the near key to the other; both walk to the far one, and one walks back
    assert times[1, 1] == max(times.values())




def test_rush_generator_recipe_and_shipped_files():
    made = make_rush.generate()
    assert make_rush.main(["--check"]) == 0  # the shipped rush-01..48 are seed 29's output
    assert json.dumps(make_rush.generate(seed=30, count=4)) != json.dumps(made[:4])
    sizes = [len(d["goals"]) for d in made]
    assert sorted(set(sizes)) == [5, 6, 7, 8] and all(sizes.count(n) == 12 for n in (5, 6, 7, 8))
    for d in made:
        n = len(d["goals"])
        cells = "".join(d["map"])
        assert cells.count("a") == n and cells.count("b") == n  # a red door and a red key per agent
        assert d["legend"]["a"] == {"door": "red"} and d["legend"]["b"] == {"key": "red"}
        assert sorted(d["goals"].values()) == sorted(f"gem{i + 1}" for i in range(n))
        assert d["options"]["t_max"] == 40 * n
        world = build_world("dkg", validate_dkg(split_start(d, d["name"])[0], d["name"]))
        assert check_team_scenario(d["name"], world, d) == {"agents": n, "locked_in": 0}


def test_rush_generator_command_line(tmp_path, capsys):
    assert make_rush.main(["--out", str(tmp_path), "--count", "4", "--seed", "3"]) == 0
    assert len(list(tmp_path.glob("rush-0[1-4]-*.json"))) == 4
    assert make_rush.main(["--out", str(tmp_path), "--count", "4", "--seed", "3", "--check"]) == 0
    assert make_rush.main(["--out", str(tmp_path), "--count", "4", "--seed", "4", "--check"]) == 1
    assert "not what seed 4 gives" in capsys.readouterr().err


def test_scarce_key_halls_hold_one_key_per_member_of_a_team_of_ceil_half(tmp_path, capsys):
    made = make_scarce.generate(seed=1, count=8)
    assert [d["name"][:9] for d in made] == [f"scarce-{i:02d}" for i in range(1, 9)]
    for d in made:
        n = len(d["goals"])
        cells = "".join(d["map"])
        assert cells.count("a") == n and cells.count("b") == -(-n // 2)  # a vault per agent, ceil(n/2) keys
        world = build_world("dkg", validate_dkg(split_start(d, d["name"])[0], d["name"]))
        assert check_team_scenario(d["name"], world, d) == {"agents": n, "locked_in": 0}
    assert make_scarce.main(["--out", str(tmp_path), "--count", "2", "--seed", "1"]) == 0
    assert make_scarce.main(["--out", str(tmp_path), "--count", "2", "--seed", "1", "--check"]) == 0
    assert "2 of 2 scenarios match seed 1" in capsys.readouterr().out
    # the pilot's halls are not shipped: checking the default folder says so in one line
    assert make_scarce.main(["--count", "2", "--check"]) == 2
    assert "not shipped" in capsys.readouterr().err
    assert make_scarce.main(["--out", str(tmp_path / "none"), "--check"]) == 2
    assert "no folder" in capsys.readouterr().err
    with pytest.raises(ValueError, match="holds 1 to 5 keys, not 6"):
        make_rush.hall(1, 5, __import__("random").Random(0), keys=6)


@pytest.mark.slow
def test_rush_design_runs_on_two_scenarios_and_one_seed(tmp_path, capsys):
    design = without_team_bounds(json.loads((SCENARIO_DIR / "experiments" / "teams-rush-confirm.json").read_text()))
    design["scenarios"] = ["dkg/rush-01-*", "dkg/rush-02-*"]
    design["seeds"] = {"count": 1, "first": 0}
    path = tmp_path / "small.json"
    path.write_text(json.dumps(design))
    # as declared, the comparison is refused where Algorithm 1 kept the team of every agent
    assert main(path, out=tmp_path / "run", jobs=1, quiet=True) == 2
    assert "final team sizes differ in rush-01-six" in capsys.readouterr().err
    path.write_text(json.dumps(as_run_before(design)))
    assert main(path, out=tmp_path / "run", jobs=1, quiet=True, resume=True) == 0
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()[1:]]
    assert sorted({r["condition"] for r in records}) == ["matched-random", "random-teams", "teams"]
    for r in records:  # the score's clock is the scenario's t_max
        team = next(iter(r["mechanisms"].values()))["team"]
        _, spec = load_spec(SCENARIO_DIR / "dkg" / "rush" / f"{r['scenario'].split('/')[-1]}.json")
        assert r["outcome"]["t_max"] == spec["options"]["t_max"]
        assert 0.0 <= final_team_score(r["world"], r["outcome"], team) <= 1.0
    report = (tmp_path / "run" / "report.md").read_text()
    assert "n counts scenarios" in report and "matched-random" in report


# ---------------------------------------------------------------- fixed teams and the diagnosis


def test_a_fixed_team_plays_from_the_start_and_the_others_stand_aside():
    from agents.teams.mechanism import FixedTeamMechanism

    world = rush_world()
    mechanism = FixedTeamMechanism(members=["bo"])
    seats = {"al": make_agent("tom-planner:k=1", "dkg"), "bo": make_agent("tom-planner:k=1", "dkg")}
    session = Session(world, seats, seed=0, mechanisms=[mechanism])
    out = session.run()
    assert mechanism.team == ("bo",) and [e["team"] for e in mechanism.lifetimes] == [["bo"]]
    # the team is told before anyone acts: idle al, first in the turn order, never moves
    told = [e for e in session.events if isinstance(e, TeamEvent)]
    assert [(e.tick, e.teams) for e in told] == [(0, {"team": ["bo"]})]
    assert session.events.index(told[0]) < next(i for i, e in enumerate(session.events) if isinstance(e, StepEvent))
    assert {e.joint_action["al"] for e in session.events if isinstance(e, StepEvent) and "al" in e.joint_action} \
        == {"wait"}
    assert out["holding_goal"] == {"al": False, "bo": True}
    # alone in the team, level-1 bo leaves the near key to nobody: it takes it (left, pickup, right,
    # unlock, down, down, pickup: 7 actions at ticks 1, 3, ..., 13, holding its gem from tick 14)
    assert out["goal_tick"]["bo"] == 14
    assert mechanism.team_sizes() == (1, 1)
    assert mechanism.describe()["members"] == ["bo"]
    with pytest.raises(ValueError, match="members names agents this world does not have: \\['zed'\\]"):
        Session(world, seats, seed=0, mechanisms=[FixedTeamMechanism(members=["zed"])])
    with pytest.raises(ValueError, match="at least one agent"):
        FixedTeamMechanism(members="bo")


def test_diagnosis_plays_every_team_and_ranks_eq5s_choice():
    from experiments.team_diagnosis import diagnose, summary

    world = rush_world()
    d = diagnose("rush", world, agents=["al=tom-planner:k=0", "bo=tom-planner:k=1"], size=1)
    assert (d.agents, d.size, d.teams) == (2, 1, 2)
    # each agent alone takes the near key and holds its gem after 7 actions: al (first in turn)
    # from tick 13, bo from tick 14, of t_max 80
    scores = {"al": 1 - 13 / 80, "bo": 1 - 14 / 80}
    assert d.mean_score == pytest.approx(sum(scores.values()) / 2)
    assert d.best_score == pytest.approx(max(scores.values()))
    assert d.chosen_score == pytest.approx(scores[d.chosen[0]])
    assert d.chosen_rank == (1 if d.chosen == ("al",) else 2)
    assert 0.0 <= d.mean_bas <= 1.0 and 0.0 <= d.chosen_bas <= 1.0
    s = summary([d, d])
    assert s["scenarios"] == 2 and s["score"]["difference"] == pytest.approx(d.chosen_score - d.mean_score)
    assert s["bas"]["difference"] == pytest.approx(d.chosen_bas - d.mean_bas)


def test_diagnosis_averages_seeds_for_agents_that_draw(capsys):
    from experiments.team_diagnosis import diagnose

    world = rush_world()
    agents = ["al=tom-planner:k=0,noise=0.5", "bo=tom-planner:k=1,noise=0.5"]
    one = [diagnose("rush", world, agents=agents, size=1, seed=s) for s in (0, 1)]
    both = diagnose("rush", world, agents=agents, size=1, seed=0, seeds=2)
    assert both.seeds == 2 and {r.seeds for r in one} == {1}
    for t in range(2):  # each team's score and BAS: the mean of its two episodes
        assert both.rows[t].score == pytest.approx((one[0].rows[t].score + one[1].rows[t].score) / 2)
        assert both.rows[t].bas == pytest.approx((one[0].rows[t].bas + one[1].rows[t].bas) / 2)
    assert both.mean_score == pytest.approx((one[0].mean_score + one[1].mean_score) / 2)
    import main as cli

    assert cli.main(["teams", "diagnose", "team-03-five", "--seeds", "0"]) == 2
    assert "--seeds must be at least 1, got 0" in capsys.readouterr().err


def test_diagnose_command_writes_its_table_and_csv(tmp_path, capsys):
    import main as cli

    out, teams, figure = tmp_path / "d.csv", tmp_path / "t.csv", tmp_path / "fig" / "w.png"
    assert cli.main(["teams", "diagnose", "team-03-five", "rush-02-five", "--quiet", "--csv", str(out),
                     "--teams-csv", str(teams), "--plot", str(figure)]) == 0
    text = capsys.readouterr().out
    assert "| team-03-five | 5 | 3 | 10 |" in text and "n = 2 scenarios" in text and f"figure: {figure}" in text
    rows = out.read_text().splitlines()
    assert rows[0] == "scenario,agents,size,teams,mean_score,chosen,chosen_score,chosen_rank,best_score,rho,mean_bas," \
                      "chosen_bas,seeds" and len(rows) == 3
    with teams.open() as handle:
        played = list(csv.DictReader(handle))
    assert len(played) == 10 + 10 and {r["scenario"] for r in played} == {"team-03-five", "rush-02-five"}
    per_scenario = {r.split(",")[0]: r.split(",") for r in rows[1:]}
    for name in ("team-03-five", "rush-02-five"):
        mine = [r for r in played if r["scenario"] == name]
        assert sum(r["chosen"] == "True" for r in mine) == 1  # Eq. 5's team, among the teams played
        chosen = next(r for r in mine if r["chosen"] == "True")
        assert set(chosen["members"].split()) == set(per_scenario[name][5].split())
        assert float(per_scenario[name][4]) == pytest.approx(sum(float(r["score"]) for r in mine) / len(mine))
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cli.main(["teams", "diagnose", "team-03-five", "--size", "9"]) == 2
    assert "team size 9 is not between 1 and the 5 agents" in capsys.readouterr().err
    assert cli.main(["teams", "diagnose", "al1v1-01"]) == 2
    assert "no k-level ToM team agents are known for tradecraft worlds; name the seats with --agents" \
        in capsys.readouterr().err


def test_diagnose_runs_over_the_household_with_its_own_agents(capsys):
    import main as cli

    # tom-helper seats by default; the shared task's score: the share of the budget left when done
    assert cli.main(["teams", "diagnose", "house-team-01-six", "--quiet"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| house-team-01-six"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:4] == ["6", "3", "20"] and 0.5 < float(cells[4]) < 1.0  # every team of 3 finishes the table
