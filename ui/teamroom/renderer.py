"""The team room in the world view: who works this round and who sat out (how a formed team
shows in the room), the manager's plan, every function with its engineer and its hidden-test
results (pass@1 marks), and the messages; for a debate, both sides with who spoke, the transcript
and the verdict. Nothing in the room is private, so every seat sees the same picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pygame

from sim.teamroom.world import (
    AFFIRMATIVE,
    CODE,
    JUDGE,
    NEGATIVE,
    OVER,
    PLAN,
    DebateRoom,
    DebateState,
    ProgrammingRoom,
    ProgrammingState,
)
from ui.render.base import KeyBinding, Overlays
from ui.render.board import BG, BLUE, CARD, CARD_ACTIVE, GOLD, GREEN, MUTED, RED, TEXT, BoardRenderer

PHASES = {PLAN: "manager plans", CODE: "engineers code", AFFIRMATIVE: "affirmative speaks",
          NEGATIVE: "negative speaks", JUDGE: "judge decides", OVER: "over"}


class TeamRoomRenderer(BoardRenderer):
    family = "teamroom"

    def __init__(self, world: ProgrammingRoom | DebateRoom) -> None:
        super().__init__(world)
        #: agent -> (rect, status words) of the last frame (tests)
        self.cards: dict[str, tuple[pygame.Rect, str]] = {}
        #: the lines of the main panel in the last frame: function rows or transcript (tests)
        self.lines: list[str] = []

    def layout(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.tile, self.origin = 1, (0, 0)
        self.px = 18 if height >= 400 and width >= 600 else 14
        # speech bubbles rise from the bottom edge: the header, the agents' cards and the task
        # table at the top are what a person reads first
        self.bubble_bottom = height - 6
        self.on_layout()

    # ------------------------------------------------------------- helpers

    def badge(self, surface: pygame.Surface, text: str, x: int, y: int, tint: tuple[int, int, int]) -> int:
        return self.chip(surface, text, x, y, tint, self.px - 3)

    def title(self, surface: pygame.Surface, left: str, right: str, color: tuple[int, int, int]) -> int:
        pad = 8
        surface.blit(self.text(left, self.px + 4, TEXT), (pad, pad))
        r = self.text(right, self.px + 2, color)
        surface.blit(r, (max(pad, self.width - pad - r.get_width()), pad + 2))
        self.bubble_top = pad + self.px + 14  # speech bubbles stay under the header
        return self.bubble_top

    # ------------------------------------------------------------- drawing

    def draw(self, surface: pygame.Surface, state: Any, previous: Any = None, alpha: float = 1.0,
             overlays: Overlays = Overlays()) -> None:
        surface.fill(BG)
        self.cards, self.lines = {}, []
        if isinstance(self.world, ProgrammingRoom):
            self._draw_programming(surface, state, overlays)
        else:
            self._draw_debate(surface, state, overlays)

    def _status(self, state: Any, agent: str) -> tuple[str, tuple[int, int, int]]:
        """Whether ``agent`` works in the round shown or sat it out."""
        r = state.round
        if (r, agent) in state.idle:
            return "sat out", MUTED
        if agent in self.world.active_agents(state):
            return "to act", BLUE
        return "in the room", GREEN

    def _draw_programming(self, surface: pygame.Surface, state: ProgrammingState, overlays: Overlays) -> None:
        w: ProgrammingRoom = self.world
        right = f"round {min(state.round + 1, w.rounds)}/{w.rounds} · {PHASES.get(state.phase, state.phase)}"
        y = self.title(surface, f"{w.task['title']}", right, GOLD if state.phase != OVER else GREEN)
        pad = 8
        col_w = max(180, self.width // 4)
        card_h = max(self.px * 3 + 8, min(78, (self.height - y - 120) // len(w.agents)))
        shown_round = state.round if state.phase != PLAN or state.round == 0 else state.round - 1
        for agent in w.agents:
            rect = pygame.Rect(pad, y, col_w, card_h - 6)
            active = agent in w.active_agents(state)
            pygame.draw.rect(surface, CARD_ACTIVE if active else CARD, rect, border_radius=8)
            pygame.draw.rect(surface, self.agent_color(agent), pygame.Rect(rect.x, rect.y, 6, rect.h),
                             border_top_left_radius=8, border_bottom_left_radius=8)
            name = self.text(agent + (" (manager)" if agent == w.pm else ""), self.px, self.agent_color(agent))
            surface.blit(name, (rect.x + 12, rect.y + 4))
            sat = (shown_round, agent) in state.idle
            status = "sat out" if sat else ("to act" if active else "working" if agent != w.pm else "managing")
            if agent in overlays.thinking:
                status = "thinking" + "." * (1 + int(overlays.phase * 3) % 3)
            self.badge(surface, status, rect.x + 12, rect.y + 6 + self.px, MUTED if sat else BLUE if active else GREEN)
            if agent != w.pm:
                mine = [s for s, e in state.assignments if e == agent]
                label = self.text(", ".join(mine) if mine else "no functions", self.px - 4, MUTED)
                if rect.y + 10 + 2 * self.px + label.get_height() < rect.bottom:
                    surface.blit(label, (rect.x + 12, rect.y + 10 + 2 * self.px))
            self.cards[agent] = (rect, status)
            y += card_h
        # the functions
        x0 = pad * 2 + col_w
        width = self.width - x0 - pad
        ty = 8 + self.px + 14
        for label, at in (("function", 0.0), ("engineer", 0.32), ("hidden tests", 0.55), ("first try", 0.88)):
            surface.blit(self.text(label, self.px - 2, MUTED), (x0 + 6 + int(width * at) - (6 if at else 0), ty))
        ty += self.px + 4
        first = dict(state.first)
        for name in w.subtask_names:
            r = state.counted_report(name)
            who = state.assignment()[name]
            row = pygame.Rect(x0, ty, width, self.px + 10)
            pygame.draw.rect(surface, CARD, row, border_radius=5)
            surface.blit(self.text(name, self.px, TEXT), (x0 + 6, ty + 4))
            surface.blit(self.text(who, self.px, self.agent_color(who)), (x0 + int(width * 0.32), ty + 4))
            bx = x0 + int(width * 0.55)
            bar_w = int(width * 0.22)
            pygame.draw.rect(surface, (30, 34, 44), pygame.Rect(bx, ty + 5, bar_w, self.px), border_radius=4)
            if r is not None:
                fill = int(bar_w * r.passed / max(1, r.total))
                pygame.draw.rect(surface, GREEN if r.ok else RED, pygame.Rect(bx, ty + 5, fill, self.px), border_radius=4)
                surface.blit(self.text(f"{r.passed}/{r.total}", self.px - 2, TEXT), (bx + bar_w + 6, ty + 5))
            mark = {True: ("pass", GREEN), False: ("fail", RED), None: ("—", MUTED)}[first[name]]
            surface.blit(self.text(mark[0], self.px, mark[1]), (x0 + int(width * 0.88), ty + 4))
            self.lines.append(f"{name} {who} " + ("not submitted" if r is None else f"{r.passed}/{r.total}")
                              + f" first {mark[0]}")
            ty += self.px + 14
        summary = (f"pass@1 {w.pass_at_1(state):.0%}   passing now {w.final_pass(state):.0%}   "
                   f"hidden tests passed {w.tests_passed(state):.0%}")
        surface.blit(self.text(summary, self.px, GOLD), (x0, ty + 2))
        ty += self.px + 14
        # the plan and the latest messages
        lines: list[tuple[str, tuple[int, int, int]]] = []
        if state.plans:
            plan = state.plans[-1]
            lines += [(f"plan (round {plan.round + 1}): {plan.instruction or '(no instruction)'}", TEXT)]
        for p in state.inbox:
            lines.append((f"{p.sender}: {p.text}", MUTED))
        for sub in [s for s in state.submissions if s.round == shown_round]:
            problems = "; ".join(f"{r.function}: {r.problem}" for r in sub.reports if r.problem)
            if problems:
                lines.append((f"{sub.engineer}'s tests: {problems}", RED))
        for text, color in lines:
            for line in self.wrap(text.replace("\n", " "), self.px - 2, width):
                if ty + self.px > self.height - 4:
                    return
                surface.blit(self.text(line, self.px - 2, color), (x0, ty))
                ty += self.px
            ty += 4

    def _draw_debate(self, surface: pygame.Surface, state: DebateState, overlays: Overlays) -> None:
        w: DebateRoom = self.world
        right = f"round {min(state.round + 1, w.rounds)}/{w.rounds} · {PHASES.get(state.phase, state.phase)}"
        y = self.title(surface, w.motion, right, GOLD if state.phase != OVER else GREEN)
        pad = 8
        half = (self.width - 3 * pad) // 2
        last = {side: next((s for s in reversed(state.speeches) if s.side == side), None) for side in w.sides}
        for k, side in enumerate((AFFIRMATIVE, NEGATIVE)):
            x = pad + k * (half + pad)
            surface.blit(self.text(side, self.px, GOLD), (x, y))
            bx = x + 8 + self.text(side, self.px, GOLD).get_width()
            for agent in w.sides[side]:
                speech = last[side]
                if agent in w.active_agents(state):
                    status, tint = "to speak", BLUE
                elif speech is None:
                    status, tint = "waiting", MUTED
                elif agent in dict(speech.parts):
                    status, tint = "spoke", GREEN
                else:
                    status, tint = "sat out", MUTED
                if agent in overlays.thinking:
                    status = "thinking"
                rect_x = bx
                bx = self.badge(surface, f"{agent}: {status}", bx, y, tint)
                self.cards[agent] = (pygame.Rect(rect_x, y, bx - rect_x, self.px + 4), status)
        y += self.px + 12
        verdict_h = 2 * self.px + 10 if state.verdict is not None else 0
        for s in state.speeches:
            for agent, text in s.parts:
                self.lines.append(f"{s.side} r{s.round + 1} {agent}: {text}")
            if not s.parts:
                self.lines.append(f"{s.side} r{s.round + 1}: nobody spoke")
        # newest at the bottom: draw as many of the last lines as fit
        wrapped: list[tuple[str, tuple[int, int, int]]] = []
        for line in self.lines:
            agent = line.split(" ", 3)[2].rstrip(":") if ": " in line else ""
            color = self.agent_color(agent) if agent in w.agents else MUTED
            wrapped += [(piece, color) for piece in self.wrap(line, self.px - 2, self.width - 2 * pad)]
        room = max(0, (self.height - y - verdict_h - pad) // self.px)
        for text, color in wrapped[-room:] if room else []:
            surface.blit(self.text(text, self.px - 2, color), (pad, y))
            y += self.px
        if state.verdict is not None:
            v = state.verdict
            box = pygame.Rect(pad, self.height - verdict_h - pad, self.width - 2 * pad, verdict_h)
            pygame.draw.rect(surface, CARD_ACTIVE, box, border_radius=8)
            head = (f"verdict: affirmative {v.affirmative:g} – negative {v.negative:g}: "
                    + ("a tie" if v.winner == "tie" else f"{v.winner} wins"))
            surface.blit(self.text(head, self.px, GREEN), (box.x + 8, box.y + 4))
            reason = self.wrap(v.reason, self.px - 3, box.w - 16)
            if reason:
                surface.blit(self.text(reason[0], self.px - 3, MUTED), (box.x + 8, box.y + 6 + self.px))

    # ------------------------------------------------------------- status and input

    def status_text(self, state: Any) -> str:
        if isinstance(self.world, ProgrammingRoom):
            return f"pass@1 {self.world.pass_at_1(state):.0%}, passing {self.world.final_pass(state):.0%}"
        if state.verdict is not None:
            return "tie" if state.verdict.winner == "tie" else f"{state.verdict.winner} wins"
        return f"round {min(state.round + 1, self.world.rounds)}/{self.world.rounds}"

    def action_for_key(self, key: str, state: Any, agent: str, legal: Sequence[Any]) -> Any | None:
        if key.isdigit() and key != "0":
            i = int(key) - 1
            return legal[i] if i < len(legal) else None
        if key == "i":
            return next((a for a in legal if isinstance(a, dict) and a.get("type") == "idle"), None)
        return None

    def key_bindings(self) -> list[KeyBinding]:
        return [KeyBinding("I", "sit this round out"), KeyBinding("1–9", "the numbered action of the bar"),
                KeyBinding("message box", "the manager's instruction or a debater's statement")]

    def action_label(self, action: Any) -> str:
        if not isinstance(action, dict):
            return str(action)
        kind = action.get("type")
        if kind == "idle":
            return "sit out"
        if kind == "plan":
            return "plan: " + ", ".join(f"{s}→{e}" for s, e in action.get("assignments", {}).items())
        if kind == "submit":
            return "submit " + ", ".join(action.get("subtasks", []))
        if kind == "speak":
            text = action.get("text", "")
            return "say: " + (text if len(text) <= 60 else text[:57] + "...")
        if kind == "verdict":
            return f"verdict {action.get('affirmative')}–{action.get('negative')}"
        return str(action)
