"""TradeCraft task instances: the scenario file format, its validation and its difficulty.

A scenario file holds one instance (the paper's ``hands`` and ``targets``, one entry per
player) with the rule set it is played with::

    {
      "world": "tradecraft",
      "name": "mc-1v1-01",
      "title": "shears vs torch",
      "category": "minecraft 1v1",                      # optional
      "rules": "minecraft",                             # a shipped rule set, or a folder path
      "players": ["alice", "bob"],                      # optional; default alice, bob, carol, ...
      "hands":   [{"raw_iron": 2, "coal": 1}, {"oak_log": 1, "raw_iron": 1}],
      "targets": [{"shears": 1}, {"torch": 1}],
      "options": {"max_turns": 15, "ties": "share", "stop": "first", "max_craft_steps": 32},
      "difficulty": {...}                               # optional; written by the generator
    }

Item names may omit the rule set's namespace (``coal`` for ``minecraft:coal``). A relative
``rules`` path is relative to the scenario file. An instance is refused, with the reason,
when it names unknown items, has non-positive or fractional amounts, gives a player its
target from the start, or when a target cannot be crafted from the union of all initial
hands (the paper's validity rule; the targets need not be craftable all at once).

The paper's own instance files (a JSON list of ``{"hands": [...], "targets": [...]}``, the
authors' ``game_task.json``) import entry by entry with ``import_paper_instances``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sim.inputs import check_tree, read_json, validate_model
from sim.registry import ROOT, ScenarioError
from sim.tradecraft.rules import RuleSet, RuleSetError, load_ruleset
from sim.tradecraft.solver import RecipeGraph, plan_crafts

RULESETS_DIR = ROOT / "scenarios" / "tradecraft" / "rulesets"
DEFAULT_PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
NAME_RE = r"^[a-z0-9][a-z0-9_.-]*$"
PLAYER_RE = re.compile(r"[a-z][a-z0-9_-]*")

# Documented in docs/limits.md.
MAX_AMOUNT = 10**12 - 1  # amounts are exact integers; larger ones are typing slips, not games
MAX_PLAYERS = len(DEFAULT_PLAYERS)
MAX_ITEMS_PER_HAND = 64
MAX_NAME = 64  # instance names become file names
MAX_TITLE = 200
MAX_DESCRIPTION = 4000


class Options(BaseModel):
    # strict: true is not 1 and "15" is not 15
    model_config = ConfigDict(extra="forbid", strict=True)
    max_turns: int = Field(15, ge=1, le=1000, description="the game ends without a winner after this many turns")
    ties: Literal["share", "draw"] = Field("share", description="several players first holding their targets at "
                                                                 "the same check: all win (share) or nobody (draw)")
    stop: Literal["first", "all"] = Field("first", description="end at the first win, or play on until all win")
    max_craft_steps: int = Field(32, ge=1, le=10_000, description="world steps a craft phase may last")
    crafting: Literal["fractional", "original"] = Field(
        "fractional", description="fractional: a recipe runs at any positive rational scale (the paper); original: "
                                  "the output must be whole and so must the scale, unless another recipe makes the "
                                  "same item in whole runs (the original server's check)")
    rejections: Literal["hidden", "announced"] = Field(
        "hidden", description="hidden: a rejected proposal is invisible to the other players (the paper); announced: "
                              "they learn that the proposer's proposal was rejected, not to whom (the original server)")
    recipe_list: Literal["any_scale", "full_scale"] = Field(
        "any_scale", description="what possible_recipes_from_hands lists: recipes the hand can run at any scale that "
                                 "makes at least one whole item, or only those it can run in full (the original server)")


class Instance(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    world: Literal["tradecraft"]
    name: str = Field(pattern=NAME_RE, max_length=MAX_NAME)
    title: str = Field("", max_length=MAX_TITLE)
    description: str = Field("", max_length=MAX_DESCRIPTION)
    category: str | None = Field(None, max_length=MAX_TITLE)
    rules: str = Field("minecraft", min_length=1, max_length=1024)
    players: list[str] | None = Field(None, max_length=MAX_PLAYERS)
    hands: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_PLAYERS)
    targets: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_PLAYERS)
    options: Options = Options()
    difficulty: dict[str, Any] | None = None


def shipped_rulesets() -> list[str]:
    return sorted(p.name for p in RULESETS_DIR.iterdir() if (p / "recipes").is_dir()) if RULESETS_DIR.is_dir() else []


def rules_folder(rules: str, source: str | None = None) -> Path:
    """The folder of a rule set named ``rules`` (shipped name, absolute path, or path relative to ``source``)."""
    def is_dir(path: Path) -> bool:
        try:
            return path.is_dir()
        except (OSError, ValueError):  # a NUL byte or an over-long name: no such folder
            return False

    if "/" not in rules and is_dir(RULESETS_DIR / rules):
        return RULESETS_DIR / rules
    path = Path(rules)
    if not path.is_absolute() and source:
        path = Path(source).resolve().parent / path
    if is_dir(path):
        return path.resolve()
    raise ScenarioError(f"{source or 'instance'}: field 'rules': no rule set {rules!r}; expected one of "
                        f"{', '.join(shipped_rulesets())} or a folder with recipes/ (or a datapack with data/)")


def ruleset_for(spec: Mapping[str, Any]) -> RuleSet:
    try:
        return load_ruleset(rules_folder(spec.get("rules", "minecraft")))
    except RuleSetError as exc:
        raise ScenarioError(str(exc)) from None


def _graph(rules: RuleSet) -> RecipeGraph:
    from sim.tradecraft.world import graph_for
    return graph_for(rules)


def _items(rules: RuleSet, value: Mapping[str, Any], where: str, source: str) -> dict[str, int]:
    if len(value) > MAX_ITEMS_PER_HAND:
        raise ScenarioError(f"{source}: field '{where}': {len(value)} item kinds; expected at most "
                            f"{MAX_ITEMS_PER_HAND} (docs/limits.md)")
    out: dict[str, int] = {}
    named: dict[str, str] = {}
    for name, n in value.items():
        try:
            item = rules.resolve(name)
        except KeyError as exc:
            raise ScenarioError(f"{source}: field '{where}': {exc.args[0]}; expected an item of the rule set "
                                f"(python main.py tradecraft rules --rules {rules.name} lists them)") from None
        whole = isinstance(n, int) or (isinstance(n, float) and n.is_integer())
        if isinstance(n, bool) or not whole or not 1 <= n <= MAX_AMOUNT:
            raise ScenarioError(f"{source}: field '{where}.{name}': expected a whole amount of at least 1 and at "
                                f"most {MAX_AMOUNT:,} (docs/limits.md), got {n!r:.60}")
        if item in named:
            raise ScenarioError(f"{source}: field '{where}.{name}': {name!r} and {named[item]!r} name the same "
                                f"item {item}; expected each item once")
        named[item] = name
        out[item] = int(n)
    return dict(sorted(out.items()))


def validate_instance(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Validate raw instance data; return the normalized spec or raise one ScenarioError."""
    check_tree(data, source, ScenarioError)  # lone surrogates, NaN, non-text keys, deep nesting
    inst = validate_model(Instance, data, source, ScenarioError)
    folder = rules_folder(inst.rules, source)
    try:
        rules = load_ruleset(folder)
    except RuleSetError as exc:
        raise ScenarioError(f"{source}: field 'rules': {exc}") from None
    n = len(inst.hands)
    if len(inst.targets) != n:
        raise ScenarioError(f"{source}: fields 'hands' and 'targets': one entry per player is needed, got "
                            f"{n} hands and {len(inst.targets)} targets; expected as many targets as hands")
    players = list(DEFAULT_PLAYERS[:n]) if inst.players is None else inst.players
    if len(players) != n:
        raise ScenarioError(f"{source}: field 'players': expected {n} names (one per hand), got {len(players)}")
    for k, p in enumerate(players):
        if not PLAYER_RE.fullmatch(p) or len(p) > MAX_NAME:
            raise ScenarioError(f"{source}: field 'players[{k}]': expected a lowercase name, got {p!r}")
    if len(set(players)) != n:
        raise ScenarioError(f"{source}: field 'players': names must differ, got {players}")
    hands = [_items(rules, h, f"hands[{k}]", source) for k, h in enumerate(inst.hands)]
    targets = [_items(rules, t, f"targets[{k}]", source) for k, t in enumerate(inst.targets)]
    problems = instance_problems(rules, hands, targets, players, crafting=inst.options.crafting)
    if problems:
        raise ScenarioError(f"{source}: {problems[0]}")
    spec = inst.model_dump()
    shipped = folder.parent == RULESETS_DIR.resolve() or folder.parent == RULESETS_DIR
    spec.update(rules=folder.name if shipped else str(folder), players=players, hands=hands, targets=targets)
    if spec.get("category") is None:
        spec["category"] = f"{rules.name} {'1v1' if n == 2 else ('1 player' if n == 1 else f'{n} players')}"
    return spec


