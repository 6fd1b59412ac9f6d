"""overcooked_ai's rules in the kitchen (``rules: overcooked``), checked differentially against
overcooked_ai 1.1.0 itself.

tests/fixtures/overcooked/ holds every layout overcooked_ai 1.1.0 ships (layouts/, MIT licensed,
copied unchanged) and, per layout, random joint actions with the states and rewards
overcooked_ai produced for them (scripts/overcooked_traces.py wrote them in a side environment
with overcooked_ai 1.1.0 and numpy < 2). The fast test replays those actions through the
kitchen's rules and compares every state and both rewards of every player at every step; the slow
one regenerates the recordings with overcooked_ai itself and checks that they are the ones here.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from sim.inputs import parse_json, read_bytes
from sim.kitchen.overcooked import ACTIONS, Layout, OvercookedState, OvercookedWorld, Rules, read_layout_file
from sim.registry import ScenarioError, build_world, load_spec

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "overcooked"
LAYOUTS = sorted((FIXTURES / "layouts").glob("*.layout"))
SIDE_VENV = Path(os.environ.get("TOM_ARENA_OVERCOOKED_VENV",
                                Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tom-arena"
                                / "overcooked-venv"))
STEPS = 1000


def _trace(name: str) -> dict:
    path = FIXTURES / f"{name}.json.gz"
    return parse_json(gzip.decompress(read_bytes(path)), str(path))


def _obj(data: list | None) -> tuple | None:
    return None if data is None else (data[0], tuple(data[1]), data[2])


def _state(data: dict) -> tuple:
    """(t, players, objects) of a recorded state, in the kitchen's shape."""
    players = tuple((p[0], p[1], p[2], p[3], _obj(p[4])) for p in data["players"])
    objects = tuple(sorted(((o[0], o[1]), _obj(o[2:])) for o in data["objects"]))
    return data["t"], players, objects


def _mine(state: OvercookedState) -> tuple:
    return state.t, state.players, state.objects


def _rewards(values: list) -> list[float]:
    return [math.inf if v == "inf" else -math.inf if v == "-inf" else v for v in values]


def test_every_layout_of_overcooked_ai_is_here_and_loads():
    assert len(LAYOUTS) == 45  # overcooked_ai 1.1.0's overcooked_ai_py/data/layouts
    for path in LAYOUTS:
        family, spec = load_spec(path)
        assert family == "kitchen" and spec["rules"] == "overcooked"
        world = build_world(family, spec)
        assert isinstance(world, OvercookedWorld)
        state = world.reset(0)
        assert world.render_text(state).count("\n") == world.height


@pytest.mark.parametrize("path", LAYOUTS, ids=lambda p: p.stem)
def test_replays_overcooked_ai_step_by_step(path: Path):
    rules = Rules(Layout(read_layout_file(path)["layout"], str(path)))
    trace = _trace(path.stem)
    assert trace["overcooked_ai"] == "1.1.0" and trace["episodes"][0]["kind"] == "uniform"
    assert len(trace["episodes"][0]["actions"]) == STEPS
    for e, episode in enumerate(trace["episodes"]):
        if episode["kind"] == "uniform":
            state = rules.initial_state()
            assert _mine(state) == _state(episode["start"]), f"{path.stem}: start state differs"
        else:
            t, players, objects = _state(episode["start"])
            zero = (0,) * rules.n
            state = OvercookedState(t, players, objects, zero, zero, 0)
        for k, (joint, want) in enumerate(zip(episode["actions"], episode["states"])):
            state, sparse, shaped, _ = rules.step(state, [ACTIONS[int(a)] for a in joint])
            where = f"{path.stem}, episode {e} ({episode['kind']}), step {k + 1}, actions {joint}"
            assert _mine(state) == _state(want), where
            assert sparse == _rewards(episode["sparse"][k]), where
            assert shaped == _rewards(episode["shaped"][k]), where


@pytest.mark.slow
def test_the_recordings_exercise_cooking_serving_and_rewards():
    """The replays are worth something only if the rules' parts occur in them."""
    soups_put_away = rewarded = shaped = cooked = 0  # a soup leaves a hand: served or put on a counter
    for path in LAYOUTS:
        for episode in _trace(path.stem)["episodes"]:
            rewarded += sum(1 for r in episode["sparse"] for v in r if v != 0)
            shaped += sum(1 for r in episode["shaped"] for v in r if v != 0)
            cooked += sum(1 for s in episode["states"] for o in s["objects"] if o[2] == "soup" and o[4] == 1)
            for before, after in zip([episode["start"], *episode["states"]], episode["states"]):
                soups_put_away += sum(1 for p, q in zip(before["players"], after["players"])
                              if p[4] is not None and p[4][0] == "soup" and q[4] is None)
    assert soups_put_away >= 100 and rewarded >= 5 and shaped >= 400 and cooked >= 500


