"""The LLM trader: a language model plays TradeCraft through the LLM layer, reporting its
item values V0 / V1 / V2 on the 0-10 scale at every proposal and decision (seed 002,
Section 3.3) and using the tools ``item_info`` and ``possible_recipes_from_hands``.

Configurations (Section 4): ``tom=0`` reports V0 only (the baseline), ``tom=1`` V0 and
V1, ``tom=2`` V0, V1 and V2. As in the paper, the prompt says what the values mean and
nothing about how to use them: any use of them in proposals and decisions is the model's.

One decision, one to three schema-checked JSON calls (``agents.llm.client``):

* **proposal / decision**: with ``tools=true`` the model first names the tools it wants
  (``{"item_info": [ITEM, ...], "possible_recipes_from_hands": true|false}``); their text
  answers are added to the conversation; then it answers with its value report and its
  action: ``{"V0": {ITEM: 0..10, ...}, "V1": ..., "V2": ..., "action": {"type":
  "propose"|"pass", "to", "offer": {ITEM: N}, "request": {ITEM: N}, "message"}, "note"}`` or
  ``{..., "decision": "accept"|"reject", "note"}``. The schema lists every item in every
  hand, bounds amounts by what is held, and the world checks the action
  (``why_illegal_for``); an illegal one is sent back once with the reason.
* **craft**: the prompt holds the ``possible_recipes_from_hands`` answer for the current
  hand and ``item_info`` of the target; the model answers ``{"crafts": [{"recipe", "times"}],
  "done": true|false}`` (slot choices and fuel are picked automatically), at most
  ``craft_rounds`` times per craft phase. A hand that can craft nothing is done without a call.

``note`` is a short note to itself; the last ``memory`` notes come back in later prompts
(the paper's dialogue memory across turns, kept small for small context windows).

When the model gives no usable answer, the planner trader's action is taken instead
(``agents.tradecraft.trader``, same ToM order) with an ``ErrorEvent`` of kind
``llm_fallback``. A value report is published only with the model's own action: a
``BeliefEvent`` of kind ``tom_values`` in the planner trader's format (item ids as keys,
``"source": "model"``), so ``python main.py tradecraft analyze`` reads both alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from agents.llm.agent import SETTING_PARAMS, Decision, LLMSeat
from agents.llm.client import CallOutcome, LLMClient
from agents.llm.config import load_settings
from agents.llm.server import require_runnable
from agents.tradecraft.trader import TOM_VALUES, PlannerTrader, features
from sim.events import BeliefEvent, ErrorEvent, Event
from sim.seats import SeatContext
from sim.snapshots import LLMTrader as TraderSnapshot, ToMValues
from sim.tradecraft.crafting import possible_recipes, to_hand
from sim.tradecraft.rules import format_amount
from sim.tradecraft.text import observation_text, rules_summary
from sim.tradecraft.tools import TradeCraftTools
from sim.tradecraft.world import (
    CRAFT,
    DONE,
    PROPOSE,
    RESPOND,
    CraftTurn,
    Pass,
    Propose,
    Respond,
    TCObservation,
    TradeCraftWorld,
)

MODULE = "planning"
#: answers need room: a value report names every item in play once per ToM order
DEFAULT_MAX_TOKENS = 1024
MAX_TOOL_ITEMS = 3
MAX_TOOL_CHARS = 1000
MAX_CRAFTS = 4
NOTE_CHARS = 80
MESSAGE_CHARS = 120
MAX_AMOUNT = 16  # amounts offered in a schema enum: 0..min(held, MAX_AMOUNT)
SCALE = list(range(11))
TIMES_PATTERN = r"^[1-9][0-9]*(/[1-9][0-9]*)?$"

SYSTEM = """You are {me}, a player of TradeCraft, a trade-and-craft game ({n} players: {players}; rule set: {rules}).
{rules_summary}
Item names are written without the "{namespace}:" prefix.
Tools: item_info(ITEM) tells how an item is made and what it is used for; possible_recipes_from_hands lists the recipes your hand can craft now.
{values}"""

VALUES = {
    0: "V0: the value of the item for achieving YOUR secret target.",
    1: "V1: the value of the item for achieving {opponent}'s secret target (as you believe that target to be).",
    2: "V2: the value {opponent} believes YOU assign to the item (its estimate of your V0).",
}


def _short(rules: Any, name: str) -> str:
    return rules.display(name)


class LLMTrader(LLMSeat):
    """A TradeCraft trader whose proposals, decisions, crafts and value reports come from a model."""

    kind = "llm-trader"

    def __init__(self, tom: int | None = None, tools: bool = True, memory: int = 4, craft_rounds: int = 2,
                 asynchronous: bool = False, *, order: int | None = None, client: LLMClient | None = None,
                 config: str | None = None, **settings: Any) -> None:
        unknown = sorted(set(settings) - set(SETTING_PARAMS))
        if unknown:
            raise TypeError(f"unknown parameter(s) {', '.join(unknown)}; an llm-trader takes tom (0, 1, 2), tools, "
                            f"memory, craft_rounds, asynchronous, config and {', '.join(SETTING_PARAMS)}")
        if tom is not None and order is not None and tom != order:
            raise ValueError(f"tom={tom} and order={order} disagree (they are the same parameter)")
        level = tom if tom is not None else order if order is not None else 2
        if isinstance(level, bool) or level not in (0, 1, 2):
            raise ValueError(f"tom (the ToM order of the value reports) must be 0, 1 or 2, got {level!r}")
        for name, value, low in (("memory", memory, 0), ("craft_rounds", craft_rounds, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
        self.tom = int(level)
        self.use_tools = bool(tools)
        self.memory = memory
        self.craft_rounds = craft_rounds
        if client is None:
            client = LLMClient(trader_settings(settings, config))
        super().__init__(client=client, asynchronous=asynchronous)
        self.fallback = PlannerTrader(order=self.tom, report=False)
        self.notes: list[str] = []
        self._tick = 0
        self._craft_phase: tuple[int, int] = (-1, 0)  # (turn, rounds asked)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "order": self.tom, "tools": self.use_tools, "memory": self.memory,
                "craft_rounds": self.craft_rounds, "asynchronous": self.asynchronous,
                "model": self.client.settings.model_name, "llm": self.client.describe()}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, TradeCraftWorld):
            raise TypeError(f"the llm-trader plays TradeCraft, not {ctx.world.family}")
        self.world: TradeCraftWorld = ctx.world
        self.rules = self.world.rules
        self.tools = TradeCraftTools.for_world(self.world)
        self.fallback.reset(ctx)
        self.target = self.world.target_of(ctx.agent_id)
        self.notes = []
        self._craft_phase = (-1, 0)

    # ------------------------------------------------------------ deciding

    def prepare(self, observation: TCObservation, legal_actions: Sequence[Any]) -> None:
        self._tick = self.ctx.tick  # read on the Session's thread; decide() may run in a worker

    def decide(self, observation: TCObservation, legal_actions: Sequence[Any]) -> Decision:
        if observation.phase == CRAFT:
            return self._craft(observation, legal_actions)
        if observation.phase in (PROPOSE, RESPOND):
            return self._trade(observation, legal_actions)
        return Decision(action=legal_actions[0] if legal_actions else DONE)

    def _ask(self, messages: list[dict[str, str]], schema: dict[str, Any], name: str,
             check: Any = None) -> CallOutcome:
        return self.client.ask_json(messages, schema, agent=self.ctx.agent_id, module=MODULE, tick=self._tick,
                                    schema_name=name, seed=self.ctx.seed + self._tick, check=check)

    def _fallback(self, observation: TCObservation, legal: Sequence[Any], why: str,
                  events: list[Event]) -> Any:
        action = self.fallback.act(observation, legal)
        events.append(ErrorEvent(tick=self._tick, source=self.ctx.agent_id, kind="llm_fallback",
                                 message=f"{why}; took the planner trader's action "
                                         f"{json.dumps(self.world.encode_action(action))}"))
        return action

    # ------------------------------------------------------------ prompts

    def opponent_of(self, obs: TCObservation) -> str | None:
        """Whom the value reports are about: the proposer when deciding, else the only other
        player (several others: the partner the proposal names)."""
        if obs.phase == RESPOND and obs.pending is not None:
            return obs.pending.proposer
        others = [p for p in obs.players if p != obs.agent]
        return others[0] if len(others) == 1 else None

    def system_prompt(self, obs: TCObservation, opponent: str | None) -> str:
        who = opponent or "the player you trade with this turn"
        values = ""
        if obs.phase in (PROPOSE, RESPOND):
            lines = [VALUES[k].format(opponent=who) for k in range(self.tom + 1)]
            values = ("At every proposal and every decision you report, on a 0-10 scale (0 = useless, "
                      "10 = critical), for every item in all players' hands:\n" + "\n".join(lines))
        return SYSTEM.format(me=obs.agent, n=len(obs.players), players=", ".join(obs.players), rules=self.rules.name,
                             rules_summary=rules_summary(self.world), namespace=self.rules.namespace, values=values).strip()

    def observation_prompt(self, obs: TCObservation) -> str:
        lines = observation_text(self.world, obs).splitlines()
        lines = [line for line in lines if not line.startswith("Answer with one JSON action")]
        if self.memory and self.notes:
            lines.append("Your notes from earlier turns:")
            lines += [f"  {n}" for n in self.notes[-self.memory:]]
        return "\n".join(lines)

    def _remember(self, obs: TCObservation, stage: str, note: Any, did: str) -> None:
        text = " ".join(str(note or "").split())[:NOTE_CHARS]
        self.notes.append(f"turn {obs.turn + 1}, {stage}: {did}" + (f"; note: {text}" if text else ""))
        self.notes = self.notes[-max(1, self.memory):]

    # ------------------------------------------------------------ items

    def items_in_play(self, obs: TCObservation) -> list[str]:
        """Every item in every hand (one's own as it is now), by id."""
        hands = [obs.hand if p == obs.agent else h for p, h in zip(obs.players, obs.hands)]
        return sorted({i for h in hands for i, n in h if n > 0})

    def names(self, items: Sequence[str]) -> dict[str, str]:
        """Short name -> item id (ids stay whole where two namespaces share a short name)."""
        short = [_short(self.rules, i) for i in items]
        if len(set(short)) < len(short):
            return {i: i for i in items}
        return dict(zip(short, items))

    def tool_items(self, obs: TCObservation, items: Sequence[str]) -> list[str]:
        """Items the model may look up: those in play, its target, and what the target's recipes use."""
        wanted = set(items) | set(self.target)
        for target in self.target:
            for recipe in self.rules.by_result.get(target, ()):
                wanted.update(ing.options[0] for ing in recipe.ingredients if ing.options)
        return sorted(wanted)

    # ------------------------------------------------------------ tools

    def _tool_round(self, obs: TCObservation, conversation: list[dict[str, str]], items: Sequence[str],
                    events: list[Event]) -> list[dict[str, Any]]:
        """Let the model choose tools; add their answers to the conversation. Returns the calls made."""
        lookup = self.names(self.tool_items(obs, items))
        schema = {"type": "object", "properties": {
            "item_info": {"type": "array", "maxItems": MAX_TOOL_ITEMS,
                          "items": {"type": "string", "enum": sorted(lookup)}},
            "possible_recipes_from_hands": {"type": "boolean"}},
            "required": ["item_info", "possible_recipes_from_hands"], "additionalProperties": False}
        ask = (f"Before you answer you may use the tools. Name up to {MAX_TOOL_ITEMS} items for item_info and say "
               "whether to run possible_recipes_from_hands, as JSON: "
               '{"item_info": ["ITEM", ...], "possible_recipes_from_hands": true or false} '
               '({"item_info": [], "possible_recipes_from_hands": false} uses no tool).')
        outcome = self._ask(conversation + [{"role": "user", "content": ask}], schema, "tools")
        events += outcome.events
        if not outcome.ok:
            return []
        calls: list[dict[str, Any]] = []
        results = []
        for name in dict.fromkeys(outcome.value["item_info"]):
            text = self.tools.item_info(lookup.get(name, name))
            results.append(f"item_info({name}):\n{_clip(text)}")
            calls.append({"tool": "item_info", "item": lookup.get(name, name)})
        if outcome.value["possible_recipes_from_hands"]:
            text = self.tools.possible_recipes_from_hands(to_hand(obs.hand))
            results.append(f"possible_recipes_from_hands():\n{_clip(text)}")
            calls.append({"tool": "possible_recipes_from_hands"})
        conversation += [{"role": "user", "content": ask},
                         {"role": "assistant", "content": json.dumps(outcome.value)},
                         {"role": "user", "content": "Tool results:\n" + ("\n\n".join(results) or "(no tool used)")}]
        return calls

    # ------------------------------------------------------------ trade phase

    def value_schema(self, names: Sequence[str]) -> dict[str, Any]:
        return {"type": "object", "properties": {n: {"type": "integer", "enum": SCALE} for n in names},
                "required": list(names), "additionalProperties": False}

    def strict(self) -> bool:
        """OpenAI's strict structured output wants every key required; llama.cpp takes optional keys."""
        return self.client.structured_mode() == "json_schema"

    def text_schema(self, limit: int) -> dict[str, Any]:
        """Free text of at most ``limit`` characters. Without strict structured output, also no control
        characters, quotes or backslashes: llama.cpp's grammar lets a raw newline into a JSON string,
        which makes the answer invalid JSON."""
        schema: dict[str, Any] = {"type": "string", "maxLength": limit}
        if not self.strict():
            schema["pattern"] = "^[^\\x00-\\x1f\"\\\\]{0,%d}$" % limit
        return schema

    def amounts_schema(self, hand: Mapping[str, Fraction], lookup: Mapping[str, str]) -> dict[str, Any]:
        """The items of a hand with amounts up to what is held: every key with 0..held when the endpoint
        needs every key required, else only the items traded, 1..held (a shorter answer)."""
        strict = self.strict()
        props = {}
        for name, item in lookup.items():
            held = int(hand.get(item, 0))
            if held >= 1:
                props[name] = {"type": "integer", "enum": list(range(0 if strict else 1, min(held, MAX_AMOUNT) + 1))}
        return {"type": "object", "properties": props, "required": list(props) if strict else [],
                "additionalProperties": False}

    def trade_schema(self, obs: TCObservation, lookup: Mapping[str, str]) -> dict[str, Any]:
        names = sorted(lookup)
        props: dict[str, Any] = {f"V{k}": self.value_schema(names) for k in range(self.tom + 1)}
        if obs.phase == PROPOSE:
            others = [p for p in obs.players if p != obs.agent]
            theirs: dict[str, Fraction] = {}
            for p in others:
                for item, n in obs.hand_of(p).items():
                    theirs[item] = max(theirs.get(item, Fraction(0)), n)
            props["action"] = {"type": "object", "properties": {
                "type": {"type": "string", "enum": ["propose", "pass"]},
                "to": {"type": "string", "enum": others},
                "offer": self.amounts_schema(obs.hand_of(obs.agent), lookup),
                "request": self.amounts_schema(theirs, lookup),
                "message": self.text_schema(MESSAGE_CHARS)},
                "required": ["type", "to", "offer", "request", "message"], "additionalProperties": False}
        else:
            props["decision"] = {"type": "string", "enum": ["accept", "reject"]}
        props["note"] = self.text_schema(NOTE_CHARS)
        return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}

    def trade_template(self, obs: TCObservation, names: Sequence[str]) -> str:
        values = "{" + ", ".join(f'"{n}": 0-10' for n in names) + "}"
        parts = [f'"V{k}": {values}' for k in range(self.tom + 1)]
        if obs.phase == PROPOSE:
            if self.strict():
                amounts = ('"offer": {ITEM: N, ... every item of your hand, 0 = not offered}, "request": {ITEM: N, '
                           '... every item of their hand, 0 = not requested}')
            else:
                amounts = ('"offer": {ITEM: N, ... the items you offer}, "request": {ITEM: N, ... the items you '
                           'request}')
            parts.append(f'"action": {{"type": "propose" or "pass", "to": PLAYER, {amounts}, "message": TEXT}}')
        else:
            parts.append('"decision": "accept" or "reject"')
        parts.append('"note": a short note to yourself for later turns')
        return "{" + ", ".join(parts) + "}"

    def _action_from(self, obs: TCObservation, answer: Mapping[str, Any], lookup: Mapping[str, str]) -> Any:
        if obs.phase == RESPOND:
            return Respond(answer["decision"] == "accept")
        a = answer["action"]
        if a["type"] == "pass":
            return Pass()
        offer = tuple(sorted((lookup[n], int(k)) for n, k in a["offer"].items() if int(k) > 0))
        request = tuple(sorted((lookup[n], int(k)) for n, k in a["request"].items() if int(k) > 0))
        return Propose(a["to"], offer, request, str(a.get("message", ""))[:MESSAGE_CHARS])

    def _trade(self, obs: TCObservation, legal: Sequence[Any]) -> Decision:
        stage = "proposal" if obs.phase == PROPOSE else "decision"
        items = self.items_in_play(obs)
        lookup = self.names(items)
        opponent = self.opponent_of(obs)
        conversation = [{"role": "system", "content": self.system_prompt(obs, opponent)},
                        {"role": "user", "content": self.observation_prompt(obs)}]
        events: list[Event] = []
        calls = self._tool_round(obs, conversation, items, events) if self.use_tools else []
        if obs.phase == PROPOSE:
            task = ("It is your turn to propose one trade (or to pass). Report your values, then give your "
                    "proposal.")
        else:
            task = "Report your values, then accept or reject the proposal made to you."
        ask = f"{task} Answer with one JSON object: {self.trade_template(obs, sorted(lookup))}"

        def check(answer: dict[str, Any]) -> str | None:
            reason = self.world.why_illegal_for(obs, self._action_from(obs, answer, lookup))
            return None if reason is None else f"that action is not allowed: {reason}"

        outcome = self._ask(conversation + [{"role": "user", "content": ask}], self.trade_schema(obs, lookup),
                            f"tradecraft_{stage}", check)
        events += outcome.events
        if not outcome.ok:
            action = self._fallback(obs, legal, f"the model gave no usable {stage} ({outcome.failure})", events)
            self._remember(obs, stage, "", _describe_action(self.world, action) + " (planner fallback)")
            return Decision(action=action, events=events,
                            snapshot=("llm_trader", TraderSnapshot(stage=stage, turn=obs.turn, source="fallback",
                                                              extra={"tools": calls})))
        answer = outcome.value
        action = self._action_from(obs, answer, lookup)
        if opponent is None:  # several others: the report is about the chosen partner
            opponent = action.to if isinstance(action, Propose) else self.world.proposer_of(obs.turn + 1)
        values = {f"V{k}": {lookup[n]: float(v) for n, v in answer[f"V{k}"].items()} for k in range(self.tom + 1)}
        if isinstance(action, Propose):
            receive, give = action.request, action.offer
        elif isinstance(action, Respond):
            receive, give = obs.pending.offer or (), obs.pending.request or ()
        else:
            receive, give = (), ()
        f = features(values, receive, give)
        utility = {k: round(v, 3) for k, v in f.items() if int(k[1]) <= self.tom}
        data = ToMValues(stage=stage, turn=obs.turn, opponent=opponent, order=self.tom, scale=[0, 10],
                         items=items, **values, beliefs={}, utility=utility,
                         action=self.world.encode_action(action),
                         extra={"source": "model", "tools": calls, "note": str(answer.get("note", ""))[:NOTE_CHARS],
                                "model": self.client.settings.model_name})
        events.append(BeliefEvent(tick=self._tick, owner=self.ctx.agent_id, kind=TOM_VALUES, data=data.to_dict()))
        self._remember(obs, stage, answer.get("note"), _describe_action(self.world, action))
        return Decision(action=action, events=events,
                        snapshot=("llm_trader", TraderSnapshot(stage=stage, turn=obs.turn, source="model",
                                                          extra={"tools": calls})))

    # ------------------------------------------------------------ craft phase

    def _craft(self, obs: TCObservation, legal: Sequence[Any]) -> Decision:
        hand = to_hand(obs.hand)
        found = possible_recipes(self.rules, hand, self.world.crafting)
        if not found:
            return Decision(action=DONE)  # nothing can be crafted: no need to ask
        turn, rounds = self._craft_phase
        rounds = rounds + 1 if turn == obs.turn else 1
        self._craft_phase = (obs.turn, rounds)
        last_round = rounds >= self.craft_rounds
        recipes = {_recipe_name(self.rules, r.id): r.id for r, _, _ in found}
        targets = ", ".join(f"{_short(self.rules, i)} * {n}" for i, n in sorted(self.target.items()))
        info = "\n\n".join(_clip(self.tools.item_info(i)) for i in sorted(self.target))
        conversation = [{"role": "system", "content": self.system_prompt(obs, self.opponent_of(obs))},
                        {"role": "user", "content": self.observation_prompt(obs)},
                        {"role": "user", "content":
                            f"Craft phase. Tool results:\npossible_recipes_from_hands():\n"
                            f"{_clip(self.tools.possible_recipes_from_hands(hand))}\n\nitem_info of your target "
                            f"({targets}):\n{info}\n\nChoose the crafts to make now, in order (times may be a fraction "
                            'such as "1/4"; up to the amount the list shows), and say whether you are done crafting '
                            f"for this turn{' (this is your last round: you will be done)' if last_round else ''}. "
                            'Answer with one JSON object: {"crafts": [{"recipe": RECIPE, "times": "1"}, ...], '
                            '"done": true or false}  ({"crafts": [], "done": true} crafts nothing).'}]
        schema = {"type": "object", "properties": {
            "crafts": {"type": "array", "maxItems": MAX_CRAFTS, "items": {
                "type": "object", "properties": {"recipe": {"type": "string", "enum": sorted(recipes)},
                                                 "times": {"type": "string", "pattern": TIMES_PATTERN}},
                "required": ["recipe", "times"], "additionalProperties": False}},
            "done": {"type": "boolean"}}, "required": ["crafts", "done"], "additionalProperties": False}

        def to_action(answer: Mapping[str, Any]) -> dict[str, Any]:
            crafts = [{"recipe": recipes[c["recipe"]], "times": c["times"]} for c in answer["crafts"]]
            return {"type": "craft", "crafts": crafts, "done": bool(answer["done"]) or last_round}

        def check(answer: dict[str, Any]) -> str | None:
            reason = self.world.why_illegal_for(obs, to_action(answer))
            return None if reason is None else f"that craft is not possible: {reason}"

        outcome = self._ask(conversation, schema, "tradecraft_craft", check)
        events: list[Event] = list(outcome.events)
        if not outcome.ok:
            action = self._fallback(obs, legal, f"the model gave no usable craft ({outcome.failure})", events)
            return Decision(action=action, events=events,
                            snapshot=("llm_trader", TraderSnapshot(stage="craft", turn=obs.turn, source="fallback")))
        action = self.world.decode_action(to_action(outcome.value))
        if action.crafts:
            self._remember(obs, "craft", "", _describe_action(self.world, action))
        return Decision(action=action, events=events,
                        snapshot=("llm_trader", TraderSnapshot(stage="craft", turn=obs.turn, source="model",
                                                          extra={"crafts": len(action.crafts), "done": action.done})))


