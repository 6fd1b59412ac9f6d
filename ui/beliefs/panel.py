"""The belief-world panel: every agent's collaborative belief world as it was at the shown step.

It shows the ``symbolic_beliefs`` snapshots of any mind that emits them (CoBel-World's
``BeliefWorld.to_snapshot()``, docs/cobel.md), in any world, as a tree: per agent its own
(zero-order) beliefs, then per collaborator what it believes that collaborator believes
(first-order), each with its probability; the predicted intents of each collaborator with their
probabilities (belief kind ``intents``: ``{"about": {partner: [{"intent", "p"}]}}``).

Marks:

* **changed** (yellow): new, or its probability changed, since the agent's previous snapshot;
  beliefs held then and dropped now are listed under *no longer held*;
* **misaligned between minds** (red), found by ``team_misalignments`` over the latest snapshots of
  all agents: A believes X and B believes another value of the same slot (``conflict``), or A
  believes B believes X and B does not (``false_belief``). Each is marked in both agents' views;
  where an agent lacks the belief, the missing statement is shown under its group, struck out;
* **misaligned as the agent sees it** (orange): the snapshot's own ``misaligned`` list (it believes
  X and believes its partner believes otherwise, or does not know).

The panel registers itself for the belief kind ``symbolic_beliefs`` when this module is imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PyQt6.QtCore import QSize, Qt
from PyQt6.QtGui import QBrush, QColor, QFont
from PyQt6.QtWidgets import QCheckBox, QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from agents.cobel.belief_world import SNAPSHOT_KIND, BeliefWorld, team_misalignments
from agents.cobel.sbl import DEFAULT_VOCABULARY, AttributeSpec, PredicateSpec, Vocabulary
from sim.snapshots import Intents, SymbolicBeliefs, read_snapshot
from ui.beliefs.view import beliefs_for
from ui.beliefs.words import sbl_in_words
from ui.panels.common import register_panel
from ui.session.timeline import Timeline

INTENTS_KIND = Intents.kind
CHANGED = QColor(255, 241, 168)
BETWEEN = QColor(255, 196, 200)
PERCEIVED = QColor(255, 222, 184)
REMOVED = QColor(120, 124, 134)


@dataclass
class BeliefRow:
    """One line of an agent's view, as shown (also what tests read)."""

    group: str              # "zero" | "first:<partner>" | "intents:<partner>" | "removed"
    text: str               # the full SBL statement (or the intent)
    shown: str              # what the row says
    p: float | None
    changed: bool = False
    present: bool = True    # False: a statement the agent lacks, shown for a misalignment
    between: list[str] = field(default_factory=list)    # summaries of misalignments between minds
    perceived: list[str] = field(default_factory=list)  # summaries of the agent's own perceived ones
    words: str = ""         # the statement in plain words (``ui.beliefs.words``), what the row says by default


def vocabulary_for(snapshots: Iterable[SymbolicBeliefs]) -> Vocabulary:
    """The default SBL vocabulary, extended with any keyword the snapshots use that it lacks (a
    world's own predicates, e.g. the household's WILL_FETCH), so any agent's snapshots compare:
    ``X KEYWORD <thing>(n)`` becomes a predicate that places nothing (a fact), ``X KEYWORD word``
    an attribute with any state."""
    predicates: dict[str, PredicateSpec] = {}
    attributes: dict[str, AttributeSpec] = {}
    for snapshot in snapshots:
        for entry in _entries(snapshot):
            atom = re.sub(r"<[^<>()]*>\(\d+\)", "<x>(0)", str(entry.get("atom", "")))
            words = atom.split()
            if len(words) != 3 or not re.fullmatch(r"[A-Z][A-Z0-9_]*", words[1]):
                continue
            keyword = words[1]
            if DEFAULT_VOCABULARY.predicate(keyword) or DEFAULT_VOCABULARY.attribute(keyword):
                continue
            if words[2].startswith("<"):
                predicates.setdefault(keyword, PredicateSpec(keyword, "a world's own predicate", source="snapshot"))
            else:
                attributes.setdefault(keyword, AttributeSpec(keyword, "a world's own attribute", source="snapshot"))
    if not predicates and not attributes:
        return DEFAULT_VOCABULARY
    return DEFAULT_VOCABULARY.extend(predicates=predicates.values(), attributes=attributes.values())


