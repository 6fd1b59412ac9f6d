"""One conformance suite over every world plug-in and every agent and mechanism kind.

Everything here is found by discovery: the worlds by ``sim.plugins.plugins()``, their scenarios
in ``scenarios/<world>/``, the kinds by ``agents.registry``. A new world gets every check by
registering its plug-in and shipping a scenario; a new kind by being registered. No world or
kind is named here.

For each world: its plug-in's references resolve and its default specs build; every shipped
scenario loads; the renderer draws the first state of every shipped scenario offscreen, and the
picture is not blank; PettingZoo's AEC ``api_test`` (and the Parallel one for worlds whose agents
move at once) passes through ``sim/pettingzoo.py`` on a sample of scenarios, with masked random
play following the rules; the same seed twice writes a byte-identical recording; along random
episodes every legal action is accepted by ``why_illegal`` and survives a JSON round trip through
``encode_action``/``decode_action``, the fallback action is legal, and illegal candidates are
refused with a reason. For each agent kind: built for every world it declares, it plays a few
steps of a shipped scenario without an error. For each mechanism kind: it resets and ticks in
every world it declares. Kinds that talk to an LLM are given the loopback server of
``tests/llm_loopback.py``; seats that wait for a person are fed legal actions.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pygame
import pygame.surfarray
import pytest
from pettingzoo.test import api_test, parallel_api_test

from agents.registry import AgentSpecError, agent_kinds, make_agent, make_mechanism, make_mechanisms, mechanism_kinds
from sim.events import ErrorEvent, LLMCallEvent, StepEvent
from sim.pettingzoo import WorldParallelEnv, action_key, aec_env, parallel_env
from sim.plugins import WorldPlugin, plugin_problems, plugins, resolve
from sim.recording import RecordingWriter, load_recording
from sim.registry import SCENARIO_DIR, build_world, load_scenario, load_spec, scenario_paths, scenario_stem
from sim.seats import Agent, Mechanism
from sim.session import Session, TickStatus
from sim.world import IllegalAction, World
from tests.llm_loopback import LoopbackLLM
from ui.render import WorldRenderer, renderer_for

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's style advice (agent names, ...)

FAMILIES = sorted(plugins())
#: world steps of the short episodes (recordings, rules walks, kinds)
EPISODE_STEPS = 25
KIND_STEPS = 4
#: a drawn first frame holds more distinct colours than this, and no colour covers more of it than MAX_SHARE
MIN_COLOURS = 64
MAX_SHARE = 0.99
DRAW_SIZE = (800, 500)
#: legal actions checked per agent and state (all of them when fewer), illegal candidates per state
LEGAL_CHECKED = 40
ILLEGAL_CHECKED = 20
#: a ``"module:attribute"`` reference, as plug-ins name the parts of the layers above sim/
REFERENCE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
#: plug-in fields that hold agent or mechanism specs rather than references
AGENT_SPEC_FIELDS = ("default_agent", "app_agent")
MECHANISM_SPEC_FIELDS = ("default_mechanisms",)


# ------------------------------------------------------------------------------ helpers

def shipped(family: str) -> list[Path]:
    """Every shipped scenario file of ``family`` (its folder of ``scenarios/``), in name order."""
    return [p for p in scenario_paths() if p.relative_to(SCENARIO_DIR).parts[0] == family]


def sample(family: str) -> list[Path]:
    """The scenarios the expensive checks play: the first of each scenario set (sub-folder) and
    file format of the family, and the one in the middle of the list."""
    paths = shipped(family)
    groups: dict[tuple[str, str], Path] = {}
    for path in paths:
        groups.setdefault((str(path.parent), path.name[len(scenario_stem(path)):]), path)
    chosen = sorted(set(groups.values()) | ({paths[len(paths) // 2]} if paths else set()))
    return chosen


def sample_cases() -> list[Any]:
    return [pytest.param(family, path, id=f"{family}/{path.name}") for family in FAMILIES for path in sample(family)]


def world_of(path: Path) -> World:
    family, spec = load_spec(path)
    return build_world(family, spec)


def first_scenario(family: str) -> Path:
    paths = shipped(family)
    assert paths, f"world {family!r} ships no scenario in scenarios/{family}/: every world needs one to be played"
    return paths[0]


def init_pygame() -> None:
    if not pygame.display.get_init():
        pygame.display.init()
    if not pygame.font.get_init():
        pygame.font.init()


def loopback_or_plain(make: Any, spec: str, family: str, server: LoopbackLLM) -> tuple[Any, bool]:
    """(``make(spec, family)``, whether it talks to a model): a kind that takes the LLM settings
    (``base_url``, ``max_retries``) is pointed at the loopback server, the others are made as they are."""
    try:
        return make(f"{spec}:base_url={server.base_url},max_retries=0,timeout=5", family), True
    except AgentSpecError as exc:
        if "base_url" not in str(exc):
            raise
    return make(spec, family), False


def play(session: Session, steps: int) -> None:
    """Advance ``steps`` world steps (or to the end); seats waiting for a person are fed the
    first legal action of the state they see, as a person's key press would give them."""
    world = session.world
    advanced = 0
    for _ in range(50 * steps):
        if session.finished or advanced >= steps:
            return
        status = session.advance()
        if status is TickStatus.ADVANCED:
            advanced += 1
        elif status is TickStatus.WAITING:
            for agent in session.waiting_for():
                seat = session.seats[agent]
                if hasattr(seat, "submit"):
                    legal = world.legal_actions(session.state, agent)
                    seat.submit(legal[0] if legal else world.fallback_action(session.state, agent))
                else:
                    assert seat.wait(timeout=30.0), f"seat {agent} ({seat.kind}) gave no action"
    pytest.fail(f"{advanced} of {steps} steps after {50 * steps} ticks")


