"""The parts of the TradeCraft board (``ui/tradecraft/board.py``): item lists and amount tables,
the trade area (proposal composer, incoming proposal), the crafting table and the recipe
browser. Each part fills its own widgets; what the person may do and sending it to the session
stay with the board (``board.world``, ``board.obs``, ``board.can_act``, ``board.sent_at``,
``board.look_up`` and the intents ``propose``, ``pass_turn``, ``respond``, ``apply``, ``done``)."""

from __future__ import annotations

import html
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from PyQt6.QtCore import QSize, QStringListModel, Qt
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

from sim.tradecraft.crafting import (
    ORIGINAL,
    Craft,
    CraftError,
    check_craft,
    parse_times,
    possible_recipes,
    to_hand,
)
from sim.tradecraft.rules import format_amount
from sim.tradecraft.tools import item_info, recipe_text
from sim.tradecraft.world import (
    CRAFT,
    MAX_MESSAGE,
    OVER,
    PROPOSE,
    RESPOND,
    Propose,
    TCObservation,
    TradeCraftWorld,
)
from ui.tradecraft.icons import item_pixmap
from ui.tradecraft.renderer import current_trade, trade_line

ICON = 24
AUTO = "(automatic)"
AUTO_MIX = "(automatic: several held items if one is not enough)"


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


class TradeArea(QGroupBox):
    """The trade part of a board: the proposal composer (partner, amounts, message), the incoming
    proposal with Accept / Reject, or a line on what the others are doing."""

    def __init__(self, board: Any) -> None:
        super().__init__("Trade")
        self.board = board
        self.last_trade_text = ""
        layout = QVBoxLayout(self)
        self.trade_pages = QStackedWidget()
        layout.addWidget(self.trade_pages)
        self.idle_label = QLabel()
        self.idle_label.setWordWrap(True)
        self.idle_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.trade_pages.addWidget(self.idle_label)
        self.composer_page = self._build_composer()
        self.trade_pages.addWidget(self.composer_page)
        self.incoming_page = self._build_incoming()
        self.trade_pages.addWidget(self.incoming_page)

    def _build_composer(self) -> QWidget:
        board = self.board
        composer = QWidget()
        c_layout = QVBoxLayout(composer)
        c_layout.setContentsMargins(0, 0, 0, 0)
        # the partner and the buttons on the first row (in view in a dock a third of a laptop
        # screen tall), the amounts below
        to_row = QHBoxLayout()
        to_row.addWidget(QLabel("Propose to"))
        self.partner = QComboBox()
        self.partner.currentTextChanged.connect(self.partner_changed)
        to_row.addWidget(self.partner, 1)
        self.propose_button = QPushButton("Propose")
        self.propose_button.clicked.connect(board.propose)
        self.pass_button = QPushButton("Pass")
        self.pass_button.setToolTip("make no proposal this turn")
        self.pass_button.clicked.connect(board.pass_turn)
        to_row.addWidget(self.pass_button)
        to_row.addWidget(self.propose_button)
        c_layout.addLayout(to_row)
        self.compose_status = QLabel()
        self.compose_status.setWordWrap(True)
        c_layout.addWidget(self.compose_status)
        tables = QHBoxLayout()
        offer_box = QVBoxLayout()
        offer_box.addWidget(QLabel("You offer"))
        self.offer_table = AmountTable(self.validate, board.look_up)
        offer_box.addWidget(self.offer_table)
        request_box = QVBoxLayout()
        self.request_label = QLabel("You request")
        request_box.addWidget(self.request_label)
        self.request_table = AmountTable(self.validate, board.look_up)
        request_box.addWidget(self.request_table)
        tables.addLayout(offer_box)
        tables.addLayout(request_box)
        c_layout.addLayout(tables, 1)
        self.message = QLineEdit()
        self.message.setMaxLength(MAX_MESSAGE)
        self.message.setPlaceholderText("a message with your proposal (optional)")
        c_layout.addWidget(self.message)
        return composer

    def _build_incoming(self) -> QWidget:
        board = self.board
        incoming = QWidget()
        i_layout = QVBoxLayout(incoming)
        i_layout.setContentsMargins(0, 0, 0, 0)
        # who proposes and the answer on the first row, what is traded side by side below it: the
        # answer stays in view in a dock a third of a laptop screen tall (1366 x 768)
        answer = QHBoxLayout()
        self.incoming_label = QLabel()
        self.incoming_label.setWordWrap(True)
        answer.addWidget(self.incoming_label, 1)
        self.reject_button = QPushButton("Reject")
        self.reject_button.clicked.connect(lambda: board.respond(False))
        self.accept_button = QPushButton("Accept")
        self.accept_button.clicked.connect(lambda: board.respond(True))
        answer.addWidget(self.reject_button)
        answer.addWidget(self.accept_button)
        i_layout.addLayout(answer)
        lists = QHBoxLayout()
        self.receive_list = ItemsList(board.look_up)
        self.give_list = ItemsList(board.look_up)
        for title, items in (("You receive", self.receive_list), ("You give", self.give_list)):
            column = QVBoxLayout()
            column.addWidget(QLabel(title))
            column.addWidget(items)
            lists.addLayout(column)
        i_layout.addLayout(lists)
        self.incoming_message = QLabel()
        self.incoming_message.setWordWrap(True)
        self.incoming_message.setTextFormat(Qt.TextFormat.PlainText)  # a player's or a model's words
        i_layout.addWidget(self.incoming_message)
        i_layout.addStretch(1)
        return incoming

    def buttons(self) -> tuple[QPushButton, ...]:
        return (self.propose_button, self.pass_button, self.accept_button, self.reject_button)

    def show_idle(self, text: str) -> None:
        self.idle_label.setText(text)
        self.trade_pages.setCurrentWidget(self.idle_label)

    def fill(self, obs: TCObservation, can_act: bool, state: Any) -> None:
        """The composer for the proposer, the proposal for its recipient, else what is going on."""
        world = self.board.world
        if obs.phase == PROPOSE and obs.proposer == obs.agent:
            others = [p for p in obs.players if p != obs.agent]
            if [self.partner.itemText(i) for i in range(self.partner.count())] != others:
                self.partner.blockSignals(True)
                self.partner.clear()
                self.partner.addItems(others)
                self.partner.blockSignals(False)
            self.offer_table.show_hand(world, obs.hand_of(obs.agent))
            self.partner_changed(self.partner.currentText())
            self.message.clear()
            for w in (self.partner, self.offer_table, self.request_table, self.message, self.pass_button):
                w.setEnabled(can_act)
            self.trade_pages.setCurrentWidget(self.composer_page)
            self.validate()
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
        last = current_trade(world, state, obs.agent) if obs.phase in (CRAFT, OVER) else None
        if last is None and obs.history:
            last = obs.history[-1]
        if last is not None and obs.phase != RESPOND:
            text += "<br><small>last trade: " + html.escape(trade_line(world, last)) + "</small>"
        self.last_trade_text = trade_line(world, last) if last is not None else ""
        self.show_idle(text)

    def partner_changed(self, partner: str) -> None:
        obs = self.board.obs
        if obs is None or not partner or partner not in obs.players:
            return
        self.request_label.setText(f"You request from {partner}")
        self.request_table.show_hand(self.board.world, obs.hand_of(partner))
        self.validate()

    def composed(self) -> Propose | None:
        obs = self.board.obs
        partner = self.partner.currentText()
        if obs is None or not partner:
            return None
        offer = tuple(sorted(self.offer_table.amounts().items()))
        request = tuple(sorted(self.request_table.amounts().items()))
        return Propose(partner, offer, request, self.message.text()[:MAX_MESSAGE])

    def validate(self) -> None:
        board = self.board
        proposal = self.composed()
        if proposal is None or board.world is None or board.obs is None:
            self.propose_button.setEnabled(False)
            return
        reason = board.world.why_illegal_for(board.obs, proposal)
        ok = reason is None and board.can_act and board.seat not in board.sent_at
        self.propose_button.setEnabled(ok)
        if reason is not None and (proposal.offer or proposal.request):
            self.compose_status.setText(f"<span style='color:#b71c1c'>{html.escape(reason)}</span>")
        elif reason is not None:
            self.compose_status.setText("Choose amounts to offer and/or to request.")
        else:
            self.compose_status.setText(f"<span style='color:#1b5e20'>Ready to propose to {proposal.to}.</span>")