def instance_problems(rules: RuleSet, hands: Sequence[Mapping[str, int]], targets: Sequence[Mapping[str, int]],
                      players: Sequence[str] | None = None, crafting: str = "fractional") -> list[str]:
    """Why an instance is invalid (empty when it is valid); crafts follow the ``crafting`` rule."""
    players = list(players or DEFAULT_PLAYERS[:len(hands)])
    problems = []
    graph = _graph(rules)
    union: Counter[str] = Counter()
    for hand in hands:
        union.update(hand)
    for k, (player, target) in enumerate(zip(players, targets)):
        if not target:
            problems.append(f"field 'targets[{k}]': {player} needs a target item")
            continue
        if all(hands[k].get(item, 0) >= n for item, n in target.items()):
            problems.append(f"field 'targets[{k}]': {player} holds its target from the start; the game would be "
                            "won before it begins")
            continue
        have = {i: Fraction(n) for i, n in union.items()}
        for item, n in target.items():
            if plan_crafts(graph, have, item, n, crafting=crafting) is None:
                why = _why_not(graph, have, item)
                if crafting != "fractional" and plan_crafts(graph, have, item, n) is not None:
                    why = ("the planner finds a plan with fractional crafting but none under the original "
                           "crafting rule")
                problems.append(f"field 'targets[{k}]': {player}'s target {rules.display(item)} * {n} cannot be "
                                f"crafted from the union of all initial hands ({why})")
    return problems


