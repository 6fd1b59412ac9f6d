"""Headless TradeCraft tournaments: every instance x seed with the given traders, recorded.

Used by ``python main.py tradecraft selfplay`` and by the benchmark. Each game writes a
recording (the analyses read them) and one row of ``selfplay.csv``.
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.registry import make_agent
from sim.recording import RecordingWriter
from sim.redact import DictWriter
from sim.registry import find_scenario, load_spec, scenario_paths
from sim.session import Session
from sim.tradecraft.world import TradeCraftWorld

COLUMNS = ["instance", "seed", "agents", "winners", "draw", "turns", "proposals", "trades", "chain_length",
           "min_trades", "errors", "seconds", "recording"]


@dataclass(frozen=True)
class Game:
    instance: str
    spec: dict[str, Any]


def instance_set(names: Sequence[str]) -> list[Game]:
    """Instances by scenario name, file path, or set folder name (``minecraft-1v1``); all TradeCraft
    instances when ``names`` is empty."""
    games: list[Game] = []
    tradecraft = [p for p in scenario_paths() if "tradecraft" in p.parts]
    chosen: list[Path] = []
    for name in names or ["*"]:
        matches = [p for p in tradecraft if name == "*" or p.parent.name == name]
        if not matches and Path(name).is_dir():  # a folder of instance files (e.g. tradecraft import --out)
            matches = sorted(Path(name).glob("*.json"))
            if not matches:
                raise ValueError(f"{name}: the folder holds no instance files (*.json)")
        chosen += matches or [find_scenario(name)]
    for path in dict.fromkeys(chosen):
        family, spec = load_spec(path)
        if family != "tradecraft":
            raise ValueError(f"{path}: not a TradeCraft instance (world {family!r})")
        games.append(Game(spec["name"], spec))
    return games


def with_options(spec: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(spec))
    out["options"] = {**out.get("options", {}), **{k: v for k, v in overrides.items() if v is not None}}
    return out


def seats_for(world: TradeCraftWorld, specs: Sequence[str]) -> dict[str, str]:
    """One agent spec per seat: a single spec fills every seat; otherwise they go in seat order
    (and repeat when there are more seats than specs)."""
    return {a: specs[k % len(specs)] for k, a in enumerate(world.agents)}


def run_selfplay(games: Sequence[Game], agent_specs: Sequence[str], seeds: Sequence[int], out: str | Path | None,
                 *, overrides: Mapping[str, Any] | None = None, progress: Callable[[int], Any] | None = None
                 ) -> list[dict[str, Any]]:
    """Play every game with every seed; return one row per game (and write recordings + CSV into ``out``)."""
    rows = []
    out_dir = Path(out) if out is not None else None
    for game in games:
        spec = with_options(game.spec, overrides or {})
        world = TradeCraftWorld(spec)
        seat_specs = seats_for(world, agent_specs)
        for spec_text in set(seat_specs.values()):
            make_agent(spec_text, world.family)  # fail early with the reason
        for seed in seeds:
            started = time.perf_counter()
            seats = {a: make_agent(s, world.family) for a, s in seat_specs.items()}
            session = Session(world, seats, seed=seed, scenario=game.instance)
            path = None
            if out_dir is not None:
                path = out_dir / f"{game.instance}-seed{seed}.jsonl"
                RecordingWriter.attach(session, path)
            outcome = session.run()
            difficulty = spec.get("difficulty") or {}
            rows.append({"instance": game.instance, "seed": seed,
                         "agents": " ".join(f"{a}={s}" for a, s in seat_specs.items()),
                         "winners": " ".join(outcome["winners"]), "draw": outcome["draw"],
                         "turns": outcome["turns"], "proposals": outcome["proposals"], "trades": outcome["trades"],
                         "chain_length": difficulty.get("chain_length"), "min_trades": difficulty.get("min_trades"),
                         "errors": session.metrics()["errors"], "seconds": round(time.perf_counter() - started, 3),
                         "recording": str(path) if path else ""})
            if progress is not None:
                progress(1)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        with open(out_dir / "selfplay.csv", "w", newline="") as fh:
            writer = DictWriter(fh, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    return rows


def summary(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return "no games"
    games = len(rows)
    won = sum(1 for r in rows if r["winners"])
    seconds = sum(r["seconds"] for r in rows)
    wins: dict[str, int] = {}
    for r in rows:
        seat_spec = dict(part.split("=", 1) for part in r["agents"].split(" "))
        for w in r["winners"].split():
            wins[f"{w} ({seat_spec.get(w, '?')})"] = wins.get(f"{w} ({seat_spec.get(w, '?')})", 0) + 1
    lines = [f"{games} games, {won} with a winner ({won / games:.0%}), mean {sum(r['turns'] for r in rows) / games:.1f} "
             f"turns, {sum(r['trades'] for r in rows)} trades of {sum(r['proposals'] for r in rows)} proposals, "
             f"{sum(r['errors'] for r in rows)} errors; {games / seconds if seconds else float('inf'):.2f} games/s"]
    for seat, n in sorted(wins.items()):
        lines.append(f"  wins of {seat}: {n}")
    return "\n".join(lines)


def progress_bar(total: int, desc: str, quiet: bool = False):  # pragma: no cover - terminal output
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="game", disable=quiet or None, file=sys.stderr, dynamic_ncols=True)
