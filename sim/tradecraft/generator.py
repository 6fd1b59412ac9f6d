"""The instance generator: valid TradeCraft instances with distractors and measured difficulty.

For each instance it draws one target per player from the rule set's target pool, finds
the cheapest bill of hand items for each target (an LP over the recipe graph, with random
prices so that routes vary: through raw materials for long chains, through intermediates
for short ones), deals each bill out so that the target's owner lacks part of it (every
player must trade), adds distractor items, and keeps the instance only when

* the union of the initial hands suffices for each target alone (an exact craft plan is
  found and replayed with the game's rules),
* no player can craft its target from its own hand,
* no player holds its target from the start;

then records both difficulty measures of the paper (crafting-chain length and the
minimum number of trades, see ``instance.difficulty``).

The pools come from the rule set's ``ruleset.json`` (``"generator": {"targets": [...],
"raw_items": [...], "intermediates": [...]}``); a rule set without them (e.g. a datapack)
uses every item with a recipe as a target and every item without one as a hand item.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from sim.redact import write_text
from sim.tradecraft.instance import DEFAULT_PLAYERS, difficulty, instance_problems, rules_folder
from sim.tradecraft.rules import RuleSet, load_ruleset
from sim.tradecraft.solver import plan_crafts
from sim.tradecraft.world import graph_for

MAX_TRIES = 400
#: an instance name prefix: a plain name (instance names become file names under --out)
PREFIX_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,57}")


def check_prefix(prefix: str) -> None:
    """Refuse a name prefix that is not a plain name (``../x``, ``a/b``, upper case, too long)."""
    if not isinstance(prefix, str) or not PREFIX_RE.fullmatch(prefix):
        raise ValueError(f"--prefix {str(prefix)[:80]!r}: expected a plain name of lowercase letters, digits, "
                         "'-' and '_' (at most 58 characters, starting with a letter or digit); instance names "
                         "become file names inside the output folder")


@dataclass(frozen=True)
class GeneratorConfig:
    rules: str = "minecraft"
    players: int = 2
    count: int = 44
    seed: int = 0
    prefix: str = "mc1v1"
    max_bill_units: int = 14  # total units of one target's bill (keeps hands readable)
    distractors: tuple[int, int] = (1, 3)  # per player, inclusive range
    options: dict[str, Any] | None = None


def pools(rules: RuleSet) -> tuple[list[str], list[str], list[str]]:
    """(targets, raw items, intermediates) for the generator: ruleset.json's ``generator`` block
    (checked when the rule set was loaded), else every item with a recipe as a target and every
    item without one as a hand item."""
    if rules.generator is not None:
        targets, raw, intermediates = rules.generator
        return list(targets), list(raw), list(intermediates)
    made = sorted(rules.by_result)
    raw = sorted(i for i in rules.items if i not in rules.by_result)
    return made, raw, []


def _bill(rules: RuleSet, target: str, raw: Sequence[str], intermediates: Sequence[str], mode: str,
          rng: np.random.Generator) -> dict[str, int] | None:
    """Whole amounts of hand items that make ``target`` along a randomly priced cheapest route."""
    graph = graph_for(rules)
    supply = {i: Fraction(64) for i in [*raw, *intermediates] if i != target}
    prices: dict[str, float] = {i: 1.0 + float(rng.uniform(0, 1)) for i in raw}
    middle = {"raw": 60.0, "mixed": 1.5, "intermediate": 0.4}[mode]
    prices.update({i: middle + float(rng.uniform(0, 1)) for i in intermediates})
    route = graph.route({target: 1}, [supply], [prices])
    if not route.feasible:
        return None
    return {i: max(1, math.ceil(v - 1e-6)) for i, v in sorted(route.supplies_used[0].items()) if v > 1e-6}


def _deal(bills: list[dict[str, int]], n: int, rng: np.random.Generator) -> list[dict[str, int]]:
    """Hands in which each target's owner lacks part of its bill; the rest goes to others."""
    hands: list[dict[str, int]] = [dict() for _ in range(n)]

    def give(player: int, item: str, amount: int) -> None:
        if amount > 0:
            hands[player][item] = hands[player].get(item, 0) + amount

    for owner, bill in enumerate(bills):
        others = [p for p in range(n) if p != owner]
        types = list(bill)
        rng.shuffle(types)
        if len(types) == 1:
            item, amount = types[0], bill[types[0]]
            keep = int(rng.integers(0, amount)) if amount > 1 else 0
            give(owner, item, keep)
            give(int(rng.choice(others)), item, amount - keep)
            continue
        missing = int(rng.integers(1, max(1, len(types) // 2) + 1))
        if n > 2 and len(types) > 2 and rng.random() < 0.5:
            missing = max(missing, 2)  # spread over several partners: more than one trade needed
        holders = [int(p) for p in rng.permutation(others)]
        for k, item in enumerate(types):
            if k < missing:
                give(holders[k % len(holders)], item, bill[item])
            else:
                give(owner, item, bill[item])
    return hands


def generate(config: GeneratorConfig, existing: Sequence[tuple[str, ...]] = ()) -> list[dict[str, Any]]:
    """``config.count`` instance specs (scenario-file dictionaries), deterministic by seed."""
    check_prefix(config.prefix)
    rules = load_ruleset(rules_folder(config.rules))
    graph = graph_for(rules)
    targets_pool, raw, intermediates = pools(rules)
    if len(targets_pool) < config.players:
        raise ValueError(f"rule set {rules.name!r}: {len(targets_pool)} target(s) in its pool for "
                         f"{config.players} players; expected at least one target per player")
    rng = np.random.default_rng(config.seed)
    n = config.players
    names = list(DEFAULT_PLAYERS[:n])
    seen = {tuple(sorted(t)) for t in existing}
    found: list[dict[str, Any]] = []
    tries = 0
    while len(found) < config.count:
        tries += 1
        if tries > MAX_TRIES * config.count:
            raise RuntimeError(f"generator: only {len(found)} of {config.count} valid instances after {tries} tries; "
                               "widen the target pool or raise max_bill_units")
        mode = str(rng.choice(["raw", "mixed", "intermediate"], p=[0.45, 0.35, 0.2]))
        picked = [str(t) for t in rng.choice(targets_pool, size=n, replace=False)]
        key = tuple(sorted(picked))
        if key in seen:
            continue
        bills = [_bill(rules, t, raw, intermediates, mode, rng) for t in picked]
        if any(b is None or sum(b.values()) > config.max_bill_units for b in bills):
            continue
        hands = _deal(bills, n, rng)
        bill_items = {i for b in bills for i in b}
        distractor_pool = [i for i in [*raw, *intermediates] if i not in bill_items and i not in picked]
        for hand in hands:
            k = int(rng.integers(config.distractors[0], config.distractors[1] + 1))
            for item in rng.choice(distractor_pool, size=min(k, len(distractor_pool)), replace=False):
                hand[str(item)] = hand.get(str(item), 0) + int(rng.integers(1, 4))
        if rng.random() < 0.5:  # a spare unit of a needed item: an alternative or a bargaining chip
            item = str(rng.choice(sorted(bill_items)))
            p = int(rng.integers(0, n))
            hands[p][item] = hands[p].get(item, 0) + 1
        targets = [{t: 1} for t in picked]
        if instance_problems(rules, hands, targets, names):
            continue
        if any(plan_crafts(graph, {i: Fraction(v) for i, v in hands[p].items()}, picked[p]) is not None
               for p in range(n)):
            continue  # someone could win without trading
        measured = difficulty(rules, hands, targets)
        if any(p["min_trades"] is None or p["min_trades"] < 1 for p in measured["players"]):
            continue
        seen.add(key)
        found.append({"hands": [dict(sorted(h.items())) for h in hands], "targets": targets,
                      "difficulty": measured, "mode": mode})
    found.sort(key=lambda s: (s["difficulty"]["chain_length"], s["difficulty"]["min_trade_items"],
                              tuple(sorted(next(iter(t)) for t in s["targets"]))))
    specs = []
    for k, inst in enumerate(found):
        picked = [next(iter(t)) for t in inst["targets"]]
        d = inst["difficulty"]
        spec = {
            "world": "tradecraft", "name": f"{config.prefix}-{k + 1:02d}",
            "title": " vs ".join(rules.display(t) for t in picked),
            "description": (f"chain length {d['chain_length']} (depth {d['chain_depth']}), "
                            f"at least {d['min_trades']} trade(s) and {d['min_trade_items']} item(s) received"),
            "category": f"{rules.name} {'1v1' if n == 2 else f'{n} players'}",
            "rules": config.rules, "players": names,
            "hands": [{rules.display(i): v for i, v in h.items()} for h in inst["hands"]],
            "targets": [{rules.display(i): v for i, v in t.items()} for t in inst["targets"]],
            "options": dict(config.options or {}),
            "difficulty": d,
        }
        specs.append(spec)
    return specs


def write_instances(specs: Sequence[dict[str, Any]], folder: str | Path) -> list[Path]:
    folder = Path(folder)
    inside = folder.resolve()
    targets = [folder / f"{spec['name']}.json" for spec in specs]
    for path in targets:  # every file stays directly in the folder, whatever the names say
        if path.resolve().parent != inside:
            raise ValueError(f"instance name {path.name!r:.80} would be written outside {folder}; expected a plain "
                             "name")
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    paths = []
    for spec, path in zip(specs, targets):
        write_text(path, json.dumps(spec, indent=2) + "\n")
        paths.append(path)
    return paths


#: the shipped instance sets: (folder under scenarios/tradecraft, config)
SHIPPED_SETS: list[tuple[str, GeneratorConfig]] = [
    ("minecraft-1v1", GeneratorConfig(rules="minecraft", players=2, count=44, seed=2002, prefix="mc1v1")),
    ("minecraft-3p", GeneratorConfig(rules="minecraft", players=3, count=12, seed=3003, prefix="mc3p")),
    ("alchemy-1v1", GeneratorConfig(rules="alchemy", players=2, count=8, seed=4004, prefix="al1v1",
                                    max_bill_units=12, distractors=(1, 2))),
]