def between_minds(snapshots: Sequence[SymbolicBeliefs]) -> list[dict[str, Any]]:
    """Misalignments between every pair of the given agents' snapshots (JSON, with marks); a
    snapshot the SBL cannot read is left out of the comparison rather than breaking the view."""
    vocabulary = vocabulary_for(snapshots)
    readable = []
    for snapshot in snapshots:
        try:
            BeliefWorld.from_snapshot(snapshot, vocabulary=vocabulary)
        except ValueError:
            continue
        readable.append(snapshot)
    return team_misalignments(readable, vocabulary=vocabulary) if len(readable) > 1 else []


def _shown(text: str, owner: str, partner: str | None = None) -> str:
    """``alice BELIEVE bob BELIEVE x`` reads ``x`` under the group that says whose belief it is."""
    prefix = f"{owner} BELIEVE " + (f"{partner} BELIEVE " if partner else "")
    return text[len(prefix):] if text.startswith(prefix) else text


def agent_rows(owner: str, data: SymbolicBeliefs, previous: SymbolicBeliefs | None,
               intents: Intents | None, between: Sequence[Mapping[str, Any]],
               highlight: bool) -> list[BeliefRow]:
    """Every row of ``owner``'s view: its beliefs, what it believes each partner believes, the
    partners' predicted intents, what it no longer holds; marked as described above."""
    rows: list[BeliefRow] = []
    before: dict[str, float] | None = None
    if previous is not None:
        before = {e["text"]: e["p"] for e in _entries(previous)}
    changed_listed = set(data.changed)

    def is_changed(text: str, p: float) -> bool:
        if not highlight:
            return False
        return before.get(text) != p if before is not None else text in changed_listed

    for entry in data.zero_order:
        rows.append(BeliefRow("zero", entry["text"], _shown(entry["text"], owner), float(entry["p"]),
                              is_changed(entry["text"], entry["p"])))
    for partner, entries in data.first_order.items():
        for entry in entries or ():
            rows.append(BeliefRow(f"first:{partner}", entry["text"], _shown(entry["text"], owner, partner),
                                  float(entry["p"]), is_changed(entry["text"], entry["p"])))
    if highlight:
        current = {r.text for r in rows}
        gone = [t for t in before if t not in current] if before is not None else list(data.removed)
        rows += [BeliefRow("removed", t, t, None, changed=True) for t in sorted(gone)]

    by_text = {r.text: r for r in rows if r.group != "removed"}

    def mark(m: Mapping[str, Any], perceived: bool) -> None:
        for spot in m.get("marks") or ():
            if spot.get("agent") != owner:
                continue
            text = str(spot.get("text", ""))
            row = by_text.get(text)
            if row is None:
                partner = spot.get("about")
                group = f"first:{partner}" if spot.get("order") == 1 and partner else "zero"
                row = BeliefRow(group, text, _shown(text, owner, partner if group != "zero" else None), None,
                                present=False)
                rows.append(row)
                by_text[text] = row
            (row.perceived if perceived else row.between).append(str(m.get("summary", m.get("kind", ""))))

    for m in between:
        mark(m, perceived=False)
    for m in data.misaligned or ():
        mark(m, perceived=True)

    for partner, hypotheses in (intents.about if intents is not None else {}).items():
        for h in hypotheses or ():
            rows.append(BeliefRow(f"intents:{partner}", str(h.get("intent")), str(h.get("intent")),
                                  float(h.get("p", 0.0))))
    return rows


def _entries(data: SymbolicBeliefs) -> list[Mapping[str, Any]]:
    out = list(data.zero_order)
    for entries in data.first_order.values():
        out += list(entries or ())
    return out


