"""What the app offers to choose from: scenarios by world and category, agent kinds and
mechanism kinds per world; and how a choice becomes seats and mechanisms. Every default comes
from the world's plug-in (``sim/plugins.py``); nothing here names a world."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.registry import agent_kinds, make_agent, make_mechanism, mechanism_kinds
from sim import scenario_index
from sim.events import Event
from sim.plugins import plugins
from sim.questions import Question
from sim.registry import (
    SCENARIO_DIR,
    ScenarioError,
    ScenarioInfo,
    find_scenario,
    load_questions,
    peek_scenario,
    read_scenario,
    scenario_paths,
    scenario_stem,
)
from sim.seats import Agent, Mechanism
from sim.world import World

NONE = "none"
#: the roles of mechanisms the app offers a choice for, with their labels
ROLES = (("facilitator", "Facilitator"), ("team", "Teams"))

def has_view(family: str) -> bool:
    found = plugins().get(family)
    return found is not None and found.renderer is not None


def scan_scenarios() -> tuple[list[ScenarioInfo], list[str]]:
    """Every scenario file the app can show (its world has a view), and the problems of the
    files it could not read. One bad file never hides the others. Names, titles, seats and
    descriptions come from the cached index (``sim/scenario_index.py``): a file is read and its
    world built again only when it (or the code and data that read it) changed."""
    infos: list[ScenarioInfo] = []
    problems: list[str] = []
    for _path, entry in scenario_index.scan()[0]:
        if isinstance(entry, str):
            problems.append(entry)
        elif has_view(entry.family):
            infos.append(entry)
    return infos, problems


def scenarios() -> list[ScenarioInfo]:
    return scan_scenarios()[0]


def scenario_questions(scenario: str | None) -> tuple[Question, ...]:
    """A scenario's teaching questions (``sim/questions.py``), read from its file as it is now;
    none for a scenario this build cannot find or read."""
    if not scenario:
        return ()
    try:
        return load_questions(scenario)
    except (ScenarioError, OSError):
        return ()


def category_title(family: str, category: str | None) -> str:
    titles = dict(plugins()[family].categories) if family in plugins() else {}
    return titles.get(category, category or "other")


def scenario_category(name: str) -> str | None:
    """The category of the shipped scenario called ``name`` (None: none, or not shipped), read
    from its file (not from the catalogue, which may still be being built)."""
    try:
        path = find_scenario(name)
        if not path.resolve().is_relative_to(SCENARIO_DIR.resolve()) or scenario_stem(path) != name:
            return None
        return _category(path)
    except (ScenarioError, OSError, ValueError):
        return None


def _category(path: Any) -> str | None:
    """A scenario file's category as the catalogue has it: the file's own field, else what its
    world's checks give it (a world may give its files a default category)."""
    data = peek_scenario(path)
    category = data["category"] if "category" in data else read_scenario(path)[1].get("category")
    return category if isinstance(category, str) else None


def default_scenario(infos: list[ScenarioInfo], preferred: str = "") -> ScenarioInfo | None:
    """The preferred one, else the first of a world's default category (the first world that
    has one), else the first."""
    if not infos:
        return None
    for info in infos:
        if preferred and preferred in (info.name, f"{info.family}/{info.name}"):
            return info
    known = plugins()
    return next((i for i in infos if i.family in known and known[i.family].default_category is not None
                 and i.category == known[i.family].default_category), infos[0])


def first_scenario(preferred: str = "") -> str:
    """The name of the scenario ``default_scenario`` chooses, found without the catalogue, so
    that the window's first frame shows it while the catalogue (its index) is still being read:
    the preferred one when a file has that name, else the first file, in the catalogue's order,
    of a world's default category (a look at each file's ``category`` until one matches: tens
    of small files, not the index). Empty when there is none (the caller then asks the catalogue)."""
    if preferred:
        try:
            find_scenario(preferred)
            return preferred
        except ScenarioError:
            pass
    known = plugins()
    for path in scenario_paths():
        plugin = known.get(path.relative_to(SCENARIO_DIR).parts[0])
        if plugin is None or plugin.default_category is None or plugin.renderer is None:
            continue
        try:
            if _category(path) == plugin.default_category:
                return scenario_stem(path)
        except (ScenarioError, OSError, ValueError):
            continue
    return ""


def agent_choices(family: str) -> list[tuple[str, str]]:
    """(kind, summary) of the agents that can take a seat in ``family``."""
    return [(k.name, k.summary) for k in agent_kinds(listed=True).values() if k.plays(family)]


