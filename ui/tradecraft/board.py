"""The controls of a human TradeCraft seat, in a dock under the board: a proposal composer
(partner, items and amounts, message), the incoming proposal with Accept / Reject, a
crafting table (the possible recipes of your hand; recipe, times, slot choices and fuel;
Check, Apply, Done) and a recipe browser (the ``item_info`` tool).

The widget only reads the Timeline at the window's cursor and sends the person's intents
to the session's human seat (``runner.submit_human``), checked first with the world's own
rules (``why_illegal_for``, ``check_craft``) so that a refusal comes with its reason at
once. It acts only at the live edge of a live session; when looking back or replaying, it
shows what was there and its buttons are off. It plugs into the window as a world panel
(``dock_area``: its own dock) and gets the window through ``bind_window``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from PyQt6.QtCore import QSize, QStringListModel, Qt, QTimer
from PyQt6.QtGui import QFont, QIcon
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sim.tradecraft.crafting import Craft, CraftError, check_craft, parse_times, possible_recipes, to_hand
from sim.tradecraft.rules import format_amount
from sim.tradecraft.tools import item_info, recipe_text
from sim.tradecraft.world import (
    CRAFT,
    DONE,
    MAX_MESSAGE,
    OVER,
    PROPOSE,
    RESPOND,
    CraftTurn,
    Pass,
    Propose,
    Respond,
    TCObservation,
    TradeCraftWorld,
)
from ui.tradecraft.icons import item_pixmap
from ui.tradecraft.renderer import current_trade, trade_line, turn_number

ICON = 24
AUTO = "(automatic)"


def _icon(item: str, size: int = ICON) -> QIcon:
    return QIcon(item_pixmap(item, size))


class ItemsList(QListWidget):
    """Items with icons and amounts ("2 × paper"); a click looks the item up in the recipe browser."""

    def __init__(self, on_item: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setIconSize(QSize(ICON, ICON))
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFlow(QListWidget.Flow.LeftToRight)
        self.setWrapping(True)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setSpacing(2)
        self.setMaximumHeight(2 * ICON + 20)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        if on_item is not None:
            self.itemClicked.connect(lambda it: on_item(it.data(Qt.ItemDataRole.UserRole)))

    def show_items(self, world: TradeCraftWorld, pairs: Iterable[tuple[str, Any]] | None, empty: str = "nothing") -> None:
        self.clear()
        pairs = list(pairs or [])
        if not pairs:
            self.addItem(QListWidgetItem(empty))
            return
        for item, n in pairs:
            entry = QListWidgetItem(_icon(item), f"{format_amount(Fraction(n))} × {world.rules.display(item)}")
            entry.setData(Qt.ItemDataRole.UserRole, item)
            entry.setToolTip(item)
            self.addItem(entry)

    def texts(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count())]


class AmountTable(QTableWidget):
    """One row per item of a hand: icon and name, amount held, and a spin box for the amount to trade."""

    def __init__(self, on_change: Any, on_item: Any, parent: QWidget | None = None) -> None:
        super().__init__(0, 3, parent)
        self.setHorizontalHeaderLabels(["item", "held", "trade"])
        self.verticalHeader().setVisible(False)
        self.setIconSize(QSize(ICON, ICON))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.items: list[str] = []
        self.spins: list[QSpinBox] = []
        self._on_change = on_change
        self.cellClicked.connect(lambda row, _col: on_item(self.items[row]) if row < len(self.items) else None)

    def show_hand(self, world: TradeCraftWorld, hand: dict[str, Fraction]) -> None:
        self.setRowCount(0)
        self.items, self.spins = [], []
        for item, n in sorted(hand.items(), key=lambda kv: world.rules.display(kv[0])):
            whole = int(n)
            if whole < 1:
                continue
            row = self.rowCount()
            self.insertRow(row)
            self.setItem(row, 0, QTableWidgetItem(_icon(item), world.rules.display(item)))
            self.setItem(row, 1, QTableWidgetItem(str(whole)))
            spin = QSpinBox()
            spin.setRange(0, whole)
            spin.valueChanged.connect(lambda _v: self._on_change())
            self.setCellWidget(row, 2, spin)
            self.items.append(item)
            self.spins.append(spin)
        self.resizeRowsToContents()

    def amounts(self) -> dict[str, int]:
        return {item: spin.value() for item, spin in zip(self.items, self.spins) if spin.value() > 0}

    def set_amount(self, item: str, n: int) -> None:
        self.spins[self.items.index(item)].setValue(n)


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
        self._sent_at: dict[str, int] = {}
        self.sent: list[Any] = []  # every action this board sent (tests, the status line)
        self.last_trade_text = ""

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

        # ---- trade: composer / incoming proposal / waiting
        trade = QGroupBox("Trade")
        trade_layout = QVBoxLayout(trade)
        self.trade_pages = QStackedWidget()
        trade_layout.addWidget(self.trade_pages)
        self.idle_label = QLabel()
        self.idle_label.setWordWrap(True)
        self.idle_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.trade_pages.addWidget(self.idle_label)

        composer = QWidget()
        c_layout = QVBoxLayout(composer)
        c_layout.setContentsMargins(0, 0, 0, 0)
        to_row = QHBoxLayout()
        to_row.addWidget(QLabel("Propose to"))
        self.partner = QComboBox()
        self.partner.currentTextChanged.connect(self._partner_changed)
        to_row.addWidget(self.partner, 1)
        c_layout.addLayout(to_row)
        tables = QHBoxLayout()
        offer_box = QVBoxLayout()
        offer_box.addWidget(QLabel("You offer"))
        self.offer_table = AmountTable(self._validate, self.look_up)
        offer_box.addWidget(self.offer_table)
        request_box = QVBoxLayout()
        self.request_label = QLabel("You request")
        request_box.addWidget(self.request_label)
        self.request_table = AmountTable(self._validate, self.look_up)
        request_box.addWidget(self.request_table)
        tables.addLayout(offer_box)
        tables.addLayout(request_box)
        c_layout.addLayout(tables, 1)
        self.message = QLineEdit()
        self.message.setMaxLength(MAX_MESSAGE)
        self.message.setPlaceholderText("a message with your proposal (optional)")
        c_layout.addWidget(self.message)
        self.compose_status = QLabel()
        self.compose_status.setWordWrap(True)
        c_layout.addWidget(self.compose_status)
        buttons = QHBoxLayout()
        self.propose_button = QPushButton("Propose")
        self.propose_button.clicked.connect(self.propose)
        self.pass_button = QPushButton("Pass")
        self.pass_button.setToolTip("make no proposal this turn")
        self.pass_button.clicked.connect(self.pass_turn)
        buttons.addStretch(1)
        buttons.addWidget(self.pass_button)
        buttons.addWidget(self.propose_button)
        c_layout.addLayout(buttons)
        self.trade_pages.addWidget(composer)
        self.composer_page = composer

        incoming = QWidget()
        i_layout = QVBoxLayout(incoming)
        i_layout.setContentsMargins(0, 0, 0, 0)
        self.incoming_label = QLabel()
        self.incoming_label.setWordWrap(True)
        i_layout.addWidget(self.incoming_label)
        i_layout.addWidget(QLabel("You receive"))
        self.receive_list = ItemsList(self.look_up)
        i_layout.addWidget(self.receive_list)
        i_layout.addWidget(QLabel("You give"))
        self.give_list = ItemsList(self.look_up)
        i_layout.addWidget(self.give_list)
        self.incoming_message = QLabel()
        self.incoming_message.setWordWrap(True)
        i_layout.addWidget(self.incoming_message)
        answer = QHBoxLayout()
        self.reject_button = QPushButton("Reject")
        self.reject_button.clicked.connect(lambda: self.respond(False))
        self.accept_button = QPushButton("Accept")
        self.accept_button.clicked.connect(lambda: self.respond(True))
        answer.addStretch(1)
        answer.addWidget(self.reject_button)
        answer.addWidget(self.accept_button)
        i_layout.addLayout(answer)
        i_layout.addStretch(1)
        self.trade_pages.addWidget(incoming)
        self.incoming_page = incoming
        row.addWidget(trade, 5)

        # ---- crafting table
        table = QGroupBox("Crafting table")
        t_layout = QVBoxLayout(table)
        t_layout.addWidget(QLabel("Your hand now (crafts of this phase included)"))
        self.hand_list = ItemsList(self.look_up)
        self.hand_list.setMaximumHeight(ICON + 26)  # one row; more scroll
        t_layout.addWidget(self.hand_list)
        self.recipes_label = QLabel("Possible recipes of your hand")
        t_layout.addWidget(self.recipes_label)
        self.recipes = QListWidget()
        self.recipes.setIconSize(QSize(ICON, ICON))
        self.recipes.setMinimumHeight(3 * ICON + 12)
        self.recipes.currentRowChanged.connect(self._recipe_picked)
        t_layout.addWidget(self.recipes, 1)
        form = QFormLayout()
        recipe_row = QHBoxLayout()
        self.recipe_box = QComboBox()
        self.recipe_box.setEditable(True)
        self.recipe_box.setToolTip("recipe id (the list above fills it; any recipe of the rule set can be typed)")
        self.recipe_box.currentTextChanged.connect(self._recipe_changed)
        recipe_row.addWidget(self.recipe_box, 1)
        recipe_row.addWidget(QLabel("times"))
        self.times = QLineEdit("1")
        self.times.setMaximumWidth(70)
        self.times.setToolTip("how many times: a whole number or a fraction such as 1/4")
        recipe_row.addWidget(self.times)
        form.addRow("Recipe", recipe_row)
        self.choices_form = QFormLayout()
        form.addRow(self.choices_form)
        self.fuel_box = QComboBox()
        self.fuel_label = QLabel("Fuel")
        form.addRow(self.fuel_label, self.fuel_box)
        t_layout.addLayout(form)
        self.choice_boxes: dict[str, QComboBox] = {}
        craft_buttons = QHBoxLayout()
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("what this craft would use and make, or why it cannot be made")
        self.check_button.clicked.connect(self.check)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("craft it now (you keep crafting until you press Done)")
        self.apply_button.clicked.connect(self.apply)
        self.done_button = QPushButton("Done")
        self.done_button.setToolTip("finish crafting for this turn (amounts are then rounded down)")
        self.done_button.clicked.connect(self.done)
        craft_buttons.addWidget(self.check_button)
        craft_buttons.addWidget(self.apply_button)
        craft_buttons.addStretch(1)
        craft_buttons.addWidget(self.done_button)
        t_layout.addLayout(craft_buttons)
        self.craft_status = QLabel()
        self.craft_status.setWordWrap(True)
        t_layout.addWidget(self.craft_status)
        row.addWidget(table, 5)

        # ---- recipe browser
        browser = QGroupBox("Recipe browser (item_info)")
        b_layout = QVBoxLayout(browser)
        search = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("item name, e.g. torch")
        self.search.returnPressed.connect(lambda: self.look_up(self.search.text()))
        self.completer_model = QStringListModel()
        completer = QCompleter(self.completer_model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.activated.connect(self.look_up)
        self.search.setCompleter(completer)
        look = QPushButton("Look up")
        look.clicked.connect(lambda: self.look_up(self.search.text()))
        search.addWidget(self.search, 1)
        search.addWidget(look)
        b_layout.addLayout(search)
        found = QHBoxLayout()
        self.info_icon = QLabel()
        self.info_title = QLabel()
        found.addWidget(self.info_icon)
        found.addWidget(self.info_title, 1)
        b_layout.addLayout(found)
        self.info = QPlainTextEdit()
        self.info.setReadOnly(True)
        self.info.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFont("DejaVu Sans Mono")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        mono.setPointSizeF(max(7.0, self.font().pointSizeF() * 0.85))
        self.info.setFont(mono)
        b_layout.addWidget(self.info, 1)
        row.addWidget(browser, 4)

        for button in (self.propose_button, self.pass_button, self.accept_button, self.reject_button,
                       self.check_button, self.apply_button, self.done_button, look):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the world view
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.setInterval(3000)
        self._retry.timeout.connect(self._unblock)
        self._recipe_changed("")
        self._show_idle("Open a TradeCraft instance (Session panel) to play or watch it here.")

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
            names = sorted({world.rules.display(i) for i in world.rules.items})
            self.completer_model.setStringList(names)
            self.recipe_box.blockSignals(True)
            self.recipe_box.clear()
            self.recipe_box.blockSignals(False)
        humans = sorted(window.model.humans) if window is not None else []
        state = timeline.state_at(tick)
        live_edge = (window is not None and window.model.runner is not None and timeline.live
                     and tick == timeline.num_steps and timeline.outcome is None)
        if any(n != timeline.num_steps for n in self._sent_at.values()):  # the session took a step
            self._sent_at = {a: n for a, n in self._sent_at.items() if n == timeline.num_steps}
            if not self._sent_at:
                self._retry.stop()
        self._update_seats(humans, world.active_agents(state) if live_edge else ())
        seat = self.seat
        can_act = bool(seat and live_edge and seat in world.active_agents(state) and seat not in self._sent_at)
        key = (id(timeline), seat, tick, world.state_hash(state), can_act, timeline.num_steps,
               tuple(sorted(self._sent_at)), self._where(timeline, tick))
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
            self._show_idle("The proposer and the phase are on the board above; every value report is in "
                            "Minds ▸ ToM values.")
            self._fill_crafting(None)
            return
        obs = world.observe(state, seat)
        self.obs = obs
        self._fill_header(obs, live_edge, can_act)
        self._fill_trade(obs, can_act)
        self._fill_crafting(obs)

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
        due = [h for h in humans if h in active and h not in self._sent_at]
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
        target = ", ".join(f"{world.rules.display(i)} ×{n}" for i, n in obs.target)
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

    def _show_idle(self, text: str) -> None:
        self.idle_label.setText(text)
        self.trade_pages.setCurrentWidget(self.idle_label)

    def _fill_trade(self, obs: TCObservation, can_act: bool) -> None:
        world = self.world
        if obs.phase == PROPOSE and obs.proposer == obs.agent:
            others = [p for p in obs.players if p != obs.agent]
            if [self.partner.itemText(i) for i in range(self.partner.count())] != others:
                self.partner.blockSignals(True)
                self.partner.clear()
                self.partner.addItems(others)
                self.partner.blockSignals(False)
            self.offer_table.show_hand(world, obs.hand_of(obs.agent))
            self._partner_changed(self.partner.currentText())
            self.message.clear()
            for w in (self.partner, self.offer_table, self.request_table, self.message, self.pass_button):
                w.setEnabled(can_act)
            self.trade_pages.setCurrentWidget(self.composer_page)
            self._validate()
            return
        if obs.phase == RESPOND and obs.pending is not None:
            p = obs.pending
            self.incoming_label.setText(f"<b>{p.proposer}</b> proposes a trade to you:")
            self.receive_list.show_items(world, p.offer)
            self.give_list.show_items(world, p.request)
            self.incoming_message.setText(f"Message: “{p.message}”" if p.message else "(no message)")
            self.accept_button.setEnabled(can_act)
            self.reject_button.setEnabled(can_act)
            self.trade_pages.setCurrentWidget(self.incoming_page)
            return
        if obs.phase == PROPOSE:
            text = f"{obs.proposer} is choosing a proposal."
        elif obs.phase == RESPOND:
            text = "The proposal of this turn is between two other players."
        elif obs.phase == CRAFT:
            text = ("Craft phase: use the crafting table, then press Done." if obs.crafting
                    else "You are done crafting; waiting for the others.")
        else:
            text = "The game is over."
        # the turn being played holds the latest trade (the history only has finished turns)
        last = current_trade(world, self._state(), obs.agent) if obs.phase in (CRAFT, OVER) else None
        if last is None and obs.history:
            last = obs.history[-1]
        if last is not None and obs.phase != RESPOND:
            text += "<br><small>last trade: " + trade_line(world, last) + "</small>"
        self.last_trade_text = trade_line(world, last) if last is not None else ""
        self._show_idle(text)

    def _partner_changed(self, partner: str) -> None:
        obs = self.obs
        if obs is None or not partner or partner not in obs.players:
            return
        self.request_label.setText(f"You request from {partner}")
        self.request_table.show_hand(self.world, obs.hand_of(partner))
        self._validate()

    def _fill_crafting(self, obs: TCObservation | None) -> None:
        world = self.world
        crafting = obs is not None and self.can_act and obs.phase == CRAFT and obs.crafting
        for w in (self.apply_button, self.done_button):
            w.setEnabled(crafting and self.seat not in self._sent_at)
        self.check_button.setEnabled(obs is not None)
        if obs is None:
            self.hand_list.clear()
            self.recipes.clear()
            self._found = []
            self.recipes_label.setText("Possible recipes of your hand (when you play a seat)")
            self.craft_status.clear()
            return
        hand = to_hand(obs.hand)
        self.hand_list.show_items(world, obs.hand, "(empty hand)")
        found = possible_recipes(world.rules, hand)
        current = self.recipe_box.currentText()
        self.recipes.blockSignals(True)
        self.recipes.clear()
        self._found = found
        for recipe, times, _craft in found:
            entry = QListWidgetItem(_icon(recipe.result), f"up to ×{format_amount(times)}: "
                                                          f"{recipe_text(world.rules, recipe)}")
            entry.setData(Qt.ItemDataRole.UserRole, recipe.id)
            self.recipes.addItem(entry)
        self.recipes.blockSignals(False)
        self.recipes_label.setText(f"Possible recipes of your hand ({len(found)})")
        ids = [r.id for r, _, _ in found]
        self.recipe_box.blockSignals(True)
        self.recipe_box.clear()
        self.recipe_box.addItems(ids)
        self.recipe_box.setCurrentText(current if current else (ids[0] if ids else ""))
        self.recipe_box.blockSignals(False)
        self._recipe_changed(self.recipe_box.currentText())
        if obs.phase == CRAFT and not obs.crafting:
            self.craft_status.setText("You are done crafting this turn.")
        elif obs.phase != CRAFT:
            self.craft_status.setText("Crafting opens in the craft phase (Check works any time).")
        else:
            self.craft_status.clear()

    def _recipe_picked(self, row: int) -> None:
        found = getattr(self, "_found", [])
        if 0 <= row < len(found):
            recipe, times, _craft = found[row]
            self.recipe_box.setCurrentText(recipe.id)
            self.times.setText(format_amount(min(times, Fraction(1))))
            self.look_up(recipe.result)

    def _recipe_changed(self, name: str) -> None:
        """Slot choices and fuel for the recipe in the box."""
        world = self.world
        while self.choices_form.rowCount():
            self.choices_form.removeRow(0)
        self.choice_boxes = {}
        recipe = None
        if world is not None and name:
            recipe = world.rules.recipes.get(name) or world.rules.recipes.get(f"{world.rules.namespace}:{name}")
        hand = to_hand(self.obs.hand) if self.obs is not None else {}
        if recipe is not None:
            for ing in recipe.ingredients:
                if len(ing.options) > 1:
                    box = QComboBox()
                    box.addItem(AUTO)
                    held = [o for o in ing.options if hand.get(o, 0) > 0]
                    for option in held + [o for o in ing.options if o not in held]:
                        box.addItem(_icon(option, 16), world.rules.display(option), option)
                    self.choice_boxes[ing.key] = box
                    self.choices_form.addRow(f"slot '{ing.key}' ({ing.source})", box)
        needs_fuel = recipe is not None and recipe.fuel > 0
        self.fuel_box.clear()
        if needs_fuel:
            self.fuel_box.addItem(AUTO)
            for item in sorted(i for i in hand if world.rules.fuel_value(i) > 0):
                self.fuel_box.addItem(_icon(item, 16), world.rules.display(item), item)
        self.fuel_box.setVisible(needs_fuel)
        self.fuel_label.setVisible(needs_fuel)

    # ================================================================== recipe browser

    def look_up(self, name: str) -> None:
        world = self.world
        if world is None or not name:
            return
        name = name.strip()
        self.search.setText(world.rules.display(name) if ":" in name else name)
        self.info.setPlainText(item_info(world.rules, name))
        try:
            item = world.rules.resolve(name)
        except KeyError:
            self.info_icon.clear()
            self.info_title.setText(f"<b>{name}</b>: not in rule set {world.rules.name}")
            return
        self.info_icon.setPixmap(item_pixmap(item, 32))
        self.info_title.setText(f"<b>{world.rules.display(item)}</b> <small>{item}</small>")

    # ================================================================== intents

    def composed(self) -> Propose | None:
        obs = self.obs
        partner = self.partner.currentText()
        if obs is None or not partner:
            return None
        offer = tuple(sorted(self.offer_table.amounts().items()))
        request = tuple(sorted(self.request_table.amounts().items()))
        return Propose(partner, offer, request, self.message.text()[:MAX_MESSAGE])

    def _validate(self) -> None:
        proposal = self.composed()
        if proposal is None or self.world is None or self.obs is None:
            self.propose_button.setEnabled(False)
            return
        reason = self.world.why_illegal_for(self.obs, proposal)
        ok = reason is None and self.can_act and self.seat not in self._sent_at
        self.propose_button.setEnabled(ok)
        if reason is not None and (proposal.offer or proposal.request):
            self.compose_status.setText(f"<span style='color:#b71c1c'>{reason}</span>")
        elif reason is not None:
            self.compose_status.setText("Choose amounts to offer and/or to request.")
        else:
            self.compose_status.setText(f"<span style='color:#1b5e20'>Ready to propose to {proposal.to}.</span>")

    def craft(self) -> Craft | str:
        """The craft in the form, or why it cannot be read."""
        world = self.world
        name = self.recipe_box.currentText().strip()
        if world is None or not name:
            return "choose a recipe"
        recipe = world.rules.recipes.get(name) or world.rules.recipes.get(f"{world.rules.namespace}:{name}")
        if recipe is None:
            return f"no recipe {name!r} in rule set {world.rules.name}"
        try:
            times = parse_times(self.times.text().strip() or "1")
        except CraftError as exc:
            return str(exc)
        choices = {key: box.currentData() for key, box in self.choice_boxes.items() if box.currentData()}
        fuel = self.fuel_box.currentData() if self.fuel_box.isVisible() else None
        return Craft(recipe.id, times, tuple(sorted(choices.items())), fuel)

    def check(self) -> str:
        """Check the craft in the form against your hand; shows and returns the answer."""
        if self.obs is None:
            return ""
        craft = self.craft()
        text = f"cannot craft: {craft}" if isinstance(craft, str) else \
            check_craft(self.world.rules, to_hand(self.obs.hand), craft).describe(self.world.rules)
        color = "#1b5e20" if text.startswith("ok") else "#b71c1c"
        self.craft_status.setText(f"<span style='color:{color}'>{text}</span>")
        return text

    def apply(self) -> bool:
        craft = self.craft()
        if isinstance(craft, str):
            self.craft_status.setText(f"<span style='color:#b71c1c'>cannot craft: {craft}</span>")
            return False
        return self._send(CraftTurn((craft,), False), "craft")

    def done(self) -> bool:
        return self._send(DONE, "done")

    def propose(self) -> bool:
        proposal = self.composed()
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
        if obs.agent in self._sent_at:
            self._say(what, "your previous action is still on its way")
            return False
        reason = self.world.why_illegal_for(obs, action)
        if reason is not None:
            self._say(what, reason)
            return False
        self._sent_at[obs.agent] = window.model.timeline.num_steps
        self._retry.start()
        self.sent.append(action)
        for button in (self.propose_button, self.pass_button, self.accept_button, self.reject_button,
                       self.apply_button, self.done_button):
            button.setEnabled(False)
        window.model.runner.submit_human(obs.agent, action)
        return True

    def _say(self, what: str, reason: str) -> None:
        label = self.craft_status if what in ("craft", "done") else self.compose_status
        label.setText(f"<span style='color:#b71c1c'>{what}: {reason}</span>")

    def _unblock(self) -> None:
        """An action that the session did not take within a few seconds: let the person try again."""
        self._sent_at.clear()
        self._key = ()
        if self.window_ is not None:
            self.window_.panels.refresh(force=True)