#: what a seat on the loopback server may report: the server answers with the first option of
#: every choice, so a proposal can break the rules; the kind then falls back, as it must
MODEL_MISTAKES = ("llm_invalid_answer", "llm_fallback")


def errors(session: Session, tolerated: tuple[str, ...] = ()) -> list[str]:
    return [f"{e.source}: {e.kind}: {e.message.splitlines()[0]}" for e in session.events
            if isinstance(e, ErrorEvent) and e.kind not in tolerated]


def random_walk(world: World, seed: int, steps: int) -> Iterator[Any]:
    """The states of an episode of random legal joint actions (``steps`` steps at most)."""
    rng = np.random.default_rng(seed)
    state = world.reset(seed)
    yield state
    for _ in range(steps):
        if world.done(state):
            return
        active = world.active_agents(state)
        joint = {}
        for agent in active:
            legal = world.legal_actions(state, agent)
            joint[agent] = legal[int(rng.integers(len(legal)))] if legal else world.fallback_action(state, agent)
        try:
            state = world.step(state, joint).state
        except IllegalAction:  # legal one by one, not together (two cooks into one cell): the fallbacks
            state = world.step(state, {a: world.fallback_action(state, a) for a in active}).state
        yield state


def distinct_colours(surface: pygame.Surface) -> tuple[int, float]:
    """(distinct colours, share of the most frequent one) of a drawn surface."""
    pixels = pygame.surfarray.array3d(surface).reshape(-1, 3).astype(np.int64)
    packed = pixels[:, 0] << 16 | pixels[:, 1] << 8 | pixels[:, 2]
    _, counts = np.unique(packed, return_counts=True)
    return len(counts), float(counts.max()) / len(packed)


# ---------------------------------------------------------------------- the plug-ins

def test_every_world_plugin_is_found_and_loads():
    assert FAMILIES, "no world plug-in was found"
    assert plugin_problems() == []
    for name, plugin in plugins().items():
        assert isinstance(plugin, WorldPlugin) and plugin.name == name and plugin.title


@pytest.mark.parametrize("family", FAMILIES)
def test_every_reference_and_default_spec_of_the_plugin_resolves(family):
    """Every ``"module:attribute"`` the plug-in declares imports (renderers are WorldRenderers,
    the rest callables), and its default agent and mechanism specs parse and build."""
    plugin = plugins()[family]
    references = 0
    for field in dataclasses.fields(plugin):
        value = getattr(plugin, field.name)
        if field.name in AGENT_SPEC_FIELDS:
            if value is not None:
                agent = make_agent(value, family)
                assert isinstance(agent, Agent), (field.name, value)
            continue
        if field.name in MECHANISM_SPEC_FIELDS:
            built = make_mechanisms(value, family)
            assert all(isinstance(m, Mechanism) for m in built), (field.name, value)
            continue
        if isinstance(value, Mapping):  # the methods the world declares: {"protom": "module:attr", ...}
            for method, text in value.items():
                if isinstance(text, str) and REFERENCE.match(text):
                    assert resolve(text) is not None, f"{field.name}[{method!r}] = {text!r} names nothing"
                    references += 1
                else:  # a Python object (e.g. a reader function), not a reference
                    assert callable(text), f"{field.name}[{method!r}] = {text!r} is neither a reference nor callable"
            continue
        for text in (value if isinstance(value, tuple) else (value,)):
            if isinstance(text, str) and REFERENCE.match(text):
                target = resolve(text)
                assert callable(target), f"{field.name} = {text!r} names {target!r}, which cannot be called"
                references += 1
    assert plugin.renderer is not None, f"world {family!r} declares no renderer: the app cannot show it"
    assert issubclass(resolve(plugin.renderer), WorldRenderer)
    assert references >= 1
    if plugin.default_category is not None:
        assert plugin.default_category in [name for name, _ in plugin.categories]


