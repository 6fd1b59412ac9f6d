"""TradeCraft as a World: trade phase (proposal, decision), then a simultaneous craft phase.

One *turn* of the game takes several world steps:

1. ``propose``: the proposer of the turn (players take turns in a fixed order) acts alone:
   ``{"type": "propose", "to": "bob", "offer": {"coal": 1}, "request": {"stick": 2},
   "message": "..."}`` or ``{"type": "pass"}``. The proposer must hold the offer and the
   partner the request (whole positive amounts).
2. ``respond`` (only after a proposal): the partner acts alone: ``{"type": "accept"}`` or
   ``{"type": "reject"}``, optionally with a ``"message"`` that only the proposer reads. An
   accepted trade swaps the items at once and is public; a rejected one is seen by the two
   players only. Option ``rejections``: ``hidden`` (the paper: the others see the turn end
   without a trade, exactly as after a pass) or ``announced`` (the original server: they learn
   that the proposer's proposal was rejected, not to whom nor what).
3. ``craft``: every player still crafting acts at once:
   ``{"type": "craft", "crafts": [{"recipe": "minecraft:stick", "times": "1/4"}, ...],
   "done": true}``. Crafts apply in order with exact fractions to the player's private
   hand; ``done`` ends that player's phase (``{"type": "done"}`` is short for no crafts and
   done). Others keep seeing the hand as it was until everyone is done (or the phase has
   lasted ``max_craft_steps`` steps); then every hand is floored and revealed.

A player wins when its hand holds its target (every item and amount). The check runs
when a craft phase ends, i.e. at the start of every turn. Rules (``options``):

* ``max_turns`` (15): the game ends without a winner after this many turns;
* ``ties`` (``share``): when several players first hold their targets at the same check,
  ``share`` makes them all winners, ``draw`` makes the game a draw with no winner;
* ``stop`` (``first``): ``first`` ends the game at the first check with a winner, ``all``
  plays on until every player holds its target (or the turn limit), each winner keeping
  the turn it won at;
* ``crafting`` (``fractional``): the scale rule of crafts (``sim.tradecraft.crafting``);
  ``original`` is the original server's;
* ``recipe_list`` (``any_scale``): what the possible_recipes_from_hands tool lists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sim.tradecraft.crafting import (
    FRACTIONAL,
    Craft,
    CraftError,
    HandKey,
    apply_craft,
    craft_from_dict,
    floor_hand,
    hand_key,
    possible_recipes,
    to_hand,
)
from sim.tradecraft.rules import RuleSet, format_amount
from sim.tradecraft.solver import RecipeGraph
from sim.world import AgentId, IllegalAction, StepResult, World, WorldEvent, require_joint

PROPOSE, RESPOND, CRAFT, OVER = "propose", "respond", "craft", "over"
MAX_MESSAGE = 500
PETTINGZOO_TEXT_BYTES = 8192  # observation text for PettingZoo (15 turns of history fit)


# ------------------------------------------------------------------- actions

@dataclass(frozen=True, slots=True)
class Proposal:
    """``proposer`` offers ``offer`` to ``to`` and asks ``request`` in return (whole amounts)."""

    proposer: AgentId
    to: AgentId
    offer: tuple[tuple[str, int], ...]
    request: tuple[tuple[str, int], ...]
    message: str = ""

    def key(self) -> tuple:
        return (self.proposer, self.to, self.offer, self.request, self.message)

    def to_dict(self) -> dict[str, Any]:
        return {"proposer": self.proposer, "to": self.to, "offer": dict(self.offer),
                "request": dict(self.request), "message": self.message}


@dataclass(frozen=True, slots=True)
class Propose:
    to: AgentId
    offer: tuple[tuple[str, int], ...]
    request: tuple[tuple[str, int], ...]
    message: str = ""


@dataclass(frozen=True, slots=True)
class Pass:
    """The proposer makes no proposal this turn."""


@dataclass(frozen=True, slots=True)
class Respond:
    accept: bool
    message: str = ""  # read by the proposer only


@dataclass(frozen=True, slots=True)
class CraftTurn:
    crafts: tuple[Craft, ...] = ()
    done: bool = True


Action = Propose | Pass | Respond | CraftTurn
DONE = CraftTurn((), True)


# -------------------------------------------------------------------- states

@dataclass(frozen=True, slots=True)
class TurnRecord:
    """What happened in one finished turn (the state keeps every turn; observations filter)."""

    turn: int
    proposer: AgentId
    proposal: Proposal | None
    accepted: bool | None
    hands_before_craft: tuple[HandKey, ...]  # after the trade
    hands_after_craft: tuple[HandKey, ...]  # floored
    reply: str = ""  # the partner's message with its decision (proposer and partner only)

    def key(self) -> tuple:
        return (self.turn, self.proposer, self.proposal.key() if self.proposal else None, self.accepted,
                _hands_key(self.hands_before_craft), _hands_key(self.hands_after_craft), self.reply)


@dataclass(frozen=True, slots=True)
class TCState:
    t: int
    turn: int
    phase: str
    hands: tuple[HandKey, ...]  # the truth (private during a craft phase)
    public_hands: tuple[HandKey, ...]  # what everyone sees
    proposal: Proposal | None  # this turn's proposal
    accepted: bool | None
    crafting: tuple[bool, ...]  # still crafting (craft phase)
    craft_steps: int
    history: tuple[TurnRecord, ...]
    win_turn: tuple[int, ...]  # turn at whose start a player first held its target, -1 if never
    draw: bool = False
    reply: str = ""  # this turn's decision message

    def key(self) -> tuple:
        return (self.t, self.turn, self.phase, _hands_key(self.hands), _hands_key(self.public_hands),
                self.proposal.key() if self.proposal else None, self.accepted, self.crafting, self.craft_steps,
                tuple(r.key() for r in self.history), self.win_turn, self.draw, self.reply)


def _hands_key(hands: Sequence[HandKey]) -> tuple:
    return tuple(tuple((i, n.numerator, n.denominator) for i, n in h) for h in hands)


# -------------------------------------------------------------- observations

@dataclass(frozen=True, slots=True)
class ProposalView:
    """A proposal as one player saw it. ``hidden``: the viewer was not part of it and it was
    rejected (or, with rejections hidden, the turn ended without a trade): ``to`` and the
    contents are None. ``reply``: the partner's message with its decision (the two only)."""

    turn: int
    proposer: AgentId
    to: AgentId | None
    offer: tuple[tuple[str, int], ...] | None
    request: tuple[tuple[str, int], ...] | None
    message: str | None
    accepted: bool | None  # None: passed (no proposal) or still awaiting the decision
    hidden: bool = False
    reply: str | None = None

    def key(self) -> tuple:
        return (self.turn, self.proposer, self.to, self.offer, self.request, self.message, self.accepted,
                self.hidden, self.reply)


