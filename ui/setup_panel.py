"""The session panel: a scenario browser (by world and category, with a preview), a seat
for each agent (planners, LLM agents, human), a mechanism per role (facilitator, teams),
the seed, and Start.
The same panel sets up "take over from here" from a replayed or live step, and the task rounds
an episode plays (the scenario again, same agents and mechanisms)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pygame
from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QColor, QImage, QPixmap
from PyQt6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sim.plugins import plugins
from sim.registry import ScenarioError, ScenarioInfo, load_scenario
from sim.world import World
from ui import catalog
from ui.render import renderer_for
from ui.worldview import init_pygame


def preview_pixmap(world: World, width: int = 300, height: int = 200) -> QPixmap:
    """A small picture of a world's first state (a copy is fine here: drawn once)."""
    init_pygame()
    surface = pygame.Surface((width, height), 0, 32)
    renderer = renderer_for(world)
    renderer.layout(width, height)
    renderer.draw(surface, world.reset(0))
    data = pygame.image.tobytes(surface, "RGBX")
    image = QImage(data, width, height, QImage.Format.Format_RGBX8888).copy()
    return QPixmap.fromImage(image)


class SetupPanel(QWidget):
    #: {"world", "scenario", "seats", "mechanisms", "seed", "rounds", "takeover"}
    start_requested = pyqtSignal(dict)
    takeover_cancelled = pyqtSignal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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

        self.preview = QLabel()
        self.preview.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.preview.setFrameShape(QFrame.Shape.StyledPanel)
        self.preview.setMinimumHeight(120)
        layout.addWidget(self.preview)
        self.description = QLabel()
        self.description.setWordWrap(True)
        layout.addWidget(self.description)

        self.seats_form = QFormLayout()
        layout.addLayout(self.seats_form)
        self.seat_boxes: dict[str, QComboBox] = {}

        options = QFormLayout()
        #: one editable choice per mechanism role ("facilitator", "team")
        self.mechanism_boxes: dict[str, QComboBox] = {}
        #: the default each role's box was last given (a choice equal to it is not the person's)
        self._defaults: dict[str, str] = {}
        tips = {"facilitator": "who watches, infers goals and sends feedback (KIND or KIND:param=value,...)",
                "team": "who forms teams from how well agents predict each other (KIND or KIND:param=value,...)"}
        for role, label in catalog.ROLES:
            box = QComboBox()
            box.setEditable(True)
            box.setToolTip(tips.get(role, "KIND or KIND:param=value,..."))
            box.currentTextChanged.connect(lambda text, b=box, r=role: b.setToolTip(
                catalog.plain_words(text, "mechanism") + "\n\n" + tips.get(r, "KIND or KIND:param=value,...")))
            self.mechanism_boxes[role] = box
            options.addRow(label, box)
        self.facilitator = self.mechanism_boxes["facilitator"]
        self._fill_mechanisms(None)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        options.addRow("Seed", self.seed)
        self.rounds = QSpinBox()
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
        self.error.setStyleSheet("color: #b71c1c;")
        layout.addWidget(self.error)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #6b7280;")
        self.note.hide()
        layout.addWidget(self.note)

        self.world: World | None = None
        self.scenario = ""
        self.takeover_step: int | None = None
        self.infos: list[ScenarioInfo] = []

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

    def _selected(self, item: QTreeWidgetItem | None, _previous: Any = None) -> None:
        info = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if info is None:
            return
        try:
            world, name = load_scenario(str(info.path))
        except ScenarioError as exc:
            self.error.setText(str(exc))
            return
        self.error.clear()
        self.set_world(world, name, title=info.title, description=info.description, category=info.category)

    def set_world(self, world: World, scenario: str, *, title: str = "", description: str = "",
                  seats: Mapping[str, str] | None = None, category: str | None = None) -> None:
        self.world, self.scenario = world, scenario
        self.preview.setPixmap(preview_pixmap(world))
        self._fill_mechanisms(world.family, category)
        self.description.setText(f"<b>{title or scenario}</b><br>{catalog.plain_description(description)}")
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
            box.setCurrentText((seats or {}).get(agent, catalog.default_agent(world.family)))
            box.setToolTip(catalog.plain_words(box.currentText()))
            box.currentTextChanged.connect(lambda text, b=box: b.setToolTip(
                catalog.plain_words(text) + "\n\nKIND or KIND:param=value,...  e.g. boltzmann:temperature=1.0"))
            self.seat_boxes[agent] = box
            label = QLabel(f"Seat {agent}")
            label.setToolTip(f"who plays {agent}: a computer player, a language model, or you (human)")
            self.seats_form.addRow(label, box)

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
        self.banner.setText(f"Take over {scenario} from step {step}")
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