def default_agent(family: str | Any) -> str:
    """The seat the app fills for ``family`` (or a world of it) when nobody chose (it plays by
    itself); a world may name its own (``default_agent``: a kitchen under overcooked_ai's rules)."""
    if not isinstance(family, str):
        own = getattr(family, "default_agent", None)
        if own:
            return str(own)
        family = family.family
    plugin = plugins().get(family)
    if plugin is None:
        return "human"
    return plugin.app_agent or plugin.default_agent


def mechanism_choices(role: str, family: str | None = None) -> list[tuple[str, str]]:
    """(kind, summary) of the mechanisms of ``role`` that work in ``family`` (any world when None)."""
    return [(k.name, k.summary) for k in mechanism_kinds(role, listed=True).values() if k.plays(family)]


def default_mechanism(role: str, family: str | None, category: str | None = None) -> str:
    """The world's default mechanism of ``role`` for a scenario of ``category`` when it is
    available, else none. A world's default mechanisms are for the scenarios of its own
    categories (the study they come from); a scenario outside them (a team task, task rounds, an
    experiment's) starts with none, as ``python main.py run`` does."""
    plugin = plugins().get(family) if family else None
    if plugin is not None and category not in dict(plugin.categories):
        return NONE
    available = {k for k, _ in mechanism_choices(role, family)}
    for spec in (plugin.default_mechanisms if plugin else ()):
        if spec.split(":", 1)[0] in available:
            return spec
    return NONE


def mechanism_works(spec: str, family: str) -> bool:
    """False when ``spec`` names a mechanism kind that does not work in ``family``."""
    kind = (spec or NONE).split(":", 1)[0].strip()
    if kind == NONE:
        return True
    kinds = mechanism_kinds()
    return kind not in kinds or kinds[kind].plays(family)


def make_mechanisms(specs: Sequence[str], world: World) -> list[Mechanism]:
    """Mechanisms for ``specs`` (``none`` and empty entries left out); each gets a distinct name."""
    from agents.registry import make_mechanisms as make

    return make([s for s in specs if s and s.strip() != NONE], world.family)


@dataclass(frozen=True)
class SessionPlan:
    """Everything needed to start a live session (a new one, or a take-over)."""

    world: World
    scenario: str
    seats: Mapping[str, str]            # agent -> agent spec ("planner", "human", ...)
    mechanisms: tuple[str, ...] = ()    # mechanism specs ("protom", "teams:theta=0.3", ...)
    seed: int = 0
    prefix: tuple[dict[str, Any], ...] = ()
    earlier_events: tuple[Event, ...] = field(default=(), repr=False)
    rounds: int = 1                     # task rounds (a take-over keeps the recording's)
    #: the teaching questions the episode is played with (kept in its recording's header);
    #: None: the scenario file's (``scenario_questions``). A take-over keeps the recording's.
    questions: tuple[Question, ...] | None = field(default=None, repr=False)

    def episode_questions(self) -> tuple[Question, ...]:
        return self.questions if self.questions is not None else scenario_questions(self.scenario)

    def build_seats(self) -> dict[str, Agent]:
        return {agent: make_agent(spec, self.world.family) for agent, spec in self.seats.items()}


__all__ = ["NONE", "ROLES", "SessionPlan", "agent_choices", "category_title", "default_agent",
           "default_mechanism", "default_scenario", "first_scenario", "scenario_category", "has_view", "make_mechanism", "make_mechanisms",
           "mechanism_choices", "mechanism_works", "scan_scenarios", "scenario_questions", "scenarios"]


# ---------------------------------------------------------------------- plain words
# Tooltips say what each choice means without the papers' jargon; the kinds' own summaries (from
# their declarations) follow in brackets for those who know it.

