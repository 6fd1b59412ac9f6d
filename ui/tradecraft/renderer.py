"""The TradeCraft board in the world view: every hand with item icons, targets, proposer and
phase, the proposal of the turn, and the trade history.

What a seat may not see stays hidden when the view is drawn with that seat's eyes
(``Overlays.viewer``; the window picks the seat a person plays, or the one chosen in View >
View as): the other players' targets, and their crafts until the craft phase ends (their
public hands are shown). Watching agents or a replay, everything is shown: every target, and
every hand as it really is, fractions included, with "crafting (private)" on the hands others
cannot see yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pygame

from sim.tradecraft.rules import format_amount
from sim.tradecraft.world import CRAFT, OVER, PROPOSE, RESPOND, Pass, Propose, Respond, TCState, TradeCraftWorld
from ui.render.base import KeyBinding, Overlays
from ui.render.board import BG, BLUE, CARD, CARD_ACTIVE, GOLD, GREEN, MUTED, RED, TEXT, BoardRenderer
from ui.tradecraft.icons import item_icon

PHASE_NAMES = {PROPOSE: "proposal", RESPOND: "decision", CRAFT: "craft phase", OVER: "game over"}


def amount_text(n: Fraction | int) -> str:
    return format_amount(Fraction(n))


def turn_number(turn: int, phase: str, max_turns: int) -> int:
    """The turn to show: the one being played, or after the game the number of turns played
    (the board's header and the map's title say the same)."""
    return max(1, turn) if phase == OVER else min(turn + 1, max_turns)


def items_text(world: TradeCraftWorld, pairs: Any) -> str:
    """"2 paper, 1 blaze rod" (or "nothing", or "hidden")."""
    if pairs is None:
        return "hidden"
    return ", ".join(f"{amount_text(n)} {world.rules.display(i).replace('_', ' ')}" for i, n in pairs) or "nothing"


def trade_line(world: TradeCraftWorld, view: Any) -> str:
    """One trade of the history in plain words: "turn 2: alice offered bob 1 blaze rod for 1
    leather (accepted)"."""
    if getattr(view, "hidden", False):
        from sim.tradecraft.text import proposal_line
        return proposal_line(world, view, "")
    if view.to is None:
        return f"turn {view.turn + 1}: {view.proposer} made no proposal"
    verdict = {True: "accepted", False: "rejected", None: "awaiting decision"}[view.accepted]
    message = f" — “{view.message}”" if view.message else ""
    return (f"turn {view.turn + 1}: {view.proposer} offered {view.to} {items_text(world, view.offer)} for "
            f"{items_text(world, view.request)} ({verdict}){message}")


def current_trade(world: TradeCraftWorld, state: TCState, viewer: str | None) -> Any:
    """The proposal of the turn being played as ``viewer`` may see it (None when there is none yet):
    the trade history only holds finished turns, so this is the latest trade during the craft phase."""
    from sim.tradecraft.world import ProposalView

    proposer = world.proposer_of(state.turn)
    p = state.proposal
    if state.phase == PROPOSE:
        return None
    if p is None and viewer is None:
        return ProposalView(state.turn, proposer, None, None, None, None, None)
    return world.proposal_view(state.turn, proposer, p, state.accepted, viewer, state.reply)  # the rules' secrets