@dataclass(frozen=True, slots=True)
class TCObservation:
    """What one player perceives: every public hand, its own current hand and target, the
    phase, and the trade history it is allowed to see."""

    agent: AgentId
    players: tuple[AgentId, ...]
    turn: int
    max_turns: int
    phase: str
    proposer: AgentId
    target: tuple[tuple[str, int], ...]
    hand: HandKey  # own, current (crafts of this phase included)
    hands: tuple[HandKey, ...]  # everyone's public hands (own included as others see it)
    initial_hands: tuple[HandKey, ...]
    pending: ProposalView | None  # the proposal awaiting this player's decision
    history: tuple[ProposalView, ...]  # past turns' proposals as this player saw them
    hands_history: tuple[tuple[tuple[HandKey, ...], tuple[HandKey, ...]], ...]  # (before, after) craft, per turn
    crafting: bool
    winners: tuple[AgentId, ...]
    current: ProposalView | None = None  # this turn's decided proposal as this player sees it (craft phase)

    def key(self) -> tuple:
        return (self.agent, self.turn, self.phase, self.proposer, self.target, _hands_key([self.hand]),
                _hands_key(self.hands), self.pending.key() if self.pending else None,
                tuple(v.key() for v in self.history), self.crafting, self.winners,
                self.current.key() if self.current else None)

    def hand_of(self, player: AgentId) -> dict[str, Fraction]:
        if player == self.agent:
            return to_hand(self.hand)
        return to_hand(self.hands[self.players.index(player)])