@pytest.mark.slow
def test_every_shipped_scenario_lives_in_its_worlds_folder_and_loads_by_name():
    """Every scenario file belongs to a discovered world (its folder), names are unique, and
    what ``list`` shows is what ``run`` accepts."""
    names = []
    for path in scenario_paths():
        family, spec = load_spec(path)
        folder = path.relative_to(SCENARIO_DIR).parts[0]
        assert family == folder, f"{path} is a {family!r} scenario in the folder of {folder!r}"
        names.append(spec["name"])
    assert len(names) == len(set(names)), "scenario names must be unique"
    for name in names:
        assert load_scenario(name)[1] == name


@pytest.mark.parametrize("family", FAMILIES)
def test_every_shipped_scenario_of_the_world_loads(family):
    paths = shipped(family)
    assert paths, f"world {family!r} ships no scenario"
    for path in paths:
        world = world_of(path)
        assert world.family == family, path
        state = world.reset(0)
        assert world.agents and not world.done(state), path
        assert world.active_agents(state), f"{path}: nobody moves in the first state"


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_the_renderer_draws_the_first_state_of_every_shipped_scenario(family):
    init_pygame()
    problems = []
    drawn = 0
    for path in shipped(family):
        world = world_of(path)
        surface = pygame.Surface(DRAW_SIZE)
        try:
            renderer = renderer_for(world)
            renderer.layout(*DRAW_SIZE)
            renderer.draw(surface, world.reset(0))
        except Exception as exc:  # noqa: BLE001 - every scenario is tried, the failures listed together
            problems.append(f"{path.name}: {type(exc).__name__}: {exc}")
            continue
        colours, share = distinct_colours(surface)
        if colours <= MIN_COLOURS or share > MAX_SHARE:
            problems.append(f"{path.name}: blank picture ({colours} colours, one covers {share:.0%})")
            continue
        drawn += 1
    assert not problems, f"{len(problems)} of {len(shipped(family))} scenarios not drawn:\n" + "\n".join(problems)
    assert drawn == len(shipped(family)) > 0


# ------------------------------------------------------------------------- PettingZoo

@pytest.mark.slow
@pytest.mark.parametrize("family, path", sample_cases())
def test_pettingzoo_api_tests_pass_through_the_adapter(family, path):
    api_test(aec_env(world_of(path)), num_cycles=20)
    if world_of(path).simultaneous:
        parallel_api_test(parallel_env(world_of(path)), num_cycles=20)
    else:
        with pytest.raises(ValueError, match="takes turns"):
            WorldParallelEnv(world_of(path))
    env = aec_env(world_of(path))
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    for agent in env.agent_iter(max_iter=200):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0, f"{agent} must move but no action of the list is legal"
        for i in legal:
            assert env.world.is_legal(env.world_state, agent, env.actions[i]), env.actions[i]
        env.step(int(rng.choice(legal)))
        steps += 1
    assert steps > 0


# ------------------------------------------------------------------- determinism

@pytest.mark.parametrize("family", FAMILIES)
def test_the_same_seed_twice_writes_the_same_recording(family, tmp_path):
    """The world's default seats and default mechanisms, one shipped scenario, seed 7: two
    recordings, byte for byte the same."""
    plugin = plugins()[family]
    world, name = load_scenario(str(first_scenario(family)))
    files = []
    for run in ("a", "b"):
        session = Session(world, {a: make_agent(plugin.default_agent, family) for a in world.agents}, seed=7,
                          scenario=name, mechanisms=make_mechanisms(plugin.default_mechanisms, family),
                          max_ticks=EPISODE_STEPS)
        path = tmp_path / f"{run}.jsonl"
        RecordingWriter.attach(session, path)
        session.run()
        assert not errors(session), errors(session)
        files.append(path)
    assert files[0].read_bytes() == files[1].read_bytes()
    recording = load_recording(files[0])
    assert recording.complete and any(isinstance(e, StepEvent) for e in recording.events)


# ---------------------------------------------------------------------------- rules