class TradeCraftRenderer(BoardRenderer):
    family = "tradecraft"
    world: TradeCraftWorld

    def __init__(self, world: TradeCraftWorld) -> None:
        super().__init__(world)
        #: (player, item, rect) of every hand tile drawn in the last frame (tests, clicks)
        self.slots: list[tuple[str, str, pygame.Rect]] = []
        #: player -> rect of its card in the last frame
        self.cards: dict[str, pygame.Rect] = {}
        #: player -> whether its target was drawn in the last frame (else "secret")
        self.targets_shown: dict[str, bool] = {}
        self.icon = 32
        self.compact = False
        #: the trade history lines drawn in the last frame (tests)
        self.history_lines: list[str] = []

    # ------------------------------------------------------------- layout

    def layout(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.tile = 1
        self.origin = (0, 0)
        n = len(self.world.agents)
        # icons as large as fit: a card per player plus the title, proposal and history strips
        spare = height - 40 - 70 - 60
        per_card = max(60, spare // max(1, n))
        self.icon = 48 if per_card >= 150 and width >= 900 else 32 if per_card >= 96 else 24
        #: small pictures (the Session panel's preview): icons and amounts only
        self.compact = height < 300
        if self.compact:
            self.icon = 20 if height >= 150 else 16
        self.on_layout()

    # ------------------------------------------------------------- drawing

    def draw(self, surface: pygame.Surface, state: TCState, previous: Any = None, alpha: float = 1.0,
             overlays: Overlays = Overlays()) -> None:
        surface.fill(BG)
        self.slots = []
        self.cards = {}
        self.targets_shown = {}
        w = self.world
        width = self.width
        pad = max(6, width // 120)
        y = self._draw_title(surface, state, pad)
        history_h = 0 if self.height < 360 else min(4, len(state.history)) * 18 + (22 if state.history else 0)
        proposal_h = 72 if state.proposal is not None or state.phase in (PROPOSE, RESPOND) else 0
        if self.compact:
            proposal_h = 0
        cards_h = self.height - y - pad - history_h - proposal_h - (pad if proposal_h else 0)
        n = len(w.agents)
        card_h = max(50, (cards_h - pad * (n - 1)) // max(1, n))
        viewer = overlays.viewer  # whose secrets may show (None: everyone's)
        for a, agent in enumerate(w.agents):
            rect = pygame.Rect(pad, y, width - 2 * pad, card_h)
            self._draw_card(surface, state, a, agent, rect, overlays, viewer)
            y += card_h + pad
        if proposal_h:
            self._draw_proposal(surface, state, pygame.Rect(pad, y, width - 2 * pad, proposal_h), viewer)
            y += proposal_h + pad
        if history_h:
            self._draw_history(surface, state, pygame.Rect(pad, y, width - 2 * pad, history_h), viewer)

    def _draw_title(self, surface: pygame.Surface, state: TCState, pad: int) -> int:
        w = self.world
        px = 22 if self.width >= 700 else 18 if not self.compact else 15
        title = w.spec().get("title") or w.name
        left = self.text(f"{w.name}  ·  {title}  ·  rules: {w.rules.name}", px, TEXT)
        surface.blit(left, (pad, pad))
        turn = turn_number(state.turn, state.phase, w.max_turns)
        parts = [f"turn {turn}/{w.max_turns}", PHASE_NAMES.get(state.phase, state.phase)]
        if state.phase != OVER:
            parts.append(f"proposer: {w.proposer_of(state.turn)}")
        right = self.text("   ".join(parts), px, GOLD if state.phase != OVER else GREEN)
        x = max(pad + left.get_width() + 20, self.width - pad - right.get_width())
        surface.blit(right, (x, pad))
        return pad + px + 8

    def _hand_for(self, state: TCState, a: int, agent: str, viewer: str | None) -> tuple[Any, bool]:
        """The hand to show and whether it holds crafts others cannot see yet."""
        private = state.phase == CRAFT and state.hands[a] != state.public_hands[a]
        if viewer is not None and agent != viewer:
            return state.public_hands[a], False
        return state.hands[a], private

    def _draw_card(self, surface: pygame.Surface, state: TCState, a: int, agent: str, rect: pygame.Rect,
                   overlays: Overlays, viewer: str | None) -> None:
        w = self.world
        active = agent in w.active_agents(state)
        pygame.draw.rect(surface, CARD_ACTIVE if active else CARD, rect, border_radius=8)
        color = self.agent_color(agent)
        pygame.draw.rect(surface, color, pygame.Rect(rect.x, rect.y, 6, rect.h),
                         border_top_left_radius=8, border_bottom_left_radius=8)
        self.cards[agent] = rect
        x, y = rect.x + 14, rect.y + (6 if not self.compact else 3)
        name_px = 22 if rect.h >= 70 else 18 if not self.compact else 15
        name = self.text(agent + ("  (you)" if agent == viewer else ""), name_px, color)
        surface.blit(name, (x, y))
        bx = x + name.get_width() + 10
        for badge, tint in ([] if self.compact else self._badges(state, a, agent, overlays)):
            bx = self.chip(surface, badge, bx, y + 2, tint, 16, pad=1)
        # the target (one's own, or every target when nobody at this screen plays)
        target_x = rect.right - 12
        secret = viewer is not None and agent != viewer
        self.targets_shown[agent] = not secret
        label = self.text("target:" if not self.compact else "", 16, MUTED)
        if secret:
            hidden = self.text("secret", 16, MUTED)
            target_x -= hidden.get_width()
            surface.blit(hidden, (target_x, y + 4))
        else:
            for item, n in reversed(w.targets[a]):
                size = min(28, max(16, self.icon - 8)) if not self.compact else self.icon
                icon = item_icon(item, size)
                text = self.text(f"{w.rules.display(item)} ×{n}", 16 if not self.compact else 14, GOLD)
                target_x -= text.get_width()
                surface.blit(text, (target_x, y + 4))
                target_x -= size + 4
                surface.blit(icon, (target_x, y + max(0, (name_px - size) // 2)))
                target_x -= 10
        surface.blit(label, (target_x - label.get_width() - 4, y + 4))
        # the hand
        hand, private = self._hand_for(state, a, agent, viewer)
        top = y + name_px + (6 if not self.compact else 2)
        if private and not self.compact:
            note = self.text("crafting (private until the craft phase ends)", 15, MUTED)
            surface.blit(note, (rect.right - note.get_width() - 12, rect.bottom - note.get_height() - 4))
        self._draw_hand(surface, agent, hand, pygame.Rect(x, top, rect.w - 26, rect.bottom - top - 4))
        if agent in overlays.thinking:
            dots = "." * (1 + int(overlays.phase * 3) % 3)
            think = self.text(f"thinking{dots}", 16, BLUE)
            surface.blit(think, (bx + 4, y + 3))

    def _badges(self, state: TCState, a: int, agent: str, overlays: Overlays) -> list[tuple[str, tuple[int, int, int]]]:
        w = self.world
        out = []
        if state.win_turn[a] >= 0:
            out.append((f"winner (turn {state.win_turn[a]})", GREEN))
        if state.phase != OVER and w.proposer_of(state.turn) == agent:
            out.append(("proposer", GOLD))
        if state.phase == RESPOND and state.proposal is not None and state.proposal.to == agent:
            out.append(("deciding", BLUE))
        if state.phase == CRAFT:
            out.append(("crafting" if state.crafting[a] else "done crafting", BLUE if state.crafting[a] else MUTED))
        if overlays.human == agent:
            out.append(("your move", (240, 240, 240)))
        return out

    def _draw_hand(self, surface: pygame.Surface, agent: str, hand: Any, area: pygame.Rect) -> None:
        s = self.icon
        tile_w = max(s + 12, 84 if s >= 32 else 70) if not self.compact else s + 10
        tile_h = s + 18 if not self.compact else s + 4
        x, y = area.x, area.y
        if not hand:
            surface.blit(self.text("(empty hand)", 16, MUTED), (x, y + 4))
            return
        for item, n in hand:
            if x + tile_w > area.right:
                x = area.x
                y += tile_h + 2
            if y + s > area.bottom + 2:
                more = self.text("…", 18, MUTED)
                surface.blit(more, (area.right - 16, area.bottom - 18))
                break
            slot = pygame.Rect(x + (tile_w - s) // 2, y, s, s)
            pygame.draw.rect(surface, (30, 34, 44), slot.inflate(6, 6), border_radius=5)
            surface.blit(item_icon(item, s), slot)
            count_px = 18 if s >= 32 else 15 if s >= 20 else 13
            count = self.text(amount_text(n), count_px, (255, 255, 255))
            shadow = self.text(amount_text(n), count_px, (0, 0, 0))
            cx, cy = slot.right - count.get_width() + 2, slot.bottom - count.get_height() + 3
            surface.blit(shadow, (cx + 1, cy + 1))
            surface.blit(count, (cx, cy))
            if not self.compact:
                label = self._fit(self.world.rules.display(item), 16, tile_w - 2)
                surface.blit(label, (x + (tile_w - label.get_width()) // 2, y + s + 3))
            self.slots.append((agent, item, slot))
            x += tile_w

    def _fit(self, text: str, px: int, width: int) -> pygame.Surface:
        surf = self.text(text, px, MUTED)
        while surf.get_width() > width and len(text) > 3:
            text = text[:-2]
            surf = self.text(text + "…", px, MUTED)
        return surf

    def _items_strip(self, surface: pygame.Surface, pairs: Any, x: int, y: int, size: int, right: int) -> int:
        """Icons with amounts in a row up to ``right`` ("…" when more do not fit); returns the x after them."""
        if not pairs:
            t = self.text("nothing", 16, MUTED)
            surface.blit(t, (x, y + (size - t.get_height()) // 2))
            return x + t.get_width()
        for k, (item, n) in enumerate(pairs):
            t = self.text(f"{amount_text(n)} {self.world.rules.display(item)}", 16, TEXT)
            if x + size + t.get_width() + 3 > right:
                more = self.text(f"… +{len(pairs) - k}", 16, MUTED)
                surface.blit(more, (x, y + (size - more.get_height()) // 2))
                return x + more.get_width()
            surface.blit(item_icon(item, size), (x, y))
            surface.blit(t, (x + size + 3, y + (size - t.get_height()) // 2))
            x += size + t.get_width() + 12
        return x

    def _draw_proposal(self, surface: pygame.Surface, state: TCState, rect: pygame.Rect, viewer: str | None) -> None:
        w = self.world
        pygame.draw.rect(surface, (36, 42, 56), rect, border_radius=8)
        pygame.draw.rect(surface, (70, 80, 100), rect, 1, border_radius=8)
        x, y = rect.x + 12, rect.y + 6
        p = state.proposal
        proposer = w.proposer_of(state.turn)
        seen = current_trade(w, state, viewer) if viewer is not None else None
        if seen is not None and seen.hidden:  # a third player: the rules' option decides what shows
            surface.blit(self.text(trade_line(w, seen), 18, MUTED), (x, y + 14))
            return
        if p is None:
            text = (f"{proposer} is choosing a proposal…" if state.phase == PROPOSE
                    else f"{proposer} passed: no proposal this turn")
            surface.blit(self.text(text, 18, MUTED), (x, y + 14))
            return
        hidden = False
        head = self.text(f"{p.proposer} to {p.to}:", 18, self.agent_color(p.proposer))
        surface.blit(head, (x, y))
        verdict = {None: ("awaiting decision", BLUE), True: ("accepted", GREEN), False: ("rejected", RED)}[state.accepted]
        vt = self.text(verdict[0], 18, verdict[1])
        surface.blit(vt, (rect.right - vt.get_width() - 12, y))
        if hidden:
            surface.blit(self.text("contents hidden (a rejected proposal between two others)", 16, MUTED),
                         (x + head.get_width() + 8, y + 2))
            return
        size = 20
        label_x = x + head.get_width() + 10
        items_x = label_x + 50
        right = rect.right - vt.get_width() - 24
        surface.blit(self.text("offers", 16, MUTED), (label_x, y + 3))
        self._items_strip(surface, p.offer, items_x, y, size, right)
        y2 = y + size + 4
        surface.blit(self.text("for", 16, MUTED), (label_x, y2 + 3))
        end = self._items_strip(surface, p.request, items_x, y2, size, rect.right - 12)
        if p.message:
            room = rect.right - 12 - (end + 16)
            if room > 80:
                surface.blit(self._fit(f"“{p.message}”", 16, room), (end + 16, y2 + 3))
            else:
                surface.blit(self._fit(f"“{p.message}”", 16, rect.w - 24), (x, y2 + size + 4))

    def _draw_history(self, surface: pygame.Surface, state: TCState, rect: pygame.Rect, viewer: str | None) -> None:
        from sim.tradecraft.world import ProposalView

        w = self.world
        surface.blit(self.text("trade history", 16, MUTED), (rect.x + 4, rect.y))
        if viewer is not None:  # what this seat was allowed to see
            views = list(w.observe(state, viewer).history[-4:])
        else:  # watching: everything
            views = [ProposalView(r.turn, r.proposer, r.proposal.to, r.proposal.offer, r.proposal.request,
                                  r.proposal.message, r.accepted) if r.proposal is not None
                     else ProposalView(r.turn, r.proposer, None, None, None, None, None)
                     for r in state.history[-4:]]
        y = rect.y + 20
        self.history_lines = [trade_line(w, view) for view in views]
        for line in self.history_lines:
            surface.blit(self._fit(line, 16, rect.w - 8), (rect.x + 4, y))
            y += 18

    # ------------------------------------------------------------- status and input

    def animates(self, previous: Any, state: Any) -> bool:
        return False

    def status_text(self, state: TCState) -> str:
        winners = self.world.winners(state)
        if winners:
            return "winner: " + ", ".join(winners)
        if state.phase == OVER:
            return "draw" if state.draw else "no winner"
        return f"turn {turn_number(state.turn, state.phase, self.world.max_turns)}/{self.world.max_turns}"

    def action_for_key(self, key: str, state: TCState, agent: str, legal: Sequence[Any]) -> Any | None:
        if key.isdigit() and key != "0":
            i = int(key) - 1
            return legal[i] if i < len(legal) else None
        wanted = {"p": Pass(), "a": Respond(True), "r": Respond(False)}.get(key)
        if key == "d" and state.phase == CRAFT:
            from sim.tradecraft.world import DONE
            wanted = DONE
        return wanted if wanted is not None and wanted in legal else None

    def key_bindings(self) -> list[KeyBinding]:
        return [KeyBinding("P", "pass (no proposal)"), KeyBinding("A / R", "accept / reject the proposal"),
                KeyBinding("D", "done crafting"), KeyBinding("1–9", "the numbered action of the bar"),
                KeyBinding("board", "propose, craft and look up recipes in the TradeCraft board dock")]

    def action_label(self, action: Any) -> str:
        show = self.world.rules.display
        if isinstance(action, Pass):
            return "pass"
        if isinstance(action, Respond):
            return "accept" if action.accept else "reject"
        if isinstance(action, Propose):
            said = f" — “{action.message}”" if action.message else ""
            return (f"offers {action.to} {items_text(self.world, action.offer)} for "
                    f"{items_text(self.world, action.request)}{said}")
        crafts = getattr(action, "crafts", None)
        if crafts is not None:
            if not crafts:
                return "done crafting"
            done = " and is done" if getattr(action, "done", False) else ""
            return "crafts " + ", ".join(f"{format_amount(c.times)} × {show(c.recipe).replace('_', ' ')}"
                                         for c in crafts) + done
        return str(action)