def test_a_world_under_overcooked_rules_plays_and_reports(tmp_path: Path):
    family, spec = load_spec(FIXTURES / "layouts" / "cramped_room.layout")
    world = build_world(family, spec)
    state = world.reset(0)
    assert world.agents == ("alice", "bob") and world.t_max == 400
    result = world.step(state, {"alice": "left", "bob": "stay"})
    assert result.state.players[0][:4] == (1, 2, -1, 0)  # blocked by the counter, but turned
    result = world.step(result.state, {"alice": "up", "bob": "interact"})  # bob faces the counter above him
    assert result.state.players[0][:2] == (1, 1)
    assert world.outcome(result.state)["soups_served"] == 0
    with pytest.raises(Exception, match="not an action"):
        world.step(result.state, {"alice": "jump", "bob": "stay"})


@pytest.mark.parametrize("text, expected", [
    ("{'grid': 'XXPXX\\nO  2O\\nX1  X\\nXDXSX', 'colour': 1}", "field 'colour': not a field"),
    ("{'grid': 'XXPXX\\nO  2O\\nX1  X\\nXDXSX', 'start_order_list': None}", "0.x's field"),
    ("{'grid': 'XXPXX\\nO  2O\\nX1 QX\\nXDXSX'}", "row 3, column 4 (1-based): unknown character 'Q'"),
    ("{'grid': 'XX XX\\nO  2O\\nX1  P\\nXDXSX'}", "row 1, column 3 (1-based): the border must not be floor"),
    ("{'grid': 'XXPXX\\nO  3O\\nX1  X\\nXDXSX'}", "players numbered 1, 2"),
    ("{'grid': 'XXXXX\\nO  2O\\nX1  X\\nXDXSX'}", "no pot 'P'"),
    ("{'grid': 'XXPXX\\nO  2O\\nX1  X\\nXDXSX', 'onion_value': 3}", "needs both 'tomato_value' and 'onion_value'"),
    ("{'grid': 'XXPXX\\nO  2O\\nX1  X\\nXDXSX', 'cook_time': 3, 'recipe_times': [1]}", "not both"),
    ("{'grid': 'XXPXX\\nO  2O\\nX1  X\\nXDXSX', 'start_all_orders': [{'ingredients': ['fish']}]}",
     "start_all_orders', entry 1: expected 1 to 3 of 'onion' and 'tomato'"),
    ("{'grid': 'XXPXX\\nO  2O\\nX1  X\\nXDXSX', 'old_dynamics': True}",
     "field 'old_dynamics': True; overcooked_ai 1.1.0 ignores this field"),
    ("{'grid': __import__('os').getcwd()}", "expected a literal"),
    ("{'grid': 'XX'", "not a Python literal dict"),
    ("['grid']", "expected a dict"),
    ("\n\n{'grid': 'X', 'grid': 'Y'}", "line 3, column 15 (1-based): field 'grid' appears twice"),
    ("{'grid': " + "[" * 300 + "]" * 300 + "}", "too many nested parentheses"),
    ("{'cook_time': " + "9" * 5000 + "}", "Exceeds the limit"),
])
def test_bad_layouts_get_one_clear_line(tmp_path: Path, text: str, expected: str):
    path = tmp_path / "bad.layout"
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        load_spec(path)
    message = str(info.value)
    assert str(path) in message and expected in message and "\n" not in message


@settings(max_examples=200, deadline=None)
@given(cut=st.integers(0, 2000), insert=st.text(alphabet="{}[]()'\",:0123456789 -XOPDST\nab_", max_size=12))
def test_a_mutated_layout_loads_or_gets_one_clear_error(tmp_path_factory: pytest.TempPathFactory, cut: int,
                                                         insert: str):
    text = (FIXTURES / "layouts" / "tutorial_1.layout").read_text()  # the one with a start_state
    cut %= len(text)
    path = tmp_path_factory.mktemp("mutated") / "m.layout"
    path.write_text(text[:cut] + insert + text[cut + len(insert) // 2:])
    try:
        family, spec = load_spec(path)
    except ScenarioError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc)
        return
    world = build_world(family, spec)
    state = world.reset(0)
    for _ in range(5):
        state = world.step(state, {a: "interact" for a in world.agents}).state


def test_old_dynamics_false_is_read_as_overcooked_ai_1_1_0_reads_any_layout(tmp_path: Path):
    # 1.1.0 passes the field on unused; false is also what the repository's later code plays as 1.1.0 does
    text = (FIXTURES / "layouts" / "cramped_room.layout").read_text().rstrip().rstrip("}") + ', "old_dynamics": False}'
    path = tmp_path / "cramped_room.layout"
    path.write_text(text)
    assert load_spec(path)[1]["layout"]["old_dynamics"] is False


def test_a_layout_is_recognised_by_its_content(tmp_path: Path):
    """A .layout file under any name is recognised by its content."""
    path = tmp_path / "kitchen.txt"
    path.write_bytes((FIXTURES / "layouts" / "cramped_room.layout").read_bytes())
    from sim.kitchen.level import load_level_text
    spec = load_level_text(path)
    assert spec["rules"] == "overcooked"


def test_main_runs_and_records_a_layout_and_refuses_a_bad_one(tmp_path: Path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    layout = FIXTURES / "layouts" / "cramped_room.layout"
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "run", str(layout), "--episodes", "1",
                          "--out", str(tmp_path / "runs")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (tmp_path / "runs" / "cramped_room-seed0.jsonl").is_file()
    bad = tmp_path / "bad.layout"
    bad.write_text("{'grid': 'XXPXX\\nO  2O\\nX1 QX\\nXDXSX'}")
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "run", str(bad)], capture_output=True, text=True,
                         env=env, cwd=ROOT)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and run.stderr.startswith("error: ")
    assert "unknown character 'Q'" in run.stderr