class CraftingTable(QGroupBox):
    """The crafting part of a board: your hand, its possible recipes, the craft form (recipe,
    times, slot choices, fuel) and Check, Apply, Done."""

    def __init__(self, board: Any) -> None:
        super().__init__("Crafting table")
        self.board = board
        self._found: list = []
        t_layout = QVBoxLayout(self)
        # the craft (recipe, times) and its buttons on the first rows, in view in a dock a third of
        # a laptop screen tall (1366 x 768); the hand and its possible recipes to choose from below
        craft_row = QHBoxLayout()
        craft_row.addWidget(QLabel("Recipe"))
        self.recipe_box = QComboBox()
        self.recipe_box.setEditable(True)
        self.recipe_box.setToolTip("recipe id (the list below fills it; any recipe of the rule set can be typed)")
        self.recipe_box.currentTextChanged.connect(self.recipe_changed)
        craft_row.addWidget(self.recipe_box, 1)
        craft_row.addWidget(QLabel("times"))
        self.times = QLineEdit("1")
        self.times.setMaximumWidth(70)
        self.times.setToolTip("how many times: a whole number or a fraction such as 1/4")
        craft_row.addWidget(self.times)
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("what this craft would use and make, or why it cannot be made")
        self.check_button.clicked.connect(self.check)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("craft it now (you keep crafting until you press Done)")
        self.apply_button.clicked.connect(board.apply)
        self.done_button = QPushButton("Done")
        self.done_button.setToolTip("finish crafting for this turn (amounts are then rounded down)")
        self.done_button.clicked.connect(board.done)
        t_layout.addLayout(craft_row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.check_button)
        buttons.addWidget(self.apply_button)
        buttons.addStretch(1)
        buttons.addWidget(self.done_button)
        t_layout.addLayout(buttons)
        self.craft_status = QLabel()
        self.craft_status.setWordWrap(True)
        t_layout.addWidget(self.craft_status)
        form = QFormLayout()
        self.choices_form = QFormLayout()
        form.addRow(self.choices_form)
        self.fuel_box = QComboBox()
        self.fuel_label = QLabel("Fuel")
        form.addRow(self.fuel_label, self.fuel_box)
        t_layout.addLayout(form)
        self.choice_boxes: dict[str, QComboBox] = {}
        t_layout.addWidget(QLabel("Your hand now (crafts of this phase included)"))
        self.hand_list = ItemsList(board.look_up)
        self.hand_list.setMaximumHeight(ICON + 26)  # one row; more scroll
        t_layout.addWidget(self.hand_list)
        self.recipes_label = QLabel("Possible recipes of your hand")
        t_layout.addWidget(self.recipes_label)
        self.recipes = QListWidget()
        self.recipes.setIconSize(QSize(ICON, ICON))
        self.recipes.setMinimumHeight(3 * ICON + 12)
        self.recipes.currentRowChanged.connect(self.recipe_picked)
        t_layout.addWidget(self.recipes, 1)

    def buttons(self) -> tuple[QPushButton, ...]:
        return (self.check_button, self.apply_button, self.done_button)

    def new_world(self) -> None:
        self.recipe_box.blockSignals(True)
        self.recipe_box.clear()
        self.recipe_box.blockSignals(False)

    def fill(self, obs: TCObservation | None) -> None:
        board = self.board
        world = board.world
        crafting = obs is not None and board.can_act and obs.phase == CRAFT and obs.crafting
        for w in (self.apply_button, self.done_button):
            w.setEnabled(crafting and board.seat not in board.sent_at)
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
        found = possible_recipes(world.rules, hand, world.crafting)
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
        self.recipe_changed(self.recipe_box.currentText())
        if obs.phase == CRAFT and not obs.crafting:
            self.craft_status.setText("You are done crafting this turn.")
        elif obs.phase != CRAFT:
            self.craft_status.setText("Crafting opens in the craft phase (Check works any time).")
        else:
            self.craft_status.clear()

    def recipe_picked(self, row: int) -> None:
        found = self._found
        if 0 <= row < len(found):
            recipe, times, _craft = found[row]
            self.recipe_box.setCurrentText(recipe.id)
            self.times.setText(format_amount(min(times, Fraction(1))))
            self.board.look_up(recipe.result)

    def recipe_changed(self, name: str) -> None:
        """Slot choices and fuel for the recipe in the box."""
        world, obs = self.board.world, self.board.obs
        while self.choices_form.rowCount():
            self.choices_form.removeRow(0)
        self.choice_boxes = {}
        recipe = None
        if world is not None and name:
            recipe = world.rules.recipes.get(name) or world.rules.recipes.get(f"{world.rules.namespace}:{name}")
        hand = to_hand(obs.hand) if obs is not None else {}
        if recipe is not None:
            for ing in recipe.ingredients:
                if len(ing.options) > 1:
                    box = QComboBox()
                    # under the original rule, automatic takes several held members at once when needed
                    box.addItem(AUTO_MIX if world.crafting == ORIGINAL else AUTO)
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

    def craft(self) -> Craft | str:
        """The craft in the form, or why it cannot be read."""
        world = self.board.world
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
        world, obs = self.board.world, self.board.obs
        if obs is None:
            return ""
        craft = self.craft()
        text = f"cannot craft: {craft}" if isinstance(craft, str) else \
            check_craft(world.rules, to_hand(obs.hand), craft, world.crafting).describe(world.rules)
        color = "#1b5e20" if text.startswith("ok") else "#b71c1c"
        self.craft_status.setText(f"<span style='color:{color}'>{html.escape(text)}</span>")
        return text


class RecipeBrowser(QGroupBox):
    """The recipe browser of a board (the ``item_info`` tool): search an item, read its recipes."""

    def __init__(self) -> None:
        super().__init__("Recipe browser (item_info)")
        self.world: TradeCraftWorld | None = None
        b_layout = QVBoxLayout(self)
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
        self.look_button = QPushButton("Look up")
        self.look_button.clicked.connect(lambda: self.look_up(self.search.text()))
        search.addWidget(self.search, 1)
        search.addWidget(self.look_button)
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

    def set_world(self, world: TradeCraftWorld) -> None:
        self.world = world
        self.completer_model.setStringList(sorted({world.rules.display(i) for i in world.rules.items}))

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
            self.info_title.setText(f"<b>{html.escape(name)}</b>: not in rule set {html.escape(world.rules.name)}")
            return
        self.info_icon.setPixmap(item_pixmap(item, 32))
        self.info_title.setText(f"<b>{html.escape(world.rules.display(item))}</b> <small>{html.escape(item)}</small>")