# ---------------------------------------------------------------- helpers

def _clip(text: str, limit: int = MAX_TOOL_CHARS) -> str:
    """A tool answer cut to fit small context windows (whole lines, with a count of the rest)."""
    if len(text) <= limit:
        return text
    lines, size = [], 0
    for line in text.splitlines():
        if size + len(line) + 1 > limit:
            break
        lines.append(line)
        size += len(line) + 1
    rest = len(text.splitlines()) - len(lines)
    return "\n".join(lines) + f"\n... ({rest} more lines)"


def _recipe_name(rules: Any, recipe_id: str) -> str:
    prefix = f"{rules.namespace}:"
    return recipe_id[len(prefix):] if recipe_id.startswith(prefix) else recipe_id


def _describe_action(world: TradeCraftWorld, action: Any) -> str:
    show = world.rules.display
    if isinstance(action, Propose):
        offer = ", ".join(f"{n} {show(i)}" for i, n in action.offer) or "nothing"
        request = ", ".join(f"{n} {show(i)}" for i, n in action.request) or "nothing"
        return f"proposed to {action.to}: offer {offer} for {request}"
    if isinstance(action, Pass):
        return "passed"
    if isinstance(action, Respond):
        return "accepted" if action.accept else "rejected"
    if isinstance(action, CraftTurn):
        crafts = ", ".join(f"{_recipe_name(world.rules, c.recipe)} x{format_amount(c.times)}" for c in action.crafts)
        return f"crafted {crafts or 'nothing'}"
    return str(action)


