"""The session panel: a scenario browser (by world and category, with a preview), a seat
for each agent (planners, LLM agents, human), a mechanism per role (facilitator, teams),
the seed, and Start.
The same panel sets up "take over from here" from a replayed or live step, and the task rounds
an episode plays (the scenario again, same agents and mechanisms)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pygame
from PyQt6.QtCore import QEvent, QObject, QRect, QSize, Qt, pyqtSignal
from PyQt6.QtGui import QColor, QImage, QPainter, QPixmap
from PyQt6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sim.plugins import plugins
from sim.registry import ScenarioError, ScenarioInfo, Start, load_scenario_start
from sim.world import World
from ui.render import renderer_for
from ui.render.worldview import init_pygame
from ui.session import catalog

#: the size the scenario preview is drawn at (shown scaled to the panel's width)
PREVIEW_SIZE = (300, 200)
#: where a tree item keeps the world of a scenario opened by path (a file outside scenarios/)
WORLD_ROLE = Qt.ItemDataRole.UserRole + 1
#: the category of the scenarios opened by path, listed under their world
OPENED = "opened files"
#: a scenario whose file asks for no seats or mechanisms of its own
NO_START = Start()


class WheelGuard(QObject):
    """The mouse wheel over a choice box or number box of a scrolling panel scrolls the panel:
    it changes the box only once the box has the focus (clicked or tabbed to). Without it,
    scrolling the Session panel silently changes the seats and mechanisms it passes over."""

    def eventFilter(self, watched: QObject | None, event: QEvent | None) -> bool:
        if (event is not None and event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget)
                and not watched.hasFocus()):
            parent = watched.parentWidget()
            while parent is not None and not hasattr(parent, "verticalScrollBar"):
                parent = parent.parentWidget()
            if parent is not None:  # the scroll area the box sits in scrolls instead
                bar = parent.verticalScrollBar()
                bar.setValue(bar.value() - event.angleDelta().y() // 120 * bar.singleStep() * 3)
            return True
        return False


def guard_wheel(guard: WheelGuard, box: QWidget) -> QWidget:
    """``box`` takes the focus by click or Tab, never by the wheel, and ignores the wheel until
    it has it (``WheelGuard``)."""
    box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    box.installEventFilter(guard)
    return box


def preview_pixmap(world: World, width: int = PREVIEW_SIZE[0], height: int = PREVIEW_SIZE[1]) -> QPixmap:
    """A small picture of a world's first state (a copy is fine here: drawn once)."""
    init_pygame()
    surface = pygame.Surface((width, height), 0, 32)
    renderer = renderer_for(world)
    renderer.layout(width, height)
    renderer.draw(surface, world.reset(0))
    data = pygame.image.tobytes(surface, "RGBX")
    image = QImage(data, width, height, QImage.Format.Format_RGBX8888).copy()
    return QPixmap.fromImage(image)


class PreviewPicture(QFrame):
    """The scenario's first state, scaled to the panel's width (its shape kept): it never makes
    the panel wider than its dock nor taller than its picture."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumSize(160, 107)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._pixmap: QPixmap | None = None

    def setPixmap(self, pixmap: QPixmap) -> None:
        self._pixmap = pixmap
        self.updateGeometry()
        self.update()

    def pixmap(self) -> QPixmap | None:
        return self._pixmap

    def sizeHint(self) -> QSize:
        return QSize(PREVIEW_SIZE[0] + 2 * self.frameWidth(), self.heightForWidth(PREVIEW_SIZE[0] + 2 * self.frameWidth()))

    def minimumSizeHint(self) -> QSize:
        return self.minimumSize()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        inner = max(1, width - 2 * self.frameWidth())
        return inner * PREVIEW_SIZE[1] // PREVIEW_SIZE[0] + 2 * self.frameWidth()

    def drawn_rect(self) -> QRect:
        """Where the picture is drawn, in the widget's pixels."""
        area = self.contentsRect()
        if self._pixmap is None or self._pixmap.isNull():
            return QRect()
        size = self._pixmap.size().scaled(area.size(), Qt.AspectRatioMode.KeepAspectRatio)
        return QRect(area.x() + (area.width() - size.width()) // 2, area.y() + (area.height() - size.height()) // 2,
                     size.width(), size.height())

    def paintEvent(self, event: Any) -> None:
        super().paintEvent(event)
        if self._pixmap is None or self._pixmap.isNull():
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.drawPixmap(self.drawn_rect(), self._pixmap)
        painter.end()