def _why_not(graph: RecipeGraph, have: Mapping[str, Fraction], item: str) -> str:
    rules = graph.rules
    recipes = rules.by_result.get(item, ())
    if not recipes:
        return f"no recipe makes {rules.display(item)} and no hand holds enough of it"
    if graph.reachable(item, have):
        return "the right items are there but not in the amounts needed"
    reach = graph.closure(set(have), graph.backward(item)[1])
    lacking = sorted({ing.source.removeprefix(f"{rules.namespace}:") for r in recipes for ing in r.ingredients
                      if not any(o in reach for o in ing.options)}
                     | ({"fuel"} if all(r.fuel > 0 for r in recipes) and not any(f in reach for f in graph.fuel_items)
                        else set()))
    return "nothing leads to " + ", ".join(lacking[:6]) if lacking else "no route"


# ------------------------------------------------------------------ difficulty

def difficulty(rules: RuleSet, hands: Sequence[Mapping[str, int]], targets: Sequence[Mapping[str, int]]
               ) -> dict[str, Any]:
    """The paper's two difficulty measures, per player and for the instance.

    * ``chain_length``: the fewest distinct recipes any route from the union of hands to the
      target runs (tag choices and fuel are no steps); ``chain_depth``: the longest chain of
      crafts on that route.
    * ``min_trades``: the fewest accepted trades the player needs (one trade moves any set of
      items between two players, so it is the fewest partners whose items it needs);
      ``min_trade_items``: the fewest item units it must receive; ``min_trade_types``: how many
      item types those are.

    The instance-level values are the maxima over players.
    """
    graph = _graph(rules)
    union: Counter[str] = Counter()
    for hand in hands:
        union.update(hand)
    per: list[dict[str, int | None]] = []
    for k, target in enumerate(targets):
        own = {i: Fraction(n) for i, n in hands[k].items()}
        others = [{i: Fraction(n) for i, n in h.items()} for j, h in enumerate(hands) if j != k]
        pool = {i: Fraction(n) for i, n in union.items()}
        shortest = graph.route(target, [pool], [0.0], minimize="recipes")
        fewest_units = graph.route(target, [own, *others], [1e-4] + [1.0] * len(others), integral_supplies=True)
        partners = graph.route(target, [own, *others], [1e-4] + [1.0] * len(others), minimize="partners")
        item = next(iter(target))
        received = fewest_units.received() if fewest_units.feasible else {}
        per.append({
            "chain_length": len(shortest.recipes) if shortest.feasible else None,
            "chain_depth": graph.chain_depth(shortest, item) if shortest.feasible else None,
            "min_trades": sum(1 for s in partners.supplies_used[1:] if any(v > 1e-7 for v in s.values()))
            if partners.feasible else None,
            "min_trade_items": round(sum(received.values())) if fewest_units.feasible else None,
            "min_trade_types": len(received) if fewest_units.feasible else None,
        })
    summary: dict[str, Any] = {}
    for key in ("chain_length", "chain_depth", "min_trades", "min_trade_items", "min_trade_types"):
        values = [v for p in per if (v := p[key]) is not None]
        summary[key] = max(values) if values else None
    summary["players"] = per
    return summary


# ------------------------------------------------------------------ paper format

ENTRY_FIELDS = ("hands", "targets", "max_turn", "max_turns", "players", "name", "title")


