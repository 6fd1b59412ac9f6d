"""A TradeCraft seat played from a terminal: reads the observation text, answers with actions.

Accepted input, one line at a time (JSON actions work everywhere):

    pass | accept | reject | done | quit | help
    info ITEM                     the item_info tool
    recipes                       the possible_recipes_from_hands tool
    propose TO offer ITEM=N,... request ITEM=N,... [message TEXT]
    craft RECIPE [TIMES]          one craft (automatic slot choices); type done when finished
    {"type": ...}                 any action in its JSON form (docs/tradecraft.md)

Crafts are applied one at a time (``done`` false), as on the crafting table.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from sim.seats import Agent, SeatContext
from sim.tradecraft.tools import TradeCraftTools
from sim.tradecraft.world import TCObservation, TradeCraftWorld


class TerminalTrader(Agent):
    kind = "terminal"

    def __init__(self, read: Callable[[str], str] | None = None, write: Callable[[str], Any] = print) -> None:
        self.read = read or stdin_reader
        self.write = write
        self._shown: tuple | None = None

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, TradeCraftWorld):
            raise TypeError("the terminal seat plays TradeCraft")
        self.world: TradeCraftWorld = ctx.world
        self.tools = TradeCraftTools.for_world(self.world)

    def act(self, observation: TCObservation, legal_actions: Sequence[Any]) -> Any:
        key = observation.key()
        if key != self._shown:
            self.write("\n" + self.world.describe_observation(observation))
            self._shown = key
        while True:
            line = self.read(f"{observation.agent}> ").strip()
            if not line:
                continue
            if line == "quit":
                raise EOFError("quit")
            try:
                action = self.parse(line, observation)
            except ValueError as exc:
                self.write(f"  {exc}")
                continue
            if action is None:
                continue
            reason = self.world.why_illegal_for(observation, action)
            if reason is not None:
                self.write(f"  not allowed: {reason}")
                continue
            return action

    def parse(self, line: str, obs: TCObservation) -> Any:
        """An action dictionary, or None after a tool command (its output is printed)."""
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"invalid JSON: {exc.msg}") from None
        word, _, rest = line.partition(" ")
        if word in ("pass", "accept", "reject", "done"):
            return {"type": word}
        if word == "help":
            self.write(__doc__)
            return None
        if word == "info":
            self.write(self.tools.item_info(rest))
            return None
        if word == "recipes":
            self.write(self.tools.possible_recipes_from_hands(obs.hand_of(obs.agent)))
            return None
        if word == "craft":
            parts = rest.split()
            if not parts:
                raise ValueError("craft RECIPE [TIMES]")
            return {"type": "craft", "crafts": [{"recipe": parts[0], "times": parts[1] if len(parts) > 1 else "1"}],
                    "done": False}
        if word == "propose":
            tokens = rest.split()
            if not tokens:
                raise ValueError("propose TO offer ITEM=N,... request ITEM=N,... [message TEXT]")
            action: dict[str, Any] = {"type": "propose", "to": tokens[0], "offer": {}, "request": {}, "message": ""}
            k = 1
            while k < len(tokens):
                key = tokens[k]
                if key == "message":
                    action["message"] = " ".join(tokens[k + 1:])
                    break
                if key in ("offer", "request") and k + 1 < len(tokens):
                    for pair in tokens[k + 1].split(","):
                        name, eq, n = pair.partition("=")
                        action[key][name] = int(n) if eq and n.isdigit() else 1
                    k += 2
                    continue
                raise ValueError(f"unexpected {key!r}; expected offer, request or message")
            return action
        raise ValueError(f"unknown command {word!r}; type help")


def stdin_reader(prompt: str) -> str:  # pragma: no cover - interactive
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line
