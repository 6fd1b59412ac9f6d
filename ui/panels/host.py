"""The panels of the window: the Minds tabs, the docks panels ask for, the feedback history and the
event log, refreshed from the app model at 10 Hz or more (only when the episode or the cursor
changed). Panels are QWidgets with ``show_at(timeline, tick)`` (``ui/panels/common.py``); each keeps
what it drew and reads only what is new, so a refresh costs the same at step 10 and 10,000."""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import QObject, Qt, QTimer
from PyQt6.QtWidgets import QDockWidget, QLabel, QMainWindow, QScrollArea, QTabWidget, QWidget

from sim.events import LLMCallEvent
from ui.beliefs.timeline_panel import BeliefTimelinePanel  # noqa: F401  (registers the belief timeline)
from ui.panels.common import PANELS, EventLogPanel, FeedbackHistoryPanel, PanelKind, family_panels, load_plugin_panels
from ui.panels.teams import level_badges  # noqa: F401  (registers the team panels)
from ui.panels.usage import LLMUsagePanel
from ui.session.catalog import needs_llm
from ui.session.model import AppModel
from ui.session.timeline import Timeline

USAGE_TIP = ("Calls to a language model by LLM seats and facilitators: how many, the words sent (prompt tokens) "
             "and received (completion tokens), failures and time, up to the shown step")