class BeliefWorldPanel(QWidget):
    """Each agent's collaborative belief world at the shown step (see the module's doc)."""

    panel_title = "Beliefs"
    panel_tooltip = ("Each agent's symbolic beliefs (zero-order) and what it believes the others believe "
                     "(first-order), with probabilities; yellow: changed at this step; red: misaligned with "
                     "another agent's mind; orange: a misalignment the agent itself perceives; predicted intents")

    COLUMNS = ("belief", "p", "misalignment")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel("Belief worlds appear here once an agent reports them.")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.caption)
        self.raw = QCheckBox("raw SBL")
        self.raw.setToolTip("Show each belief as the agents write it (Symbolic Belief Language, with entity ids) "
                            "instead of in plain words")
        self.raw.toggled.connect(lambda _on: self._rebuild())
        layout.addWidget(self.raw)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(self.COLUMNS))
        self.tree.setHeaderLabels(self.COLUMNS)
        self.tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.tree.setColumnWidth(0, 330)
        layout.addWidget(self.tree)
        self.window_: Any = None
        self._shown_key: Any = None
        self._collapsed: set[tuple[str, ...]] = set()
        self.tree.itemCollapsed.connect(lambda item: self._collapsed.add(self._path(item)))
        self.tree.itemExpanded.connect(lambda item: self._collapsed.discard(self._path(item)))
        #: agent -> rows as last shown; the misalignments between minds as last shown
        self.views: dict[str, list[BeliefRow]] = {}
        self.misalignments: list[dict[str, Any]] = []

    def bind_window(self, window: Any) -> None:
        self.window_ = window

    def sizeHint(self) -> QSize:
        return QSize(420, 420)

    def _agent_color(self, agent: str) -> QColor:
        renderer = getattr(self.window_, "renderer", None)
        if renderer is not None:
            try:
                return QColor(*renderer.agent_color(agent))
            except (ValueError, TypeError):
                pass
        return QColor(60, 64, 72)

    @staticmethod
    def _path(item: QTreeWidgetItem) -> tuple[str, ...]:
        path = []
        while item is not None:
            path.append(str(item.data(0, Qt.ItemDataRole.UserRole)))
            item = item.parent()
        return tuple(reversed(path))

    # ------------------------------------------------------------------ reading the timeline

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        if timeline is None or not timeline.has_belief_kind(SNAPSHOT_KIND):
            if self._shown_key is not None:
                self._shown_key = None
                self.views, self.misalignments = {}, []
                self.tree.clear()
                self.caption.setText("Belief worlds appear here once an agent reports them.")
            return
        owners = sorted(timeline.belief_owners(SNAPSHOT_KIND))
        events = {o: timeline.belief_at(o, SNAPSHOT_KIND, tick) for o in owners}
        # a snapshot that does not fit its kind (a hand-edited recording) is left out
        snaps = {o: (e, typed) for o, e in events.items()
                 if e is not None and (typed := read_snapshot(SymbolicBeliefs, e.data)) is not None}
        intents = {o: timeline.belief_at(o, INTENTS_KIND, tick) for o in owners}
        key = (id(timeline), tick, tuple((o, id(e)) for o, (e, _) in snaps.items()),
               tuple(id(i) for i in intents.values()))
        if key == self._shown_key:
            return
        self._shown_key = key
        between = between_minds([typed for _, typed in snaps.values()])
        self.misalignments = between
        self.views = {}
        for owner, (snap, typed) in snaps.items():
            previous = timeline.belief_at(owner, SNAPSHOT_KIND, snap.tick - 1)
            intent = intents.get(owner)
            self.views[owner] = agent_rows(
                owner, typed, read_snapshot(SymbolicBeliefs, previous.data) if previous is not None else None,
                read_snapshot(Intents, intent.data) if intent is not None else None, between,
                highlight=snap.tick == tick)
        adapter = beliefs_for(timeline.world)
        namer = adapter.namer
        state = timeline.state_at(max(0, min(tick - 1, timeline.num_steps)))  # the state the minds decided in
        for rows in self.views.values():
            for row in rows:
                if row.group.startswith("intents"):
                    row.words = row.shown
                    continue
                row.words = sbl_in_words(row.text, namer)
                note = adapter.reality_note(state, row.text)
                if note and row.present and row.group != "removed":
                    row.words += f"; {note}"
        changed = sum(r.changed for rows in self.views.values() for r in rows)
        self.caption.setText(
            f"Belief worlds at step {tick}: <span style='background:#fff1a8'>&nbsp;{changed} changed&nbsp;</span> "
            f"<span style='background:#ffc4c8'>&nbsp;{len(between)} misaligned between minds&nbsp;</span> "
            f"<span style='background:#ffdeb8'>&nbsp;perceived by the agent&nbsp;</span>")
        self._rebuild()

    # ------------------------------------------------------------------ drawing the tree

    def _rebuild(self) -> None:
        tree = self.tree
        scroll = tree.verticalScrollBar().value()
        tree.setUpdatesEnabled(False)
        tree.clear()
        bold = QFont(tree.font())
        bold.setBold(True)
        for owner, rows in self.views.items():
            top = self._item(None, owner, f"{owner}", "", "")
            top.setFont(0, bold)
            top.setForeground(0, QBrush(self._agent_color(owner)))
            marked = sum(bool(r.between) for r in rows)
            if marked:
                top.setText(2, f"{marked} misaligned")
                top.setForeground(2, QBrush(QColor(190, 40, 40)))
            groups: dict[str, QTreeWidgetItem] = {}
            for row in rows:
                parent = groups.get(row.group)
                if parent is None:
                    parent = groups[row.group] = self._item(top, row.group, self._group_title(owner, row.group), "", "")
                    parent.setFont(0, bold)
                p = "" if row.p is None else f"{row.p:.2f}"
                note = "; ".join(row.between + row.perceived)
                item = self._item(parent, row.text, row.shown if self.raw.isChecked() or not row.words else row.words,
                                  p, note)
                item.setToolTip(0, row.text + ("\n" + "\n".join(row.between + row.perceived) if note else ""))
                self._style(item, row)
        for i in range(tree.topLevelItemCount()):
            self._expand(tree.topLevelItem(i))
        tree.setUpdatesEnabled(True)
        tree.verticalScrollBar().setValue(scroll)

    def _expand(self, item: QTreeWidgetItem) -> None:
        item.setExpanded(self._path(item) not in self._collapsed)
        for k in range(item.childCount()):
            child = item.child(k)
            if child.childCount():
                self._expand(child)

    def _item(self, parent: QTreeWidgetItem | None, key: str, *texts: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(list(texts))
        item.setData(0, Qt.ItemDataRole.UserRole, key)
        if parent is None:
            self.tree.addTopLevelItem(item)
        else:
            parent.addChild(item)
        return item

    @staticmethod
    def _group_title(owner: str, group: str) -> str:
        kind, _, partner = group.partition(":")
        return {"zero": f"what {owner} believes",
                "first": f"what {owner} believes {partner} believes",
                "intents": f"{partner}'s intent, as {owner} predicts it",
                "removed": "no longer held (since the previous step)"}[kind]

    def _style(self, item: QTreeWidgetItem, row: BeliefRow) -> None:
        color = BETWEEN if row.between else PERCEIVED if row.perceived else CHANGED if row.changed else None
        if row.group == "removed":
            color = CHANGED
        if color is not None:
            for c in range(len(self.COLUMNS)):
                item.setBackground(c, QBrush(color))
        if not row.present or row.group == "removed":
            font = QFont(item.font(0))
            font.setStrikeOut(True)
            font.setItalic(True)
            item.setFont(0, font)
            item.setForeground(0, QBrush(REMOVED))
            if not row.present:
                item.setText(1, "—")
        if row.between:
            item.setForeground(2, QBrush(QColor(170, 30, 30)))

    # ------------------------------------------------------------------ for tests and exports

    def rows(self, agent: str) -> list[BeliefRow]:
        return list(self.views.get(agent, ()))

    def marked(self, agent: str) -> list[BeliefRow]:
        """Rows of ``agent`` marked misaligned between minds."""
        return [r for r in self.views.get(agent, ()) if r.between]


register_panel(BeliefWorldPanel.panel_title, lambda: BeliefWorldPanel(), belief_kind=SNAPSHOT_KIND,
               tooltip=BeliefWorldPanel.panel_tooltip)