def trader_settings(params: Mapping[str, Any], config: str | None = None) -> Any:
    """The LLM settings of an llm-trader: like every LLM seat's, except that ``max_tokens`` defaults to
    DEFAULT_MAX_TOKENS when neither the user's files, the environment nor the spec set it (a value
    report over every item in play is longer than the layer's default answer)."""
    overrides = {k: params[k] for k in SETTING_PARAMS if params.get(k) is not None}
    sources: dict[str, str] = {}
    settings = load_settings(config, overrides=overrides, sources=sources)
    if "max_tokens" not in sources and settings.max_tokens < DEFAULT_MAX_TOKENS:
        settings = settings.with_overrides(max_tokens=DEFAULT_MAX_TOKENS)
    return settings


def make_llm_trader(tom: int | None = None, tools: bool = True, memory: int = 4, craft_rounds: int = 2,
                    asynchronous: bool = False, order: int | None = None, config: str | None = None,
                    **settings: Any) -> LLMTrader:
    """Factory for specs such as ``llm-trader:tom=1`` or ``llm-trader:tom=2,model=gpt-4o,base_url=...``.

    Fails early, with the fix, when no endpoint is configured and the embedded model is missing."""
    client = settings.pop("client", None)
    trader = LLMTrader(tom=tom, tools=tools, memory=memory, craft_rounds=craft_rounds, asynchronous=asynchronous,
                       order=order, client=client, config=config, **settings)
    if client is None:
        require_runnable(trader.client.settings)
    return trader