class SetupPanel(QWidget):
    #: {"world", "scenario", "seats", "mechanisms", "seed", "rounds", "takeover"}
    start_requested = pyqtSignal(dict)
    takeover_cancelled = pyqtSignal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.wheel_guard = WheelGuard(self)
        layout = QVBoxLayout(self)
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background: #1e6eeb; color: white; padding: 6px; border-radius: 4px;")
        self.banner.hide()
        layout.addWidget(self.banner)

        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["scenario", "seats"])
        self.tree.setToolTip("Scenarios by world and category; hover one for its title and who plays")
        self.tree.headerItem().setToolTip(1, "how many agents play in it (hover a scenario for their names)")
        # both columns stay in view in a narrow dock: names elide (full in the tooltip), seats fit
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setMinimumHeight(140)
        self.tree.currentItemChanged.connect(self._selected)
        layout.addWidget(self.tree, 2)

        self.preview = PreviewPicture()
        layout.addWidget(self.preview)
        self.description = QLabel()
        self.description.setWordWrap(True)
        layout.addWidget(self.description)

        self.seats_form = QFormLayout()
        layout.addLayout(self.seats_form)
        self.seat_boxes: dict[str, QComboBox] = {}
        #: what a seat on a language model will meet here (the embedded model is a smoke test)
        self.model_note = QLabel()
        self.model_note.setWordWrap(True)
        self.model_note.setTextFormat(Qt.TextFormat.RichText)
        self.model_note.setStyleSheet("background: #fff8e1; color: #5d4037; padding: 4px; border-radius: 4px;")
        self.model_note.hide()
        layout.addWidget(self.model_note)

        options = QFormLayout()
        #: one editable choice per mechanism role ("facilitator", "team")
        self.mechanism_boxes: dict[str, QComboBox] = {}
        #: the default each role's box was last given (a choice equal to it is not the person's)
        self._defaults: dict[str, str] = {}
        tips = {"facilitator": "who watches, infers goals and sends feedback (KIND or KIND:param=value,...)",
                "team": "who forms teams from how well agents predict each other (KIND or KIND:param=value,...)"}
        for role, label in catalog.ROLES:
            box = QComboBox()
            guard_wheel(self.wheel_guard, box)
            box.setEditable(True)
            box.setToolTip(tips.get(role, "KIND or KIND:param=value,..."))
            box.currentTextChanged.connect(lambda text, b=box, r=role: b.setToolTip(
                catalog.plain_words(text, "mechanism") + "\n\n" + tips.get(r, "KIND or KIND:param=value,...")))
            self.mechanism_boxes[role] = box
            options.addRow(label, box)
        self.facilitator = self.mechanism_boxes["facilitator"]
        self.seed = QSpinBox()
        guard_wheel(self.wheel_guard, self.seed)
        self.seed.setRange(0, 2**31 - 1)
        options.addRow("Seed", self.seed)
        self.rounds = QSpinBox()
        guard_wheel(self.wheel_guard, self.rounds)
        self.rounds.setRange(1, 1000)  # as run --rounds (docs/limits.md)
        self.rounds.setToolTip("Task rounds: the scenario is played this many times in a row by the same agents "
                               "and mechanisms (a team formed in one round plays the next); scores are the last "
                               "round's. A take-over keeps the recording's rounds.")
        options.addRow("Task rounds", self.rounds)
        layout.addLayout(options)

        buttons = QHBoxLayout()
        self.cancel_button = QPushButton("Cancel take-over")
        self.cancel_button.clicked.connect(self.end_takeover)
        self.cancel_button.hide()
        self.start_button = QPushButton("Start")
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self._start)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.start_button)
        layout.addLayout(buttons)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)  # a message may quote a file's '<...>' as written
        self.error.setStyleSheet("color: #b71c1c;")
        layout.addWidget(self.error)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setStyleSheet("color: #6b7280;")
        self.note.hide()
        layout.addWidget(self.note)

        self.world: World | None = None
        self.scenario = ""
        self.takeover_step: int | None = None
        #: the task rounds the shown scenario's file asked for (its ``start``), if any
        self._start_rounds: int | None = None
        self.infos: list[ScenarioInfo] = []
        # no world shown yet (the catalogue is being read): no choices to show, none to make
        for box in self.mechanism_boxes.values():
            if box.lineEdit() is not None:
                box.lineEdit().setPlaceholderText("…")
        self._set_ready(False)

    def _set_ready(self, ready: bool) -> None:
        """Offer the mechanisms, seed, rounds and Start once a world is shown; before that they
        are blank and disabled, so the panel never shows choices other than what plays."""
        for widget in (*self.mechanism_boxes.values(), self.seed, self.start_button):
            widget.setEnabled(ready)
        self.rounds.setEnabled(ready and self.takeover_step is None)  # a take-over keeps the recording's

    # ------------------------------------------------------------------ scenarios

    def load_scenarios(self, infos: list[ScenarioInfo], select: str = "") -> None:
        self.infos = infos
        self.tree.clear()
        titles = {name: fam.title for name, fam in plugins().items()}
        groups: dict[tuple[str, Any], QTreeWidgetItem] = {}
        worlds: dict[str, QTreeWidgetItem] = {}
        chosen = None
        for info in infos:
            world_item = worlds.get(info.family)
            if world_item is None:
                world_item = worlds[info.family] = QTreeWidgetItem(self.tree, [titles.get(info.family, info.family)])
                world_item.setExpanded(True)
            key = (info.family, info.category)
            group = groups.get(key)
            if group is None:
                group = groups[key] = QTreeWidgetItem(world_item, [catalog.category_title(info.family, info.category)])
                group.setExpanded(True)
            item = QTreeWidgetItem(group, [info.name, str(len(info.agents))])
            item.setData(0, Qt.ItemDataRole.UserRole, info)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignCenter)
            tip = f"{info.name}: {info.title}\nagents: {', '.join(info.agents)}"
            for column in range(2):
                item.setToolTip(column, tip)
            if info.name == select:
                chosen = item
        if chosen is not None:
            self.tree.setCurrentItem(chosen)

    def select_scenario(self, name: str) -> bool:
        for item in self.tree.findItems(name, Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive, 0):
            if item.data(0, Qt.ItemDataRole.UserRole) is not None:
                self.tree.setCurrentItem(item)
                return True
        return False

    def add_opened(self, world: World, scenario: str, path: str | Path | None = None, *, title: str = "",
                   description: str = "", start: Start = NO_START) -> None:
        """List a scenario opened by path (a level file outside ``scenarios/``) under its world, in
        "opened files", and select it: the panel then shows that world with its default seats."""
        titles = {name: fam.title for name, fam in plugins().items()}
        world_title = titles.get(world.family, world.family)
        top = next((self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())
                    if self.tree.topLevelItem(i).text(0) == world_title), None)
        if top is None:
            top = QTreeWidgetItem(self.tree, [world_title])
            top.setExpanded(True)
        group = next((top.child(i) for i in range(top.childCount()) if top.child(i).text(0) == OPENED), None)
        if group is None:
            group = QTreeWidgetItem(top, [OPENED])
            group.setExpanded(True)
        where = Path(path) if path is not None else Path(scenario)
        info = ScenarioInfo(name=scenario, family=world.family, path=where, title=title or scenario, category=None,
                            agents=tuple(world.agents), description=description or f"opened from {where}",
                            start=start)
        item = next((group.child(i) for i in range(group.childCount()) if group.child(i).text(0) == scenario), None)
        if item is None:
            item = QTreeWidgetItem(group, [scenario, str(len(info.agents))])
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignCenter)
        item.setData(0, Qt.ItemDataRole.UserRole, info)
        item.setData(0, WORLD_ROLE, world)
        for column in range(2):
            item.setToolTip(column, f"{scenario}: opened from {where}\nagents: {', '.join(info.agents)}")
        if self.tree.currentItem() is item:
            self._selected(item)
        else:
            self.tree.setCurrentItem(item)

    def _selected(self, item: QTreeWidgetItem | None, _previous: Any = None) -> None:
        info = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if info is None:
            return
        world = item.data(0, WORLD_ROLE)
        start = info.start
        if world is not None:  # opened by path (perhaps with reading options): kept as it was read
            name = info.name
        else:
            try:
                world, name, start = load_scenario_start(str(info.path))
            except ScenarioError as exc:
                self.error.setText(str(exc))
                return
        self.error.clear()
        self.set_world(world, name, title=info.title, description=info.description, category=info.category,
                       start=start, source=str(info.path))

    def set_world(self, world: World, scenario: str, *, title: str = "", description: str = "",
                  seats: Mapping[str, str] | None = None, category: str | None = None,
                  start: Start = NO_START, source: str = "") -> None:
        """Show ``world``: its preview, description and a seat box per agent, filled with
        ``seats``, else the scenario's ``start`` (its file's seats and mechanisms), else the
        world's defaults."""
        self.world, self.scenario = world, scenario
        self._set_ready(True)
        self.preview.setPixmap(preview_pixmap(world))
        self._fill_mechanisms(world.family, category)
        # plain text in a rich-text label: "<ball>(1) ON <basket>(1000)" must show as written
        self.description.setText(f"<b>{html.escape(title or scenario)}</b><br>"
                                 f"{html.escape(catalog.plain_description(description))}")
        problem = ""
        if seats is None and start.agents:
            from agents.registry import AgentSpecError, seat_specs

            try:
                seats = seat_specs(world.agents, list(start.agents))
            except AgentSpecError as exc:
                problem = f"{source or scenario}: field 'start.agents': {exc}"
        if start.mechanisms:  # the roles the scenario's file fills (the others as chosen or by default)
            from agents.registry import mechanism_kinds

            kinds = mechanism_kinds()
            for role, box in self.mechanism_boxes.items():
                spec = next((s for s in start.mechanisms
                             if getattr(kinds.get(s.split(":", 1)[0]), "role", None) == role), None)
                if spec is not None:
                    box.setCurrentText(spec)
                    self._defaults[role] = spec  # the scenario's own, not the person's choice
        if self.takeover_step is None:  # a take-over keeps the recording's rounds
            if start.rounds:
                self.rounds.setValue(start.rounds)
            elif self._start_rounds is not None and self.rounds.value() == self._start_rounds:
                self.rounds.setValue(1)  # the previous scenario's rounds, not the person's
            self._start_rounds = start.rounds
        while self.seats_form.rowCount():
            self.seats_form.removeRow(0)
        self.seat_boxes = {}
        choices = catalog.agent_choices(world.family)
        llm_problem = catalog.llm_availability() if any(catalog.needs_llm(k) for k, _ in choices) else None
        for agent in world.agents:
            box = QComboBox()
            box.setEditable(True)  # "boltzmann:temperature=1.0" and other parameters can be typed
            for kind, summary in choices:
                box.addItem(kind)
                _describe_item(box, kind, summary, "seat", llm_problem)
            box.setCurrentText((seats or {}).get(agent, catalog.default_agent(world)))
            box.setToolTip(catalog.plain_words(box.currentText()))
            box.currentTextChanged.connect(lambda text, b=box: b.setToolTip(
                catalog.plain_words(text) + "\n\nKIND or KIND:param=value,...  e.g. boltzmann:temperature=1.0"))
            self.seat_boxes[agent] = box
            guard_wheel(self.wheel_guard, box)
            box.currentTextChanged.connect(self._update_model_note)
            label = QLabel(f"Seat {agent}")
            label.setToolTip(f"who plays {agent}: a computer player, a language model, or you (human)")
            self.seats_form.addRow(label, box)
        for box in (*self.mechanism_boxes.values(), *self.seat_boxes.values()):
            if box.lineEdit() is not None:
                box.lineEdit().setCursorPosition(0)  # a long spec shows its kind, not its last parameters
        self._update_model_note()
        if problem:
            self.error.setText(problem)

    def _fill_mechanisms(self, family: str | None, category: str | None = None) -> None:
        """Offer the mechanisms that work in ``family``; keep a choice the person made that still
        works, else the scenario's default (``catalog.default_mechanism``)."""
        for role, box in self.mechanism_boxes.items():
            current = box.currentText().strip()
            box.blockSignals(True)
            box.clear()
            box.addItem(catalog.NONE)
            box.setItemData(0, catalog.PLAIN_MECHANISMS["none"], Qt.ItemDataRole.ToolTipRole)
            choices = catalog.mechanism_choices(role, family)
            llm_problem = catalog.llm_availability() if any(catalog.needs_llm(k) for k, _ in choices) else None
            for kind, summary in choices:
                box.addItem(kind)
                _describe_item(box, kind, summary, "mechanism", llm_problem)
            if not getattr(box, "_noted", False):
                box.currentTextChanged.connect(self._update_model_note)
                box._noted = True  # type: ignore[attr-defined]
            chosen = current != self._defaults.get(role)  # not the previous scenario's default
            keep = (chosen and current and current != catalog.NONE
                    and (family is None or catalog.mechanism_works(current, family)))
            default = catalog.default_mechanism(role, family, category)
            box.setCurrentText(current if keep else default)
            if not keep:
                self._defaults[role] = box.currentText().strip()
            box.blockSignals(False)

    def set_mechanisms(self, specs: Sequence[str]) -> None:
        """Show ``specs`` in the boxes of their roles (none where a role has no spec)."""
        from agents.registry import mechanism_kinds

        kinds = mechanism_kinds()
        for role, box in self.mechanism_boxes.items():
            chosen = [s for s in specs if getattr(kinds.get(s.split(":", 1)[0]), "role", None) == role]
            box.setCurrentText(chosen[0] if chosen else catalog.NONE)

    def _update_model_note(self, _text: str = "") -> None:
        """Say, when a seat or mechanism asks a language model and that model is the embedded
        one, that it is a smoke test, and how to point the app at a real endpoint."""
        specs = [*self.seats().values(), *self.mechanisms()] if hasattr(self, "seed") else []
        wants = any(catalog.needs_llm(spec.split(":", 1)[0].strip()) for spec in specs)
        note = catalog.embedded_model_note() if wants else None
        self.model_note.setText(note or "")
        self.model_note.setVisible(bool(note))

    def mechanisms(self) -> tuple[str, ...]:
        return tuple(t for t in (box.currentText().strip() for box in self.mechanism_boxes.values())
                     if t and t != catalog.NONE)

    def set_seat(self, agent: str, spec: str) -> None:
        self.seat_boxes[agent].setCurrentText(spec)

    def seats(self) -> dict[str, str]:
        return {agent: box.currentText().strip() for agent, box in self.seat_boxes.items()}

    # ------------------------------------------------------------------ take over

    def begin_takeover(self, world: World, scenario: str, step: int, seats: Mapping[str, str],
                       mechanisms: Sequence[str], seed: int, rounds: int = 1) -> None:
        """Set up a live session that continues ``scenario`` from ``step`` (with its ``rounds``)."""
        self.takeover_step = step
        self.tree.setEnabled(False)
        self.rounds.setValue(rounds)
        self.rounds.setEnabled(False)  # the recorded steps were played under these rounds
        self.set_world(world, scenario, title=scenario,
                       description=f"Continue from step {step}: change any seat (e.g. to human) and press "
                                   "Take over.", seats=seats)
        self.set_mechanisms(mechanisms)
        self.seed.setValue(seed)
        self.banner.setText(html.escape(f"Take over {scenario} from step {step}"))
        self.banner.show()
        self.cancel_button.show()
        self.start_button.setText("Take over")

    def end_takeover(self) -> None:
        if self.takeover_step is None:
            return
        self.takeover_step = None
        self.tree.setEnabled(True)
        self.rounds.setEnabled(True)
        self.banner.hide()
        self.cancel_button.hide()
        self.start_button.setText("Start")
        self._selected(self.tree.currentItem())
        self.takeover_cancelled.emit()

    def _start(self) -> None:
        if self.world is None:
            self.error.setText("Choose a scenario first.")
            return
        self.error.clear()
        self.start_requested.emit({"world": self.world, "scenario": self.scenario, "seats": self.seats(),
                                   "mechanisms": self.mechanisms(),
                                   "seed": int(self.seed.value()), "rounds": int(self.rounds.value()),
                                   "takeover": self.takeover_step})

    def show_error(self, message: str) -> None:
        self.error.setText(message)

    def show_note(self, message: str, details: str = "") -> None:
        """A quiet remark (e.g. files that are not scenarios), with details on hover."""
        self.note.setText(message)
        self.note.setToolTip(details)
        self.note.setVisible(bool(message))


def _describe_item(box: QComboBox, kind: str, summary: str, role: str, llm_problem: str | None) -> None:
    """Tooltip in plain words; a kind that needs a language model is greyed out, with the reason,
    when none can answer here (it can still be typed, and Start says why it fails)."""
    index = box.count() - 1
    tip = catalog.plain_words(kind, role) + f"\n\n({summary})"
    if catalog.needs_llm(kind) and llm_problem:
        tip = f"NOT AVAILABLE here: {llm_problem}\n\n" + tip
        box.setItemText(index, kind)
        box.setItemData(index, QColor(150, 150, 150), Qt.ItemDataRole.ForegroundRole)
        item = box.model().item(index)
        if item is not None:
            item.setEnabled(False)
    box.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