PLAIN_KINDS = {
    "human": "You play this seat with the keyboard (or the TradeCraft board).",
    "planner": "A computer player that always takes a shortest plan to its own goal, and carries out "
               "suggestions it accepts.",
    "boltzmann": "A computer player that behaves like a person: usually the best move, now and then a worse one "
                 "(the higher its temperature, the more often).",
    "cooperative": "A computer player that plans its moves together with its helper (a shortest plan for both "
                   "of them to its gem) and expects the helper to play its part; once the helper does something "
                   "that puts that plan off, it plays alone, like the planner.",
    "llm": "A language model chooses each move, reasoning about what the others want. Needs the embedded model "
           "or an endpoint (Settings > LLM).",
    "trader": "A computer trader: plans how to craft its target, guesses what the other player is after, and "
              "judges each trade by what it gains and gives away.",
    "llm-trader": "A language-model trader that also reports how much it values each item (the ToM values tab).",
    "kitchen-heuristic": "A simulated cook: picks a job, walks a shortest path to it, sometimes takes a random step.",
    "overcooked-random": "A cook for kitchens under overcooked_ai's rules: every legal move equally likely.",
    "tom-planner": "A computer teammate that guesses what the others will do next, thinking 0, 1 or 2 levels deep "
                   "about what they think (its badge on the map), frees a stuck teammate, and stands aside when "
                   "left out of the team.",
    "tom-cook": "A computer cook that guesses what the other cooks will do next, thinking 0, 1 or 2 levels deep "
                "about what they think (its badge on the map), passes a stuck teammate's ingredient over a counter, "
                "and stands aside when left out of the team.",
    "tom-helper": "A computer helper that guesses what the others will do next, thinking 0, 1 or 2 levels deep "
                  "about what they think, leaves them the things and rooms it expects them to take, and waits "
                  "when left out of the team.",
    "cobel": "A partner that keeps a shared picture of who believes what, guesses the others' intentions and "
             "talks only when plans clash.",
    "cobel-llm": "The same with a language model writing its beliefs and plans.",
    "rhp": "A rule-based helper: containers first, then objects, never talks.",
    "rhp-share": "The rule-based helper that knows for free what its partners saw and intend (no messages, "
                 "no steps spent): the best that sharing could do, for comparison.",
    "coela": "Sends a short news message before every decision, then follows simple rules.",
    "capo": "Agrees on a plan with its partner first, then follows it.",
    "mhp": "Searches ahead over small jobs (explore, fetch, deliver) with its own idea of where things are.",
    "room-scripted": "A team-room member without a language model: the manager hands out work, engineers write "
                     "code and learn from failed tests, debaters argue from a fixed list, the judge scores by rules.",
    "room-llm": "A team-room member played by a language model (manager, engineer, debater or judge).",
}

PLAIN_MECHANISMS = {
    "none": "Nobody watches: no suggestions, no teams.",
    "protom": "A facilitator that watches how each agent moves, guesses what it wants, and suggests help "
              "(unlock a door, hand over a key...) when it would save time.",
    "oracle": "The same facilitator, but it is told what each agent wants (an upper bound for comparison).",
    "random": "Suggests one possible help at random half of the time (a baseline for comparison).",
    "llm": "A language model decides whether and what to suggest.",
    "teams": "Forms teams of agents that predict each other well and re-forms them when predictions fail.",
    "random-teams": "Random teams, redrawn now and then (a baseline for comparison).",
}

PLAIN_PARAMS = {
    "temperature": "how often it makes a worse move (0.1: almost never; 5: often)",
    "compliance": "how likely it carries out a suggestion (1.0: always, 0: never)",
    "k": "levels of 'I think that you think' it reasons with (0 to 2)",
    "tom": "levels of 'I think that you think' it reasons with (0 to 2)",
    "order": "levels of 'I think that you think' it reasons with (0 to 2)",
    "phi": "the least time a suggestion must save, in ticks, before it is sent",
    "eps": "how different from what the agent would do anyway a suggestion must be (0 to 1)",
    "particles": "how many guesses about each agent's view of the world it keeps",
    "theta": "how well agents must predict each other to stay in one team",
    "humans": "how a helper expects the players with a gem to move: as their seats are chosen (seats), each "
              "alone on the shortest way (planner), or by a plan together with it (cooperative)",
}


def plain_words(spec: str, role: str = "seat") -> str:
    """A tooltip for an agent or mechanism spec ("boltzmann:temperature=1.0") in plain words."""
    kind, _, params = (spec or "").partition(":")
    kind = kind.strip()
    table = PLAIN_KINDS if role == "seat" else PLAIN_MECHANISMS
    text = table.get(kind) or PLAIN_KINDS.get(kind) or PLAIN_MECHANISMS.get(kind) or ""
    if not text:
        summaries = dict(agent_choices_any()) if role == "seat" else {}
        text = summaries.get(kind, f"{kind}: type KIND or KIND:param=value,...")
    lines = [f"{kind}: {text}" if kind else text]
    for part in filter(None, (p.strip() for p in params.split(","))):
        name, _, value = part.partition("=")
        if name in PLAIN_PARAMS:
            lines.append(f"{name} = {value}: {PLAIN_PARAMS[name]}")
    return "\n".join(lines)