class PanelHost(QObject):
    """Creates, docks, removes and refreshes the panels of the shown episode."""

    def __init__(self, window: QMainWindow, model: AppModel, tokens_label: QLabel) -> None:
        super().__init__(window)
        self.window, self.model, self.tokens_label = window, model, tokens_label
        #: why panels that plug-ins name could not be imported (``load_plugin_panels``)
        self.problems: list[str] = []
        self.plugin_panels_loaded = False
        #: panels shown for the current episode: title -> widget (tabs of the Minds dock, or docks)
        self.widgets: dict[str, QWidget] = {}
        self.docks: dict[str, QDockWidget] = {}
        self._key: tuple = ()
        self.tabs = QTabWidget()  # panels join as the episode's minds report what they show
        self.tabs.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # Several tabs in a narrow dock: whole labels (two tabs must never look alike), and arrows
        # to scroll the tab bar when they do not fit; the dock never widens the window for them
        self.tabs.setUsesScrollButtons(True)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        self.tabs.tabBar().setExpanding(False)
        #: the LLM usage tab, in the Minds dock (last) only while the shown episode uses a model
        self.usage = LLMUsagePanel()
        self.feedback = FeedbackHistoryPanel()
        self.feedback.setToolTip("Every suggestion a facilitator made, to whom, and what became of it: sent, "
                                 "accepted, Completed, Ignored, Not Executable")
        self.log = EventLogPanel()
        self.log.setToolTip("Everything that happened, step by step: moves, feedback, messages, model calls, "
                            "errors (it follows the shown step)")
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.refresh)

    def dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(title.replace(" ", "_"))
        dock.setWidget(widget)
        self.window.addDockWidget(area, dock)
        return dock

    def set_rate(self, hz: float) -> None:
        self.timer.setInterval(int(1000 / max(10, hz)))
        self.timer.start()

    def install(self, timeline: Timeline | None, action_label: Any = None) -> None:
        """Start the panels of a new episode afresh: the world family's own panels at once, the
        generic ones (goal inference, teams, messages...) as their data arrives."""
        for title in list(self.widgets):
            widget = self.widgets.pop(title)
            dock = self.docks.pop(title, None)
            if dock is not None:
                self.window.removeDockWidget(dock)
                dock.deleteLater()
            else:
                self.tabs.removeTab(self.tabs.indexOf(widget))
                widget.deleteLater()
        self.log.set_action_label(action_label)
        if timeline is not None:
            for kind in family_panels(timeline.world.family):
                self.add(kind)
            self.sync()
            if not self.plugin_panels_loaded:
                # what the other worlds' plug-ins register by kind of data: after the episode's first
                # frame is on screen (their modules would delay it), then shown as their data arrives
                self.window.view.after_next_frame(self.load_plugin_panels)  # type: ignore[attr-defined]

    def load_plugin_panels(self) -> None:
        """Import the panels every plug-in names (once), so that those registered by a kind of data
        show for any world's episodes; keep the problems (a panel that cannot be imported)."""
        if self.plugin_panels_loaded:
            return
        self.plugin_panels_loaded = True
        self.problems = load_plugin_panels()
        self.sync()

    def add(self, kind: PanelKind) -> QWidget:
        panel = kind.factory()
        area = getattr(panel, "dock_area", None)  # a panel that wants a dock of its own (a board's controls)
        if area is None:  # before the LLM usage tab (if shown), which stays last; the first mind panel shows
            showing_usage = self.tabs.currentWidget() is self.usage
            index = self.tabs.insertTab(self.tabs.indexOf(self.usage), panel, kind.title)  # -1: at the end
            self.tabs.setTabToolTip(index, kind.tooltip)
            if showing_usage:
                self.tabs.setCurrentIndex(index)
        else:  # scrolls rather than forcing the window taller than a laptop screen
            holder = QScrollArea()
            holder.setWidgetResizable(True)
            holder.setWidget(panel)
            holder.inner = panel  # type: ignore[attr-defined]
            holder.setToolTip(kind.tooltip)
            # never a sliver: the board keeps room for a row of its controls whatever layout the
            # window had (a maximized window's, another world's, one remembered from an earlier run)
            holder.setMinimumSize(min(420, panel.minimumSizeHint().width()), 200)
            dock = self.docks[kind.title] = self.dock(kind.title, holder, area)
            dock.setFloating(False)
            dock.show()
            vertical = area in (Qt.DockWidgetArea.TopDockWidgetArea, Qt.DockWidgetArea.BottomDockWidgetArea)
            wanted = min(panel.sizeHint().height() if vertical else panel.sizeHint().width(),
                         (self.window.height() if vertical else self.window.width()) // 3)
            self.window.resizeDocks([dock], [max(200, wanted)],
                                    Qt.Orientation.Vertical if vertical else Qt.Orientation.Horizontal)
        if hasattr(panel, "bind_window"):  # panels that send intents or read the renderer's colours
            panel.bind_window(self.window)
        self.widgets[kind.title] = panel
        return panel

    def undock_world_panels(self) -> None:
        """Take the shown world's own docks out of the window (before its layout is saved: the
        saved layout is the app's, and a world's dock starts afresh each time it is shown)."""
        for title in list(self.docks):
            self.window.removeDockWidget(self.docks[title])

    def uses_model(self) -> bool:
        """True when a seat or mechanism of the shown episode asks a language model (or its events
        hold a model call): only then does the Minds dock show the LLM usage tab."""
        timeline = self.model.timeline
        if timeline is None:
            return False
        specs = [*self.model.seat_specs.values(), *self.model.mechanism_specs]
        return (any(needs_llm((spec or "").split(":", 1)[0].strip()) for spec in specs)
                or timeline.count_of(LLMCallEvent, timeline.num_steps) > 0)

    def sync(self) -> None:
        """Add the registered panels whose kind of data the episode now holds; show the LLM usage
        tab only in an episode that uses a model."""
        timeline = self.model.timeline
        index = self.tabs.indexOf(self.usage)
        if self.uses_model() and index < 0:
            self.tabs.setTabToolTip(self.tabs.addTab(self.usage, "LLM usage"), USAGE_TIP)
        elif index >= 0 and not self.uses_model():
            self.tabs.removeTab(index)
        if timeline is None:
            return
        for kind in PANELS:
            if kind.title not in self.widgets and kind.shows(timeline):
                # shown at once: a panel never waits for the next refresh without its episode
                self.add(kind).show_at(timeline, self.model.cursor)

    def panel(self, title: str) -> QWidget | None:
        """The panel shown under ``title`` (its inner widget when it scrolls), if any."""
        widget = self.widgets.get(title)
        return getattr(widget, "inner", widget)

    def refresh(self, force: bool = False) -> None:
        """Redraw the panels when the timeline or the cursor changed (runs at >= 10 Hz)."""
        timeline, cursor = self.model.timeline, self.model.cursor
        key = (id(timeline), timeline.version if timeline else 0, cursor)
        if key == self._key and not force:
            return
        self._key = key
        self.sync()
        for panel in (self.log, self.feedback, self.usage, *self.widgets.values()):
            panel.show_at(timeline, cursor)
        prompt, completion = self.usage.totals()
        self.tokens_label.setText(f"LLM tokens {prompt}+{completion}" if prompt or completion else "")