@pytest.mark.parametrize("option", [["--agents", "kitchen-heuristic"], ["--agents", "tom-cook"],
                                    ["--facilitator", "protom"]])
def test_our_kitchens_cooks_and_protom_refuse_overcooked_rules_in_one_line(tmp_path: Path, option: list[str]):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    layout = FIXTURES / "layouts" / "cramped_room.layout"
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "run", str(layout), *option, "--no-record",
                          "--out", str(tmp_path / "runs")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert run.returncode == 2 and run.stderr.startswith("error: ") and "Traceback" not in run.stderr, run.stderr
    assert "'overcooked' rules" in run.stderr


@pytest.mark.slow
def test_the_recordings_are_what_overcooked_ai_produces(tmp_path: Path):
    """Regenerate the recordings with overcooked_ai 1.1.0 in its side environment (scripts/setup.sh
    makes it) and check that they are byte for byte the ones the fast test replays."""
    python = SIDE_VENV / "bin" / "python"
    if not (SIDE_VENV / ".tom-arena-overcooked").exists():
        created = subprocess.run(["bash", str(ROOT / "scripts" / "overcooked_env.sh")], capture_output=True, text=True)
        if created.returncode != 0:
            if os.environ.get("CI"):
                pytest.fail(f"the overcooked_ai side environment could not be made: {created.stderr[-500:]}")
            pytest.skip(f"overcooked_ai 1.1.0 could not be installed into {SIDE_VENV} (no package index?): "
                        f"{created.stderr.strip().splitlines()[-1:] or 'no output'}")
    out = tmp_path / "traces"
    run = subprocess.run([str(python), str(ROOT / "scripts" / "overcooked_traces.py"), str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    made = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    kept = sorted(p.relative_to(FIXTURES) for p in FIXTURES.rglob("*")
                  if p.is_file() and p.name not in ("README.md", "LICENSE"))
    assert made == kept
    for rel in made:
        assert (out / rel).read_bytes() == (FIXTURES / rel).read_bytes(), rel
    assert json.loads(gzip.decompress((out / "cramped_room.json.gz").read_bytes()))["layout"] == "cramped_room"


def test_the_app_draws_a_layout_under_its_rules_and_maps_keys():
    import pygame

    from ui.render import renderer_for
    from ui.render.overcooked import OvercookedRenderer

    family, spec = load_spec(FIXTURES / "layouts" / "tutorial_1.layout")  # a soup in a pot at the start
    world = build_world(family, spec)
    renderer = renderer_for(world)
    assert isinstance(renderer, OvercookedRenderer)
    surface = pygame.Surface((350, 250))
    renderer.layout(350, 250)
    state = world.reset(0)
    renderer.draw(surface, state)
    assert renderer.drawn_pots[(2, 2)] == (("onion", "onion"), "2/3")  # the soup in the pot, not cooking yet
    assert renderer.drawn_pots[(2, 0)] == ((), "empty")
    assert [recipe for recipe, _value, _bonus in renderer.drawn_orders] == [("onion", "tomato"), ("onion", "tomato", "tomato")]
    alice = state.players[0]
    assert surface.get_at(renderer.cell_rect(alice[1], alice[0]).move(0, -renderer.tile // 4).center)[:3] != (236, 232, 222)
    legal = world.legal_actions(state, "alice")
    assert renderer.action_for_key("Return", state, "alice", legal) == "interact"
    assert renderer.action_for_key("space", state, "alice", legal) == "stay"
    assert "score 0" in renderer.status_text(state)
    from ui.session import catalog
    assert catalog.default_agent(world) == "overcooked-random" and catalog.default_agent("kitchen") != "overcooked-random"