def agent_choices_any() -> list[tuple[str, str]]:
    return [(k.name, k.summary) for k in agent_kinds(listed=True).values()]


def plain_description(text: str) -> str:
    """Scenario descriptions in plain words (the generator writes difficulty measures)."""
    import re

    return re.sub(r"chain length (\d+) \(depth (\d+)\)",
                  lambda m: f"crafting the target takes {m.group(1)} recipe step(s), at most {m.group(2)} in a row",
                  text)


def llm_availability() -> str | None:
    """None when LLM seats can answer here (the embedded model is installed or an endpoint is
    configured), else why not, with the fix."""
    try:
        from agents.llm.config import LLMConfigError, load_settings
        from agents.llm.server import embedded_missing
    except ImportError as exc:
        return f"the LLM layer is not installed ({exc})"
    try:
        settings = load_settings()
    except LLMConfigError as exc:
        return f"the LLM settings cannot be read: {exc}"
    if settings.uses_embedded:
        return embedded_missing()
    return None


def embedded_model_note() -> str | None:
    """Rich text for a person who gives a seat to a language model while the app answers with the
    embedded Gemma 3 270M model (no endpoint set, no other model file): that model is a smoke test
    of the plumbing, not a player, and how to point the app at a real one. None otherwise."""
    try:
        from agents.llm.config import LLMConfigError, load_settings
    except ImportError:
        return None
    try:
        settings = load_settings()
    except LLMConfigError:
        return None
    if not settings.uses_embedded or settings.embedded.model_path:
        return None
    return ("<b>The embedded model is a smoke test.</b> With no endpoint set, LLM seats ask the Gemma 3 270M "
            "model shipped with the app: it checks that prompts, answers and the usage tab work, but it does "
            "not play well (it often repeats one move, up, down, up…). For real play, point the app at an "
            "OpenAI-compatible endpoint: <i>File &gt; Settings &gt; LLM</i>, set the base URL, model and key "
            "(or <code>TOM_ARENA_LLM_BASE_URL</code>; docs/llm.md).")


def needs_llm(kind: str) -> bool:
    """True for agent and mechanism kinds that ask a language model."""
    return kind == "llm" or kind.startswith("llm-") or kind.endswith("-llm")


def facilitators_of(mechanism_specs: Sequence[str]) -> list[str]:
    """The kinds among ``mechanism_specs`` that are facilitators (they send feedback)."""
    kinds = mechanism_kinds("facilitator")
    found = [(spec or "").split(":", 1)[0].strip() for spec in mechanism_specs]
    return [kind for kind in found if kind in kinds]


def welcome_text(world: World, scenario: str, mechanism_specs: Sequence[str],
                 humans: Sequence[str] = ()) -> tuple[str, str]:
    """(title, rich-text body) of the first-run card for ``scenario``: what the world is (its
    plug-in's title and the start of its rules), who plays, whether a facilitator watches and
    what its feedback looks like, and how to start."""
    import html
    import re

    plugin = plugins().get(world.family)
    title = plugin.title if plugin is not None else world.family
    rules = plugin.rules_text if plugin is not None else ""
    sentences = re.split(r"(?<=[.!?])\s+", rules.strip()) if rules else []
    summary, used = [], 0
    for sentence in sentences:  # the first sentences, up to about two lines of the card
        if summary and used + len(sentence) > 230:
            break
        summary.append(sentence)
        used += len(sentence)
    agents = list(world.agents)
    who = (f"{len(agents)} agents play this scenario ({', '.join(agents)})" if len(agents) <= 4
           else f"{len(agents)} agents play this scenario")
    if humans:
        who += f"; you play {', '.join(humans)}"
    facilitators = facilitators_of(mechanism_specs)
    if facilitators:
        watch = (f"A <b>facilitator</b> ({html.escape(', '.join(facilitators))}) watches, guesses what each one "
                 "wants and, when its help would save time, suggests something in a "
                 "<span style='color:#1e6eeb'><b>blue pop-up</b></span>.")
    else:
        watch = "No facilitator watches this episode: the agents play on their own."
    body = (f"<b>{html.escape(title)}.</b> {html.escape(' '.join(summary))}<br>{html.escape(who)}. {watch}<br>"
            "The episode is paused: press <b>K</b> (or ▶ under the map) to play, <b>L</b> for one step. "
            + ("" if humans else "Choose <i>human</i> for a seat in the Session panel to play yourself."))
    return f"Welcome to ToM Arena: {scenario}", body
