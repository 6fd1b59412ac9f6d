"""The controls of a human TradeCraft seat, in a dock under the board: a proposal composer
(partner, items and amounts, message), the incoming proposal with Accept / Reject, a
crafting table (the possible recipes of your hand; recipe, times, slot choices and fuel;
Check, Apply, Done) and a recipe browser (the ``item_info`` tool).

The widget only reads the Timeline at the window's cursor and sends the person's intents
to the session's human seat (``runner.submit_human``), checked first with the world's own
rules (``why_illegal_for``, ``check_craft``) so that a refusal comes with its reason at
once. It acts only at the live edge of a live session; when looking back or replaying, it
shows what was there and its buttons are off. It plugs into the window as a world panel
(``dock_area``: its own dock) and gets the window through ``bind_window``. The board keeps the
header, the seat and the intents; its parts (the trade area, the crafting table, the recipe
browser) are in ``ui/tradecraft/board_parts.py``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from PyQt6.QtCore import QSize, Qt, QTimer
from PyQt6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from sim.tradecraft.crafting import Craft
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
from ui.tradecraft.board_parts import CraftingTable, RecipeBrowser, TradeArea
from ui.tradecraft.icons import item_pixmap
from ui.tradecraft.renderer import turn_number


class TradeCraftBoard(QWidget):
    panel_title = "TradeCraft board"
    panel_tooltip = "Your hand, proposals, crafting and recipes when you play a TradeCraft seat"
    """The TradeCraft controls of the desktop app (a bottom dock while a TradeCraft episode is shown)."""

    dock_area = Qt.DockWidgetArea.BottomDockWidgetArea

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_: Any = None
        self.world: TradeCraftWorld | None = None
        self.seat: str | None = None
        self.obs: TCObservation | None = None
        self.can_act = False
        self._key: tuple = ()
        #: seat -> the timeline's step count when it sent an action the session has not taken yet
        self.sent_at: dict[str, int] = {}
        self.sent: list[Any] = []  # every action this board sent (tests, the status line)

        root = QVBoxLayout(self)
        root.setContentsMargins(6, 4, 6, 4)
        top = QHBoxLayout()
        self.target_icon = QLabel()
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.seat_box = QComboBox()
        self.seat_box.setToolTip("the seat you play (several human seats: hot seat)")
        self.seat_box.currentTextChanged.connect(self._seat_chosen)
        self.seat_box.hide()
        top.addWidget(self.target_icon)
        top.addWidget(self.header, 1)
        top.addWidget(self.seat_box)
        root.addLayout(top)
        row = QHBoxLayout()
        root.addLayout(row, 1)

        self.trade = TradeArea(self)  # the proposal composer, the incoming proposal
        self.crafting = CraftingTable(self)  # your hand, its recipes, the craft form
        self.browser = RecipeBrowser()  # item_info
        row.addWidget(self.trade, 5)
        row.addWidget(self.crafting, 5)
        row.addWidget(self.browser, 4)

        for button in (*self.trade.buttons(), *self.crafting.buttons(), self.browser.look_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the world view
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.setInterval(3000)
        self._retry.timeout.connect(self._unblock)
        self.crafting.recipe_changed("")
        self.trade.show_idle("Open a TradeCraft instance (Session panel) to play or watch it here.")

    # ================================================================== the window

    def bind_window(self, window: Any) -> None:
        self.window_ = window

    def sizeHint(self) -> QSize:
        return QSize(1200, 330)

    def show_at(self, timeline: Any, tick: int) -> None:
        """Follow the window: the shown step, the human seats, whether the person may act now."""
        window = self.window_
        if timeline is None or not isinstance(timeline.world, TradeCraftWorld):
            return
        world = timeline.world
        if world is not self.world:
            self.world = world
            self.browser.set_world(world)
            self.crafting.new_world()
        humans = sorted(window.model.humans) if window is not None else []
        state = timeline.state_at(tick)
        live_edge = (window is not None and window.model.runner is not None and timeline.live
                     and tick == timeline.num_steps and timeline.outcome is None)
        if any(n != timeline.num_steps for n in self.sent_at.values()):  # the session took a step
            self.sent_at = {a: n for a, n in self.sent_at.items() if n == timeline.num_steps}
            if not self.sent_at:
                self._retry.stop()
        self._update_seats(humans, world.active_agents(state) if live_edge else ())
        seat = self.seat
        can_act = bool(seat and live_edge and seat in world.active_agents(state) and seat not in self.sent_at)
        key = (id(timeline), seat, tick, world.state_hash(state), can_act, timeline.num_steps,
               tuple(sorted(self.sent_at)), self._where(timeline, tick))
        if key == self._key:
            return
        self._key = key
        self.can_act = can_act
        if seat is None:
            self.obs = None
            if timeline.live:
                self.header.setText(f"<b>Watching{self._where(timeline, tick)}.</b> Nobody plays a seat at this "
                                    "screen: choose <i>human</i> for a seat in the Session panel to trade and craft "
                                    "from this board. The recipe browser works any time.")
            else:
                self.header.setText("<b>Replay.</b> To play on from the shown step, take over (T) and make a seat "
                                    "<i>human</i>. The recipe browser works any time.")
            self.target_icon.clear()
            self.trade.show_idle("The proposer and the phase are on the board above; every value report is in "
                            "Minds ▸ ToM values.")
            self.crafting.fill(None)
            return
        obs = world.observe(state, seat)
        self.obs = obs
        self._fill_header(obs, live_edge, can_act)
        self.trade.fill(obs, can_act, state)
        self.crafting.fill(obs)

    def _update_seats(self, humans: list[str], active: Sequence[str]) -> None:
        current = [self.seat_box.itemText(i) for i in range(self.seat_box.count())]
        if current != humans:
            self.seat_box.blockSignals(True)
            self.seat_box.clear()
            self.seat_box.addItems(humans)
            self.seat_box.blockSignals(False)
            self.seat_box.setVisible(len(humans) > 1)
            self.seat = humans[0] if humans else None
        if self.seat not in humans:
            self.seat = humans[0] if humans else None
        # hot seat: go to a person who still has to act (in a craft phase, everyone who crafts acts
        # in each step), but stay with the chosen seat while it still has to act
        due = [h for h in humans if h in active and h not in self.sent_at]
        if due and self.seat not in due:
            self.seat = due[0]
            self.seat_box.blockSignals(True)
            self.seat_box.setCurrentText(self.seat)
            self.seat_box.blockSignals(False)

    def _seat_chosen(self, seat: str) -> None:
        self.seat = seat or None
        self._key = ()
        if self.window_ is not None:
            self.window_.panels.refresh(force=True)

    # ================================================================== filling

    def _fill_header(self, obs: TCObservation, live_edge: bool, can_act: bool) -> None:
        world = self.world
        target = html.escape(", ".join(f"{world.rules.display(i)} ×{n}" for i, n in obs.target))
        self.target_icon.setPixmap(item_pixmap(obs.target[0][0], 32) if obs.target else item_pixmap("?", 32))
        phase = {PROPOSE: f"proposal by {obs.proposer}", RESPOND: "decision", CRAFT: "craft phase",
                 "over": "game over"}.get(obs.phase, obs.phase)
        if obs.winners:
            you = "you win!" if obs.agent in obs.winners else f"winner: {', '.join(obs.winners)}"
            state = f"<b>{you}</b>"
        elif not live_edge:
            state = self._where(self.window_.model.timeline, self.window_.model.cursor).lstrip(" ,") \
                if self.window_ is not None else "replay"
        elif can_act:
            state = "<b style='color:#1b5e20'>your move</b>"
        else:
            state = "waiting for " + ", ".join(a for a in world.active_agents(self._state()) if a != obs.agent) \
                + (self._where(self.window_.model.timeline, self.window_.model.cursor) if self.window_ else "")
        turn = turn_number(obs.turn, obs.phase, obs.max_turns)
        self.header.setText(f"You are <b>{obs.agent}</b> · your secret target: <b>{target}</b> · turn "
                            f"{turn}/{obs.max_turns} · {phase} · {state}")

    def _where(self, timeline: Any, tick: int) -> str:
        """Where the shown step is, for the header: "" at the live edge of a game being played."""
        window = self.window_
        if timeline is None or not timeline.live:
            return ", replay"
        if timeline.outcome is not None:
            return ", game over" if tick >= timeline.num_steps else ", looking back at a finished game"
        if window is None or window.model.runner is None:
            return ", game stopped"
        if tick < timeline.num_steps:
            return ", looking back (End returns to the game)"
        return "" if window.model.playing else ", paused (K plays)"

    def _state(self) -> Any:
        window = self.window_
        return window.model.timeline.state_at(window.model.cursor)

    # ================================================================== intents

    def look_up(self, name: str) -> None:
        self.browser.look_up(name)

    def composed(self) -> Propose | None:
        return self.trade.composed()

    def craft(self) -> Craft | str:
        return self.crafting.craft()

    def check(self) -> str:
        """Check the craft in the form against your hand; shows and returns the answer."""
        return self.crafting.check()

    def apply(self) -> bool:
        craft = self.craft()
        if isinstance(craft, str):
            self.crafting.craft_status.setText(f"<span style='color:#b71c1c'>cannot craft: {html.escape(craft)}</span>")
            return False
        return self._send(CraftTurn((craft,), False), "craft")

    def done(self) -> bool:
        return self._send(DONE, "done")

    def propose(self) -> bool:
        proposal = self.trade.composed()
        return proposal is not None and self._send(proposal, "proposal")

    def pass_turn(self) -> bool:
        return self._send(Pass(), "pass")

    def respond(self, accept: bool) -> bool:
        return self._send(Respond(accept), "decision")

    def _send(self, action: Any, what: str) -> bool:
        """Hand the action to the session's human seat after the world's own check."""
        window, obs = self.window_, self.obs
        if window is None or obs is None or window.model.runner is None or not self.can_act:
            self._say(what, "not your move now")
            return False
        if obs.agent in self.sent_at:
            self._say(what, "your previous action is still on its way")
            return False
        reason = self.world.why_illegal_for(obs, action)
        if reason is not None:
            self._say(what, reason)
            return False
        self.sent_at[obs.agent] = window.model.timeline.num_steps
        self._retry.start()
        self.sent.append(action)
        for button in (*self.trade.buttons(), self.crafting.apply_button, self.crafting.done_button):
            button.setEnabled(False)
        window.model.runner.submit_human(obs.agent, action)
        return True

    def _say(self, what: str, reason: str) -> None:
        label = self.crafting.craft_status if what in ("craft", "done") else self.trade.compose_status
        label.setText(f"<span style='color:#b71c1c'>{html.escape(f'{what}: {reason}')}</span>")

    def _unblock(self) -> None:
        """An action that the session did not take within a few seconds: let the person try again."""
        self.sent_at.clear()
        self._key = ()
        if self.window_ is not None:
            self.window_.panels.refresh(force=True)