@dataclass
class ImportReport:
    """The outcome of importing an instance list: the valid specs and, per refused entry, why."""

    source: str
    total: int = 0
    specs: list[dict[str, Any]] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (entry index, reason)
    notes: list[tuple[int, str]] = field(default_factory=list)  # tolerated oddities

    def lines(self) -> list[str]:
        """One line per entry, in file order, for people."""
        by_entry: dict[int, list[str]] = {}
        for k, msg in self.problems:
            by_entry.setdefault(k, []).append(f"entry [{k}]: skipped: {msg}")
        for k, msg in self.notes:
            by_entry.setdefault(k, []).append(f"entry [{k}]: note: {msg}")
        for spec in self.specs:
            k = spec["_entry"]
            targets = " / ".join(", ".join(f"{i.partition(':')[2] or i} * {n}" for i, n in t.items())
                                 for t in spec["targets"])
            by_entry.setdefault(k, []).insert(0, f"entry [{k}]: imported as {spec['name']} "
                                                 f"({len(spec['hands'])} player{'s' * (len(spec['hands']) != 1)}, "
                                                 f"targets {targets}, max_turns {spec['options']['max_turns']})")
        return [line for k in sorted(by_entry) for line in by_entry[k]]


def import_paper_instances(path: str | Path, rules: str = "minecraft", prefix: str | None = None,
                           options: Mapping[str, Any] | None = None) -> ImportReport:
    """Every entry of a paper-format file (a JSON list of games, or one game) checked on its own.

    An entry is ``{"hands": [...], "targets": [...]}`` with one hand and one target per player
    (one player is allowed), optionally ``max_turn`` (or ``max_turns``: the entry's turn limit,
    kept), ``players``, ``name`` and ``title``. Valid entries become scenario specs named
    ``PREFIX-NN`` (NN: the entry's position from 1) unless they carry a name; refused ones are
    reported with the reason and skipped. A file that cannot be read at all raises ScenarioError.
    """
    path = Path(path)
    data = read_json(path, ScenarioError)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ScenarioError(f"{path}: expected a JSON list of {{\"hands\": [...], \"targets\": [...]}}, "
                            f"got {type(data).__name__}")
    prefix = prefix or re.sub(r"[^a-z0-9_-]+", "-", path.stem.lower()).strip("-") or "instance"
    if not re.fullmatch(NAME_RE, prefix):
        raise ScenarioError(f"--prefix {prefix!r}: expected lowercase letters, digits, '.', '_' or '-'")
    report = ImportReport(str(path), total=len(data))
    width = max(2, len(str(len(data))))
    seen: set[str] = set()
    for k, entry in enumerate(data):
        where = f"{path} entry [{k}]"
        if not isinstance(entry, dict):
            report.problems.append((k, f"expected an object with 'hands' and 'targets', got {type(entry).__name__}"))
            continue
        unknown = sorted(set(entry) - set(ENTRY_FIELDS))
        if unknown:
            report.notes.append((k, f"ignored field(s) {', '.join(map(str, unknown))} (known: {', '.join(ENTRY_FIELDS)})"))
        missing = [f for f in ("hands", "targets") if f not in entry]
        if missing:
            report.problems.append((k, f"missing field(s) {', '.join(missing)}"))
            continue
        opts = dict(options or {})
        if "max_turn" in entry and "max_turns" in entry:
            report.problems.append((k, "give 'max_turn' or 'max_turns', not both"))
            continue
        limit = entry.get("max_turn", entry.get("max_turns"))
        if limit is not None:
            opts["max_turns"] = limit
        name = entry.get("name", f"{prefix}-{k + 1:0{width}d}")
        raw = {"world": "tradecraft", "name": name, "rules": rules, "hands": entry["hands"],
               "targets": entry["targets"], "options": opts}
        for key in ("players", "title"):
            if key in entry:
                raw[key] = entry[key]
        try:
            spec = validate_instance(raw, where)
        except ScenarioError as exc:
            report.problems.append((k, str(exc).removeprefix(f"{where}: ")))
            continue
        if spec["name"] in seen:
            report.problems.append((k, f"field 'name': {spec['name']!r} is used by an earlier entry"))
            continue
        seen.add(spec["name"])
        spec["_entry"] = k
        report.specs.append(spec)
    return report


def load_paper_instances(path: str | Path, rules: str = "minecraft", prefix: str | None = None,
                         options: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The instances of a paper-format file as validated specs; raises ScenarioError naming the first
    refused entry (``import_paper_instances`` imports the valid ones and reports the others)."""
    report = import_paper_instances(path, rules, prefix, options)
    if report.problems:
        k, msg = report.problems[0]
        raise ScenarioError(f"{path} entry [{k}]: {msg}")
    for spec in report.specs:
        spec.pop("_entry", None)
    return report.specs