@pytest.mark.parametrize("family, path", sample_cases())
def test_legal_actions_why_illegal_encoding_and_fallback_agree_along_an_episode(family, path):
    world = world_of(path)
    rng = np.random.default_rng(0)
    declared = list(world.pettingzoo_actions()) if hasattr(world, "pettingzoo_actions") else []
    seen: dict[str, Any] = {action_key(world, a): a for a in declared}
    for state in random_walk(world, seed=3, steps=EPISODE_STEPS):
        if world.done(state):
            break
        active = world.active_agents(state)
        legal_of = {agent: world.legal_actions(state, agent) for agent in world.agents}
        for agent in world.agents:
            for action in legal_of[agent]:
                seen.setdefault(action_key(world, action), action)
        for agent in active:
            legal = legal_of[agent]
            fallback = world.fallback_action(state, agent)
            assert world.why_illegal(state, agent, fallback) is None, (agent, fallback)
            checked = legal if len(legal) <= LEGAL_CHECKED else [legal[i] for i in
                                                                   rng.choice(len(legal), LEGAL_CHECKED, replace=False)]
            for action in checked:
                assert world.why_illegal(state, agent, action) is None, (agent, action)
                data = world.encode_action(action)
                decoded = world.decode_action(json.loads(json.dumps(data)))
                assert decoded == action and world.encode_action(decoded) == data, (agent, action, data)
            if world.legal_actions_exhaustive:
                keys = {action_key(world, a) for a in legal}
                others = [a for k, a in seen.items() if k not in keys]
                for i in rng.permutation(len(others))[:ILLEGAL_CHECKED]:
                    reason = world.why_illegal(state, agent, others[i])
                    assert isinstance(reason, str) and reason, (agent, others[i])
        for agent in (a for a in world.agents if a not in active):
            for i in rng.permutation(len(seen))[:3]:
                action = list(seen.values())[i]
                assert world.why_illegal(state, agent, action) is not None, f"{agent} may act out of turn: {action}"


# ---------------------------------------------------------------------------- kinds

def worlds_of(kind: Any) -> tuple[str, ...]:
    """The worlds a kind plays: those that declare the methods it needs, those it lists, or all."""
    return kind.worlds() if kind.needs else (kind.families or FAMILIES)


def agent_cases() -> list[Any]:
    return [pytest.param(name, family, id=f"{name}@{family}")
            for name, kind in sorted(agent_kinds().items()) for family in worlds_of(kind)]


def mechanism_cases() -> list[Any]:
    return [pytest.param(name, family, id=f"{name}@{family}")
            for name, kind in sorted(mechanism_kinds().items()) for family in worlds_of(kind)]


@pytest.fixture(scope="module")
def llm_server() -> Iterator[LoopbackLLM]:
    with LoopbackLLM("ok") as server:
        yield server


def test_kinds_are_found():
    assert agent_kinds() and mechanism_kinds()
    for kind in [*agent_kinds().values(), *mechanism_kinds().values()]:
        unknown = [f for f in kind.families if f not in FAMILIES]
        assert not unknown, f"kind {kind.name!r} declares worlds without a plug-in: {unknown}"


@pytest.mark.parametrize("kind, family", agent_cases())
def test_every_agent_kind_plays_a_few_steps_of_each_world_it_declares(kind, family, llm_server):
    world, name = load_scenario(str(first_scenario(family)))
    made = {a: loopback_or_plain(make_agent, kind, family, llm_server) for a in world.agents}
    session = Session(world, {a: agent for a, (agent, _) in made.items()}, seed=1, scenario=name)
    talks = any(uses for _, uses in made.values())
    try:
        play(session, KIND_STEPS)
    finally:
        session.stop()
    assert session.tick >= min(KIND_STEPS, 1)
    tolerated = MODEL_MISTAKES if talks else ()
    assert not errors(session, tolerated), errors(session, tolerated)
    if talks:
        assert any(isinstance(e, LLMCallEvent) for e in session.events), "the kind never asked its model"


@pytest.mark.parametrize("kind, family", mechanism_cases())
def test_every_mechanism_kind_resets_and_ticks_in_each_world_it_declares(kind, family, llm_server):
    plugin = plugins()[family]
    world, name = load_scenario(str(first_scenario(family)))
    mechanism, talks = loopback_or_plain(make_mechanism, kind, family, llm_server)
    assert isinstance(mechanism, Mechanism)
    session = Session(world, {a: make_agent(plugin.default_agent, family) for a in world.agents}, seed=1,
                      scenario=name, mechanisms=[mechanism])
    try:
        play(session, KIND_STEPS)
    finally:
        session.stop()
    assert session.tick >= min(KIND_STEPS, 1)
    tolerated = MODEL_MISTAKES if talks else ()
    assert not errors(session, tolerated), errors(session, tolerated)  # a facilitator asks only when it could help
