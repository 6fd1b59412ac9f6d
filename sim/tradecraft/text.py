"""TradeCraft observations as plain text, and the action formats a text player must answer with.

This is the interface of a language-model trader (and of a terminal player): the text of
``observation_text`` plus the tools of ``sim.tradecraft.tools``; the answer is one JSON
action of ``ACTION_FORMATS`` for the current phase, checked with ``world.why_illegal``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.tradecraft.rules import format_amount

if TYPE_CHECKING:
    from sim.tradecraft.world import ProposalView, TCObservation, TradeCraftWorld

ACTION_FORMATS = {
    "propose": ('{"type": "propose", "to": PLAYER, "offer": {ITEM: N, ...}, "request": {ITEM: N, ...}, '
                '"message": TEXT}  or  {"type": "pass"}'),
    "respond": ('{"type": "accept"}  or  {"type": "reject"}  (optionally with "message": TEXT, read by the '
                'proposer only)'),
    "craft": ('{"type": "craft", "crafts": [{"recipe": RECIPE_ID, "times": "1/4", "choices": {SLOT: ITEM}, '
              '"fuel": ITEM}, ...], "done": true}  or  {"type": "done"}; a slot may take several items of its '
              'tag ("choices": {SLOT: {ITEM: N, ITEM: N}}), and a craft may be written {"input": {ITEM: N, ...}, '
              '"output": {ITEM: N}}'),
}

RULES_SUMMARY = (
    "Rules: each turn one proposer (in a fixed rotation) proposes one trade to one player, who accepts or "
    "rejects it (a rejected proposal is seen only by the two of you); then everyone crafts at once. While "
    "crafting, a recipe may be applied at any fractional scale (e.g. times 1/4 makes a quarter of its "
    "inputs into a quarter of its output); at the end of the craft phase every amount is rounded down. "
    "Smelting, blasting and smoking burn 1/8 coal-equivalent of fuel per item. You win by holding your "
    "secret target at the start of a turn. Hands are public; targets are secret.")

ORIGINAL_CRAFTING = (
    "While crafting, every craft must make a whole number of items, and a recipe runs a whole number of times "
    "(a fractional run, such as times 1/4 of 2 planks -> 4 sticks, is accepted only when another recipe makes the "
    "same number of that item in whole runs)")


def rules_summary(world: "TradeCraftWorld") -> str:
    """RULES_SUMMARY adapted to the world's rule options."""
    text = RULES_SUMMARY
    if getattr(world, "crafting", "fractional") == "original":
        start = text.index("While crafting")
        end = text.index("; at the end of the craft phase")
        text = text[:start] + ORIGINAL_CRAFTING + text[end:]
    if len(getattr(world, "agents", ())) > 2 and getattr(world, "rejections", "hidden") == "announced":
        text = text.replace("a rejected proposal is seen only by the two of you",
                            "the others learn only that a proposal was rejected")
    return text


def _items(world: "TradeCraftWorld", pairs) -> str:
    if pairs is None:
        return "(hidden)"
    parts = [f"{world.rules.display(i)} * {format_amount(n)}" for i, n in pairs]
    return "{" + ", ".join(parts) + "}"


def proposal_line(world: "TradeCraftWorld", view: "ProposalView", viewer: str) -> str:
    if view.hidden and view.accepted is False:
        return f"turn {view.turn + 1}: {view.proposer}'s proposal was rejected (partner and contents hidden)"
    if view.hidden:
        return f"turn {view.turn + 1}: {view.proposer}'s turn ended without a trade"
    if view.to is None:
        return f"turn {view.turn + 1}: {view.proposer} made no proposal"
    verdict = {True: "accepted", False: "rejected", None: "awaiting decision"}[view.accepted]
    message = f' message: "{view.message}"' if view.message else ""
    reply = f' (private reply from {view.to}: "{view.reply}")' if view.reply else ""
    return (f"turn {view.turn + 1}: {view.proposer} -> {view.to}: offers {_items(world, view.offer)}, "
            f"requests {_items(world, view.request)}:{message} -> {verdict}{reply}")


def observation_text(world: "TradeCraftWorld", obs: "TCObservation") -> str:
    rules = world.rules
    target = ", ".join(f"{rules.display(i)} * {n}" for i, n in obs.target)
    lines = [f"You are {obs.agent} in a game of TradeCraft ({len(obs.players)} players: "
             f"{', '.join(obs.players)}; rule set: {rules.name}).",
             f"Turn {min(obs.turn + 1, obs.max_turns)} of {obs.max_turns}; phase: {obs.phase}; "
             f"proposer this turn: {obs.proposer}.",
             f"Your secret target: {target}.",
             f"Your hand: {world.hand_text(obs.hand)}",
             "Public hands:"]
    for player, hand in zip(obs.players, obs.hands):
        lines.append(f"  {player}: {world.hand_text(hand)}")
    if obs.history:
        lines.append("Trade history:")
        lines += [f"  {proposal_line(world, v, obs.agent)}" for v in obs.history]
    current = getattr(obs, "current", None)
    if current is not None:
        lines.append(f"This turn: {proposal_line(world, current, obs.agent).split(': ', 1)[1]}")
    if obs.pending is not None:
        p = obs.pending
        message = f' with the message "{p.message}"' if p.message else ""
        lines.append(f"{p.proposer} proposes to you: you receive {_items(world, p.offer)} and give "
                     f"{_items(world, p.request)}{message}.")
    if obs.winners:
        lines.append(f"Winners: {', '.join(obs.winners)}")
    if obs.phase in ACTION_FORMATS:
        lines.append(f"Answer with one JSON action: {ACTION_FORMATS[obs.phase]}")
    return "\n".join(lines)