# ---------------------------------------------------------------------- world

class TradeCraftWorld(World[TCState, Action, TCObservation]):
    family = "tradecraft"
    legal_actions_exhaustive = False  # legal_actions is a sample: other amounts and scales are legal too

    def __init__(self, spec: dict[str, Any], rules: RuleSet | None = None) -> None:
        from sim.tradecraft.instance import ruleset_for  # the instance module validates the spec

        self._spec = spec
        self.name: str = spec["name"]
        self.rules: RuleSet = rules or ruleset_for(spec)
        self.graph = graph_for(self.rules)
        self._agents = tuple(spec["players"])
        self.agent_index = {a: i for i, a in enumerate(self._agents)}
        self.targets: tuple[tuple[tuple[str, int], ...], ...] = tuple(
            tuple(sorted((item, int(n)) for item, n in t.items())) for t in spec["targets"])
        opts = spec.get("options", {})
        self.max_turns: int = int(opts.get("max_turns", 15))
        self.ties: str = opts.get("ties", "share")
        self.stop: str = opts.get("stop", "first")
        self.max_craft_steps: int = int(opts.get("max_craft_steps", 32))
        self.crafting: str = opts.get("crafting", FRACTIONAL)
        self.rejections: str = opts.get("rejections", "hidden")
        self.recipe_list: str = opts.get("recipe_list", "any_scale")
        hands = tuple(hand_key(to_hand(h)) for h in spec["hands"])
        n = len(self._agents)
        self._initial = TCState(t=0, turn=0, phase=PROPOSE, hands=hands, public_hands=hands, proposal=None,
                                accepted=None, crafting=(False,) * n, craft_steps=0, history=(),
                                win_turn=(-1,) * n)

    # ----------------------------------------------------------- basics

    @property
    def agents(self) -> tuple[AgentId, ...]:
        return self._agents

    def reset(self, seed: int) -> TCState:
        return self._initial  # the instance fixes hands and targets; seeds drive the traders

    def proposer_of(self, turn: int) -> AgentId:
        return self._agents[turn % len(self._agents)]

    def target_of(self, agent: AgentId) -> dict[str, int]:
        return dict(self.targets[self.agent_index[agent]])

    def active_agents(self, state: TCState) -> tuple[AgentId, ...]:
        if state.phase == PROPOSE:
            return (self.proposer_of(state.turn),)
        if state.phase == RESPOND and state.proposal is not None:
            return (state.proposal.to,)
        if state.phase == CRAFT:
            return tuple(a for a, busy in zip(self._agents, state.crafting) if busy)
        return ()

    def done(self, state: TCState) -> bool:
        return state.phase == OVER

    def tick_of(self, state: TCState) -> int:
        return state.t

    def state_key(self, state: TCState) -> tuple:
        return state.key()

    def spec(self) -> dict[str, Any]:
        return self._spec

    # ---------------------------------------------------------- actions

    def decode_action(self, data: Any) -> Action:
        """An action from its JSON form (item and recipe names may omit the namespace)."""
        if isinstance(data, (Propose, Pass, Respond, CraftTurn)):
            return data
        if not isinstance(data, Mapping):
            raise IllegalAction(f"expected an action object with a 'type', got {data!r}")
        kind = data.get("type")
        if kind == "propose":
            to = data.get("to")
            if not isinstance(to, str):
                raise IllegalAction("propose: field 'to' must name another player")
            message = data.get("message", "") or ""
            if not isinstance(message, str):
                raise IllegalAction("propose: field 'message' must be text")
            return Propose(to, self._amounts(data.get("offer", {}), "offer"),
                           self._amounts(data.get("request", {}), "request"), message[:MAX_MESSAGE])
        if kind == "pass":
            return Pass()
        if kind in ("accept", "reject", "respond"):
            message = data.get("message", "") or ""
            if not isinstance(message, str):
                raise IllegalAction(f"{kind}: field 'message' must be text")
            accept = kind == "accept" if kind != "respond" else bool(data.get("accept"))
            return Respond(accept, message[:MAX_MESSAGE])
        if kind == "done":
            return DONE
        if kind == "craft":
            raw = data.get("crafts", [])
            if isinstance(raw, Mapping):
                raw = [raw]
            if not isinstance(raw, list):
                raise IllegalAction("craft: field 'crafts' must be a list of crafts")
            try:
                crafts = tuple(craft_from_dict(self.rules, c, f"crafts[{k}]") for k, c in enumerate(raw))
            except CraftError as exc:
                raise IllegalAction(f"craft: {exc}") from None
            return CraftTurn(crafts, bool(data.get("done", True)))
        raise IllegalAction(f"unknown action type {kind!r}; expected propose, pass, accept, reject, craft or done")

    def _amounts(self, value: Any, field: str) -> tuple[tuple[str, int], ...]:
        if value is None:
            return ()
        if not isinstance(value, Mapping):
            raise IllegalAction(f"propose: field '{field}' must map items to whole amounts, got {value!r}")
        out: dict[str, int] = {}
        for name, n in value.items():
            try:
                item = self.rules.resolve(str(name))
            except KeyError as exc:
                raise IllegalAction(f"propose: {field}: {exc.args[0]}") from None
            if isinstance(n, bool) or not isinstance(n, (int, float)) or n != int(n) or n < 1:
                raise IllegalAction(f"propose: {field}.{name}: expected a whole amount of at least 1, got {n!r}")
            out[item] = out.get(item, 0) + int(n)
        return tuple(sorted(out.items()))

    def encode_action(self, action: Action) -> dict[str, Any]:
        if isinstance(action, Mapping):
            action = self.decode_action(action)
        if isinstance(action, Propose):
            return {"type": "propose", "to": action.to, "offer": dict(action.offer), "request": dict(action.request),
                    "message": action.message}
        if isinstance(action, Pass):
            return {"type": "pass"}
        if isinstance(action, Respond):
            out = {"type": "accept" if action.accept else "reject"}
            if action.message:
                out["message"] = action.message
            return out
        if isinstance(action, CraftTurn):
            return {"type": "craft", "crafts": [c.to_dict() for c in action.crafts], "done": action.done}
        raise IllegalAction(f"not a TradeCraft action: {action!r}")

    def why_illegal(self, state: TCState, agent: AgentId, action: Any) -> str | None:
        """None when ``action`` is legal for ``agent`` in ``state``, else the reason (for people and models)."""
        try:
            action = self.decode_action(action)
        except IllegalAction as exc:
            return str(exc)
        if agent not in self.agent_index:
            return f"unknown player {agent!r}"
        return self._why(state.phase, agent, self.active_agents(state), state.hands, action)

    def why_illegal_for(self, obs: TCObservation, action: Any) -> str | None:
        """The same check from a player's observation (what a seat can do without the state)."""
        try:
            action = self.decode_action(action)
        except IllegalAction as exc:
            return str(exc)
        me = obs.agent
        active = {PROPOSE: (obs.proposer,), RESPOND: (me,) if obs.pending is not None else (),
                  CRAFT: (me,) if obs.crafting else ()}.get(obs.phase, ())
        hands = tuple(obs.hand if p == me else h for p, h in zip(obs.players, obs.hands))
        return self._why(obs.phase, me, active, hands, action)

    def _why(self, phase: str, agent: AgentId, active: Sequence[AgentId], hands: Sequence[HandKey],
             action: Action) -> str | None:
        if agent not in active:
            return f"it is not {agent}'s move (phase {phase})"
        a = self.agent_index[agent]
        state_hands = hands
        if phase == PROPOSE:
            if isinstance(action, Pass):
                return None
            if not isinstance(action, Propose):
                return "the proposer must propose or pass"
            if action.to == agent or action.to not in self.agent_index:
                return f"'to' must be another player: one of {', '.join(p for p in self._agents if p != agent)}"
            if not action.offer and not action.request:
                return "a proposal must offer or request at least one item"
            mine, theirs = to_hand(state_hands[a]), to_hand(state_hands[self.agent_index[action.to]])
            for item, n in action.offer:
                if mine.get(item, 0) < n:
                    return f"offer: {agent} holds {format_amount(mine.get(item, 0))} {self.rules.display(item)}, not {n}"
            for item, n in action.request:
                if theirs.get(item, 0) < n:
                    return (f"request: {action.to} holds {format_amount(theirs.get(item, 0))} "
                            f"{self.rules.display(item)}, not {n}")
            return None
        if phase == RESPOND:
            return None if isinstance(action, Respond) else "the partner must accept or reject"
        if phase == CRAFT:
            if not isinstance(action, CraftTurn):
                return "in the craft phase, craft (with done true or false) or be done"
            hand = to_hand(state_hands[a])
            for k, craft in enumerate(action.crafts):
                try:
                    hand = apply_craft(self.rules, hand, craft, self.crafting)
                except CraftError as exc:
                    return f"crafts[{k}]: {exc}"
            return None
        return "the game is over"

    def is_legal(self, state: TCState, agent: AgentId, action: Any) -> bool:
        return self.why_illegal(state, agent, action) is None

    def legal_actions(self, state: TCState, agent: AgentId) -> tuple[Action, ...]:
        """A finite, representative set: pass and every one-for-one swap; reject/accept; done and
        each possible recipe at scale 1 (or its largest possible scale below 1). Any other legal
        action is accepted too (``is_legal`` checks the rules, not this list)."""
        if agent not in self.active_agents(state):
            return ()
        a = self.agent_index[agent]
        if state.phase == PROPOSE:
            mine = [i for i, n in state.hands[a] if n >= 1]
            out: list[Action] = [Pass()]
            for b, other in enumerate(self._agents):
                if b == a:
                    continue
                theirs = [i for i, n in state.hands[b] if n >= 1]
                out += [Propose(other, ((i, 1),), ((j, 1),)) for i in mine for j in theirs if i != j]
            return tuple(out)
        if state.phase == RESPOND:
            return (Respond(False), Respond(True))
        if state.phase == CRAFT:
            hand = to_hand(state.hands[a])
            out = [DONE]
            for _recipe, times, craft in possible_recipes(self.rules, hand, self.crafting):
                scale = min(times, Fraction(1))
                out.append(CraftTurn((dataclasses.replace(craft, times=scale),), False))
            return tuple(out)
        return ()

    def fallback_action(self, state: TCState, agent: AgentId) -> Action:
        """Pass, reject, or finish crafting: always legal and never gives anything away."""
        if state.phase == PROPOSE:
            return Pass()
        if state.phase == RESPOND:
            return Respond(False)
        if state.phase == CRAFT:
            return DONE
        raise IllegalAction(f"{agent} has no legal action: the game is over")

    # ------------------------------------------------------------- step

    def step(self, state: TCState, joint_action: Mapping[AgentId, Any]) -> StepResult[TCState]:
        active = require_joint(self, state, joint_action)
        actions = {a: self.decode_action(x) for a, x in joint_action.items()}
        for agent in active:
            reason = self.why_illegal(state, agent, actions[agent])
            if reason is not None:
                raise IllegalAction(f"{agent}: {reason}")
        t = state.t + 1
        if state.phase == PROPOSE:
            agent = active[0]
            action = actions[agent]
            if isinstance(action, Pass):
                return StepResult(self._to_craft(state, t, None, None), (WorldEvent("pass", agent, {}),))
            assert isinstance(action, Propose)  # why_illegal lets only a Propose or a Pass through
            made = Proposal(agent, action.to, action.offer, action.request, action.message)
            new = _replace(state, t=t, phase=RESPOND, proposal=made, accepted=None)
            return StepResult(new, (WorldEvent("proposal", agent, made.to_dict()),))
        if state.phase == RESPOND:
            agent = active[0]
            response = actions[agent]
            proposal = state.proposal
            assert isinstance(response, Respond) and proposal is not None  # checked by why_illegal
            accept, reply = response.accept, response.message
            hands = state.hands
            if accept:
                hands = self._swap(hands, proposal)
            data = {"proposer": proposal.proposer, "to": proposal.to, "accepted": accept}
            if reply:
                data["message"] = reply
            event = WorldEvent("trade" if accept else "rejected", agent, data)
            moved = _replace(state, hands=hands, public_hands=hands, reply=reply)
            return StepResult(self._to_craft(moved, t, proposal, accept), (event,))
        if state.phase == CRAFT:
            new_hands = list(state.hands)
            crafting = list(state.crafting)
            events = []
            for agent in active:
                a = self.agent_index[agent]
                action = actions[agent]
                assert isinstance(action, CraftTurn)  # checked by why_illegal
                hand = to_hand(new_hands[a])
                for craft in action.crafts:
                    hand = apply_craft(self.rules, hand, craft, self.crafting)
                new_hands[a] = hand_key(hand)
                if action.crafts:
                    events.append(WorldEvent("craft", agent, {"crafts": [c.to_dict() for c in action.crafts]}))
                if action.done:
                    crafting[a] = False
            steps = state.craft_steps + 1
            if any(crafting) and steps < self.max_craft_steps:
                return StepResult(_replace(state, t=t, hands=tuple(new_hands), crafting=tuple(crafting),
                                           craft_steps=steps), tuple(events))
            end, end_events = self._end_turn(state, t, tuple(new_hands))
            return StepResult(end, tuple(events) + end_events)
        raise IllegalAction("the game is over")

    def _swap(self, hands: tuple[HandKey, ...], p: Proposal) -> tuple[HandKey, ...]:
        a, b = self.agent_index[p.proposer], self.agent_index[p.to]
        ha, hb = to_hand(hands[a]), to_hand(hands[b])
        for item, n in p.offer:
            ha[item] -= n
            hb[item] = hb.get(item, Fraction(0)) + n
        for item, n in p.request:
            hb[item] -= n
            ha[item] = ha.get(item, Fraction(0)) + n
        out = list(hands)
        out[a], out[b] = hand_key(ha), hand_key(hb)
        return tuple(out)

    def _to_craft(self, state: TCState, t: int, proposal: Proposal | None, accepted: bool | None) -> TCState:
        return _replace(state, t=t, phase=CRAFT, proposal=proposal, accepted=accepted,
                        crafting=(True,) * len(self._agents), craft_steps=0)

    def _end_turn(self, state: TCState, t: int, hands: tuple[HandKey, ...]) -> tuple[TCState, tuple[WorldEvent, ...]]:
        floored = tuple(hand_key(floor_hand(to_hand(h))) for h in hands)
        record = TurnRecord(state.turn, self.proposer_of(state.turn), state.proposal, state.accepted,
                            state.public_hands, floored, state.reply)
        turn = state.turn + 1
        holding = [self.holds_target(h, a) for a, h in enumerate(floored)]
        win_turn = list(state.win_turn)
        newly = [a for a, ok in enumerate(holding) if ok and win_turn[a] < 0]
        events = [WorldEvent("craft_phase_end", None, {"turn": state.turn})]
        draw = False
        if newly:
            if self.ties == "draw" and len(newly) > 1 and not any(w >= 0 for w in win_turn):
                draw = True
                events.append(WorldEvent("draw", None, {"players": [self._agents[a] for a in newly]}))
            else:
                for a in newly:
                    win_turn[a] = turn
                    events.append(WorldEvent("win", self._agents[a], {"turn": turn}))
        over = draw or turn >= self.max_turns
        if self.stop == "first":
            over = over or any(w >= 0 for w in win_turn)
        else:
            over = over or all(w >= 0 for w in win_turn)
        new = TCState(t=t, turn=turn, phase=OVER if over else PROPOSE, hands=floored, public_hands=floored,
                      proposal=None, accepted=None, crafting=(False,) * len(self._agents), craft_steps=0,
                      history=state.history + (record,), win_turn=tuple(win_turn), draw=draw)
        if over:
            events.append(WorldEvent("game_over", None, {"winners": self.winners(new), "draw": draw}))
        return new, tuple(events)

    def holds_target(self, hand: HandKey | Mapping[str, Fraction], a: int) -> bool:
        h = hand if isinstance(hand, Mapping) else to_hand(hand)
        return all(h.get(item, 0) >= n for item, n in self.targets[a])

    def winners(self, state: TCState) -> list[AgentId]:
        return [self._agents[a] for a, w in enumerate(state.win_turn) if w >= 0]

    # --------------------------------------------------------- observing

    def observe(self, state: TCState, agent: AgentId) -> TCObservation:
        a = self.agent_index[agent]
        history = tuple(self.proposal_view(r.turn, r.proposer, r.proposal, r.accepted, agent, r.reply)
                        for r in state.history)
        pending = current = None
        if state.phase == RESPOND and state.proposal is not None and state.proposal.to == agent:
            pending = self.proposal_view(state.turn, state.proposal.proposer, state.proposal, None, agent)
        if state.phase == CRAFT:
            current = self.proposal_view(state.turn, self.proposer_of(state.turn), state.proposal, state.accepted,
                                         agent, state.reply)
        return TCObservation(
            agent=agent, players=self._agents, turn=state.turn, max_turns=self.max_turns, phase=state.phase,
            proposer=self.proposer_of(state.turn), target=self.targets[a], hand=state.hands[a],
            hands=state.public_hands, initial_hands=self._initial.hands, pending=pending, history=history,
            hands_history=tuple((r.hands_before_craft, r.hands_after_craft) for r in state.history),
            crafting=state.phase == CRAFT and state.crafting[a], winners=tuple(self.winners(state)),
            current=current)

    def proposal_view(self, turn: int, proposer: AgentId, p: Proposal | None, accepted: bool | None,
                      viewer: AgentId | None, reply: str = "") -> ProposalView:
        """A turn's proposal as ``viewer`` may see it (None: everything, for a spectator or a replay).

        The proposer and the partner see everything, the decision message too. The others see an
        accepted trade without the message; a rejected one not at all with ``rejections`` hidden
        (the turn looks like a pass, and a pass looks the same to them), or as "rejected", without
        partner and contents, with ``rejections`` announced."""
        involved = viewer is None or viewer == proposer or (p is not None and viewer == p.to)
        if p is None:
            if involved or self.rejections == "announced":
                return ProposalView(turn, proposer, None, None, None, None, None)
            return ProposalView(turn, proposer, None, None, None, None, None, hidden=True)
        if involved:
            return ProposalView(turn, proposer, p.to, p.offer, p.request, p.message, accepted,
                                reply=reply if accepted is not None else None)
        if accepted is False and self.rejections == "announced":
            return ProposalView(turn, proposer, None, None, None, None, False, hidden=True)
        if accepted is not True:  # rejected, or still awaiting the decision (it may yet be rejected)
            return ProposalView(turn, proposer, None, None, None, None, None, hidden=True)
        return ProposalView(turn, proposer, p.to, p.offer, p.request, p.message, accepted)

    _view = proposal_view

    def outcome(self, state: TCState) -> dict[str, Any]:
        winners = self.winners(state)
        accepted = sum(1 for r in state.history if r.accepted)
        proposals = sum(1 for r in state.history if r.proposal is not None)
        return {"success": bool(winners), "winners": winners, "draw": state.draw,
                "win_turn": {a: (w if w >= 0 else None) for a, w in zip(self._agents, state.win_turn)},
                "turns": state.turn, "length": state.t if winners else None, "ticks": state.t,
                "proposals": proposals, "trades": accepted,
                "holding_target": {a: self.holds_target(state.hands[i], i) for i, a in enumerate(self._agents)}}

    # ------------------------------------------- PettingZoo hooks (sim/pettingzoo.py)

    def pettingzoo_actions(self) -> list[Action]:
        """A fixed, finite action list, built like ``legal_actions``'s sample but over the whole
        instance: pass, reject, accept, done; every one-for-one swap of two different items
        of the instance (initial hands and targets) with every player; every recipe on a route
        from the initial items to a target, once at scale 1 and, when it makes several units,
        once at the scale that makes one unit. Amounts and recipes outside it are not
        reachable through PettingZoo."""
        items = sorted({i for hand in self._initial.hands for i, _ in hand} | {i for t in self.targets for i, _ in t})
        out: list[Action] = [Pass(), Respond(False), Respond(True), DONE]
        for other in self._agents:
            out += [Propose(other, ((i, 1),), ((j, 1),)) for i in items for j in items if i != j]
        reach = self.graph.closure({i for hand in self._initial.hands for i, _ in hand})
        recipes = {}
        for target in sorted({i for t in self.targets for i, _ in t}):
            for recipe in self.graph.backward(target)[1]:
                if recipe.result in reach and all(any(o in reach for o in ing.options) for ing in recipe.ingredients):
                    recipes[recipe.id] = recipe
        for recipe_id, recipe in sorted(recipes.items()):
            scales = [Fraction(1)] + ([Fraction(1, recipe.count)] if recipe.count > 1 else [])
            out += [CraftTurn((Craft(recipe_id, scale),), False) for scale in scales]
        return out

    def pettingzoo_observation_space(self, agent: AgentId) -> Any:
        from sim.pettingzoo import text_space
        return text_space(PETTINGZOO_TEXT_BYTES)

    def pettingzoo_observation(self, observation: TCObservation, agent: AgentId) -> Any:
        """The text a language-model trader reads, as UTF-8 bytes."""
        from sim.pettingzoo import encode_text
        return encode_text(self.describe_observation(observation), PETTINGZOO_TEXT_BYTES)

    def pettingzoo_truncated(self, state: TCState) -> bool:
        """Over at the turn limit without a winner or a draw."""
        return not self.winners(state) and not state.draw

    # ---------------------------------------------------------- text

    def hand_text(self, hand: HandKey | Mapping[str, Fraction | int]) -> str:
        pairs = hand.items() if isinstance(hand, Mapping) else hand
        parts = [f"{self.rules.display(i)} * {format_amount(n)}" for i, n in sorted(pairs)]
        return ", ".join(parts) if parts else "(empty)"

    def render_text(self, state: TCState) -> str:
        lines = [f"{self.name} ({self.rules.name})  turn {state.turn + 1 if state.phase != OVER else state.turn}"
                 f"/{self.max_turns}  phase: {state.phase}"
                 + (f"  proposer: {self.proposer_of(state.turn)}" if state.phase != OVER else "")]
        for a, agent in enumerate(self._agents):
            target = ", ".join(f"{self.rules.display(i)} * {n}" for i, n in self.targets[a])
            status = " (wins)" if state.win_turn[a] >= 0 else ""
            lines.append(f"{agent}: {self.hand_text(state.hands[a])}  | target {target}{status}")
        if state.proposal is not None:
            p = state.proposal
            verdict = {None: "awaiting decision", True: "accepted", False: "rejected"}[state.accepted]
            lines.append(f"proposal {p.proposer} -> {p.to}: offers {self.hand_text(dict(p.offer))}, "
                         f"requests {self.hand_text(dict(p.request))} ({verdict})")
        if state.phase == OVER:
            lines.append("winners: " + (", ".join(self.winners(state)) or ("draw" if state.draw else "none")))
        return "\n".join(lines)

    def describe_observation(self, obs: TCObservation) -> str:
        """The observation as plain text for a language model or a terminal player."""
        from sim.tradecraft.text import observation_text
        return observation_text(self, obs)


def _replace(state: TCState, **changes: Any) -> TCState:
    values = {name: getattr(state, name) for name in TCState.__dataclass_fields__}
    values.update(changes)
    return TCState(**values)


_GRAPHS: dict[int, RecipeGraph] = {}


def graph_for(rules: RuleSet) -> RecipeGraph:
    """One RecipeGraph (and its caches) per loaded rule set."""
    graph = _GRAPHS.get(id(rules))
    if graph is None or graph.rules is not rules:
        graph = _GRAPHS[id(rules)] = RecipeGraph(rules)
    return graph
