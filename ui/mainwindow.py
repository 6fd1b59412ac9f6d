"""The main window: world view, side panels, feedback pop-ups, playback, live sessions and replays.

Everything the window shows is read from a Timeline at a cursor (a step number). A live
session's worker thread extends its Timeline through queued signals; a recording is
replayed from its file. Playback moves the cursor; at the end of a live Timeline,
playing asks the session for more steps. Views never change a World: human actions and
feedback decisions go to the session's worker through the runner.
"""

from __future__ import annotations

import datetime as _dt
import threading
import time
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QByteArray, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QIcon, QKeySequence
from PyQt6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agents.human import HumanAgent
from sim.events import FeedbackEvent, MessageEvent
from sim.plugins import plugins
from sim.recording import RecordingError
from sim.registry import ScenarioError
from sim.replay import Replay
from sim.session import Session
from ui import catalog, errors
from ui.catalog import SessionPlan
from ui.panels import (
    PANELS,
    EventLogPanel,
    FeedbackHistoryPanel,
    PanelKind,
    family_panels,
    latest_beliefs,
    load_plugin_panels,
)
from ui.playback import PlaybackBar
from ui.render import Overlays, WorldRenderer, renderer_for
from ui.render.base import ASSET_DIR, SECOND_SEAT_KEYS
from ui.runner import Batch, SessionRunner
from ui.settings import AppSettings, SettingsDialog
from ui.setup_panel import SetupPanel
from ui.teams_panel import level_badges  # also registers the team panels
from ui.timeline import PLAN, LiveTimeline, PreviewTimeline, ReplayTimeline, Timeline
from ui.toast import FeedbackToast, InfoCard, episode_summary
from ui.usage import LLMUsagePanel
from ui.worldview import WorldView

RECORDING_SUFFIXES = (".jsonl", ".gz", ".json")
LOAD_ERRORS = (RecordingError, ScenarioError, LookupError, KeyError, ValueError, OSError)
OPEN_STATUSES = ("sent", "accepted")


def spec_from_description(described: Any) -> str:
    """An agent spec ("boltzmann:temperature=0.5") from a recording header's describe() dict."""
    if not isinstance(described, dict) or not described.get("kind"):
        return ""
    params = [f"{k}={v}" for k, v in described.items()
              if k not in ("kind", "name") and isinstance(v, (int, float, str, bool))]
    return described["kind"] + (":" + ",".join(params) if params else "")


class Stage(QWidget):
    """The world view with the feedback toast floating over it."""

    def __init__(self, view: WorldView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(view)
        self.toast = FeedbackToast(self)
        self.card = InfoCard(self)  # the end-of-episode summary, the first-run hint

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        for floating in (self.toast, self.card):
            if floating.isVisible():
                floating.place()


class MainWindow(QMainWindow):
    error_reported = pyqtSignal(str)
    #: (path, ReplayTimeline or an error message, seconds) from a background load
    recording_loaded = pyqtSignal(object, object, float)

    def __init__(self, settings: AppSettings | None = None) -> None:
        super().__init__()
        self.settings = settings or AppSettings()
        self.setWindowTitle("ToM Arena")
        icon_path = ASSET_DIR / "icon.png"
        if icon_path.exists():
            self.setWindowIcon(QIcon(str(icon_path)))
        self.setAcceptDrops(True)

        self.timeline: Timeline | None = None
        self.renderer: WorldRenderer | None = None
        self.runner: SessionRunner | None = None
        self.session: Session | None = None
        self.cursor = 0
        self.follow = True
        self.playing = False
        self.seat_specs: dict[str, str] = {}
        self.mechanism_specs: tuple[str, ...] = ()
        self.humans: dict[str, HumanAgent] = {}
        #: whose eyes the map is drawn with: "auto" (the seat a person plays), "all", or an agent
        self.viewer_choice = "auto"
        #: the human seat the main keys drive when several wait at once (F6 cycles)
        self.key_seat: str | None = None
        #: the page of numbered actions shown, for the (seat, legal actions) it was chosen for
        self.action_page = 0
        self._page_for: tuple[Any, ...] | None = None
        #: belief kinds the map does not draw now (View menu switches such as the particles')
        self.hidden_beliefs: set[str] = set()
        #: panels that plug-ins name, imported now so that they show for any world's episodes
        self.panel_problems = load_plugin_panels()
        #: panels shown for the current episode: title -> widget (tabs of the Minds dock or docks)
        self.panel_widgets: dict[str, QWidget] = {}
        self._panel_docks: dict[str, QDockWidget] = {}
        self.thinking: frozenset[str] = frozenset()
        self.recording_path: Path | None = None
        self.exit_when_done = False
        self._finished_runners: list[SessionRunner] = []
        self._loaders: list[threading.Thread] = []
        self._panel_key: tuple = ()
        self._play_clock = 0.0
        self._play_budget = 0.0

        # ---- central: world view, toast, human action bar, playback
        self.view = WorldView()
        self.view.key_pressed.connect(self._on_key)
        self.view.set_animation_seconds(0.15)
        self.stage = Stage(self.view)
        self.toast = self.stage.toast
        self.toast.decided.connect(self._on_feedback_decided)
        self.toast.popups_off.connect(lambda: self.set_popups(False))
        self.card = self.stage.card
        #: False once the person turned feedback pop-ups off for the shown episode
        self.popups = True
        self._play_when_loaded = False
        self.discard_box: QMessageBox | None = None
        self.help_dialog: Any = None
        self.action_bar = QLabel()
        self.action_bar.setWordWrap(True)
        self.action_bar.setStyleSheet("padding: 4px 8px; background: #e8f5e9; color: #1b5e20;")
        self.action_bar.hide()
        # A person's message, in worlds where agents talk (World.message_action)
        self.say_box = QLineEdit()
        self.say_box.setClearButtonEnabled(True)
        self.say_box.returnPressed.connect(self.send_message)
        self.say_box.hide()
        self._make_actions()
        self.playback = PlaybackBar(self.actions_by_name)
        self.playback.seek_requested.connect(lambda k: self.seek(k))
        self.playback.speed_changed.connect(self._on_speed)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.stage, 1)
        layout.addWidget(self.action_bar)
        layout.addWidget(self.say_box)
        layout.addWidget(self.playback)
        self.setCentralWidget(central)

        # ---- docks
        self.setup = SetupPanel()
        self.setup.start_requested.connect(self._on_start_requested)
        self.setup_dock = self._dock("Session", self.setup, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.panel_tabs = QTabWidget()  # panels join as the episode's minds report what they show
        self.panel_tabs.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # Several tabs in a narrow dock: short tab labels that elide, never scroll arrows over them
        self.panel_tabs.setUsesScrollButtons(False)
        self.panel_tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.panel_tabs.tabBar().setExpanding(False)
        self.usage_panel = LLMUsagePanel()
        self.panel_tabs.addTab(self.usage_panel, "LLM usage")
        self.panel_tabs.setTabToolTip(0, "Calls to a language model by LLM seats and facilitators: how many, the "
                                         "words sent (prompt tokens) and received (completion tokens), failures "
                                         "and time, up to the shown step")
        self.minds_dock = self._dock("Minds", self.panel_tabs, Qt.DockWidgetArea.RightDockWidgetArea)
        self.feedback_panel = FeedbackHistoryPanel()
        self.feedback_dock = self._dock("Feedback history", self.feedback_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.log_panel = EventLogPanel()
        self.log_dock = self._dock("Event log", self.log_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.setup.setToolTip("Choose a scenario (by world and category), who plays each seat, who watches "
                              "(facilitator, teams) and the seed, then press Start")
        self.minds_dock.setToolTip("What the minds of the episode believe: a tab for each kind of belief it "
                                   "reports (hover a tab for what it means)")
        self.feedback_panel.setToolTip("Every suggestion a facilitator made, to whom, and what became of it: sent, "
                                       "accepted, Completed, Ignored, Not Executable")
        self.log_dock.setToolTip("Everything that happened, step by step, up to the shown step")
        self.log_panel.setToolTip("Everything that happened, step by step: moves, feedback, messages, model "
                                  "calls, errors (it follows the shown step)")
        self._make_menus()

        # ---- status bar
        self.mode_label = QLabel("no episode")
        self.step_label = QLabel("")
        self.score_label = QLabel("")
        self.tokens_label = QLabel("")
        self.thinking_label = QLabel("")
        self.thinking_label.setStyleSheet("color: #1e6eeb; font-weight: bold;")
        bar = self.statusBar()
        bar.addWidget(self.mode_label, 1)
        bar.addPermanentWidget(self.thinking_label)
        bar.addPermanentWidget(self.tokens_label)
        bar.addPermanentWidget(self.score_label)
        bar.addPermanentWidget(self.step_label)

        # ---- timers: playback clock, panels at >= 10 Hz, thinking indicator after a delay
        self._play_timer = QTimer(self)
        self._play_timer.setInterval(15)
        self._play_timer.timeout.connect(self._on_play_tick)
        self._panel_timer = QTimer(self)
        self._panel_timer.timeout.connect(self.refresh_panels)
        self._thinking_timer = QTimer(self)
        self._thinking_timer.setSingleShot(True)
        self._thinking_timer.setInterval(300)
        self._thinking_timer.timeout.connect(self._show_thinking)

        self.error_reported.connect(self._show_error)
        self.recording_loaded.connect(self._on_recording_loaded)
        self._error_listener = lambda summary, _text: self.error_reported.emit(summary)
        errors.add_listener(self._error_listener)

        self.apply_settings()
        infos, problems = catalog.scan_scenarios()
        self.setup.load_scenarios(infos, select=self._default_scenario_name())
        if problems:  # one bad file must not hide the others; say which and why
            self.setup.show_note(f"{len(problems)} file(s) under scenarios/ skipped (hover for why)",
                                 "\n".join(problems))
        self._restore_geometry()
        self._update_controls()

    # ================================================================== construction

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title.replace(" ", "_"))
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, name: str, text: str, shortcut: str | QKeySequence.StandardKey | list | None,
                slot: Any, icon: QStyle.StandardPixmap | None = None, checkable: bool = False) -> QAction:
        action = QAction(text, self)
        if icon is not None:
            action.setIcon(self.style().standardIcon(icon))
        if isinstance(shortcut, list):
            action.setShortcuts([QKeySequence(s) for s in shortcut])
        elif shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(checkable)
        if checkable:
            action.toggled.connect(slot)
        else:
            action.triggered.connect(lambda _checked=False: slot())
        tip = text.replace("&", "")
        if action.shortcut().toString():
            tip += f"  ({action.shortcut().toString()})"
        action.setToolTip(tip)
        self.addAction(action)  # shortcuts work wherever the focus is in the window
        self.actions_by_name[name] = action
        return action

    def _make_actions(self) -> None:
        self.actions_by_name: dict[str, QAction] = {}
        SP = QStyle.StandardPixmap
        a = self._action
        a("new", "&New session…", QKeySequence.StandardKey.New, self.show_setup)
        a("open", "&Open recording…", QKeySequence.StandardKey.Open, self.open_dialog, SP.SP_DialogOpenButton)
        a("close", "&Close episode", "Ctrl+W", self.close_episode)
        a("settings", "&Settings…", "Ctrl+,", self.show_settings)
        a("quit", "&Quit", QKeySequence.StandardKey.Quit, self.close)
        a("play", "Play", ["K", "Media Play"], self.toggle_play, SP.SP_MediaPlay)
        a("step", "Step forward", "L", self.step_forward, SP.SP_MediaSeekForward)
        a("back", "Step back", "J", self.step_back, SP.SP_MediaSeekBackward)
        a("start", "Go to start", "Home", lambda: self.seek(0), SP.SP_MediaSkipBackward)
        a("end", "Go to end (follow live)", "End", self.seek_end, SP.SP_MediaSkipForward)
        a("back10", "Back 10 steps", "PgUp", lambda: self.seek(self.cursor - 10))
        a("forward10", "Forward 10 steps", "PgDown", lambda: self.seek(self.cursor + 10))
        a("next_feedback", "Next feedback", "N", self.next_feedback, SP.SP_MessageBoxInformation)
        a("prev_feedback", "Previous feedback", "Shift+N", self.previous_feedback, SP.SP_MessageBoxInformation)
        a("faster", "Faster", "]", lambda: self._on_speed(self.playback.change_speed(+1)))
        a("slower", "Slower", "[", lambda: self._on_speed(self.playback.change_speed(-1)))
        a("take_over", "Take over from here", "T", self.take_over, SP.SP_ArrowUp)
        a("show_plans", "Show plans on the map", "V", self._on_show_plans, checkable=True)
        a("accept_feedback", "Accept feedback", ["Return", "Enter"], self.toast.accept_feedback)
        a("ignore_feedback", "Ignore feedback", "Escape", self.toast.ignore_feedback)
        a("keys", "Keyboard shortcuts", "F1", self.show_keys)
        a("how_to_play", "How to play this world", "Shift+F1", self.show_rules)
        a("about_papers", "About the papers", None, self.show_papers)
        a("next_seat", "Give the main keys to the next human seat", "F6", self.next_key_seat)
        a("write_message", "Write a message", "Ctrl+M", self.focus_message_box)
        a("rate_teammates", "Rate your teammates", "Ctrl+R", self.focus_ratings)

    def _make_menus(self) -> None:
        acts = self.actions_by_name
        menu = self.menuBar().addMenu("&File")
        for name in ("new", "open"):
            menu.addAction(acts[name])
        self.recent_menu = menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        menu.addSeparator()
        for name in ("close", "settings"):
            menu.addAction(acts[name])
        menu.addSeparator()
        menu.addAction(acts["quit"])
        menu = self.menuBar().addMenu("&Playback")
        for name in ("play", "step", "back", "start", "end", "back10", "forward10", "next_feedback",
                     "prev_feedback", "faster", "slower"):
            menu.addAction(acts[name])
        menu.addSeparator()
        menu.addAction(acts["take_over"])
        menu = self.menuBar().addMenu("&Feedback")
        menu.addAction(acts["accept_feedback"])
        menu.addAction(acts["ignore_feedback"])
        menu = self.menuBar().addMenu("&View")
        menu.addAction(acts["show_plans"])
        self.viewer_menu = menu.addMenu("View &as")
        self.viewer_menu.aboutToShow.connect(self._fill_viewer_menu)
        menu.addSeparator()
        for dock in (self.setup_dock, self.minds_dock, self.feedback_dock, self.log_dock):
            menu.addAction(dock.toggleViewAction())
        menu = self.menuBar().addMenu("&Help")
        menu.addAction(acts["how_to_play"])
        menu.addAction(acts["keys"])
        menu.addAction(acts["about_papers"])

    def _fill_viewer_menu(self) -> None:
        """Everyone, each seat (fog of war: what it observes), or automatic."""
        self.viewer_menu.clear()
        agents = list(self.timeline.world.agents) if self.timeline is not None else []
        for choice, label in [("auto", "Automatic (the seat you play)"), ("all", "Everything"),
                              *[(a, f"{a}'s eyes") for a in agents]]:
            action = self.viewer_menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(choice == self.viewer_choice)
            action.triggered.connect(lambda _c=False, c=choice: self.set_viewer(c))

    def set_viewer(self, choice: str) -> None:
        """Draw the map as ``choice`` sees it ("all", "auto" or an agent's name)."""
        self.viewer_choice = choice
        self._update_overlays()
        self.view.show_state(self.view.state)

    def viewer(self) -> str | None:
        """The agent whose eyes the map is drawn with, or None for everything."""
        if self.viewer_choice == "all" or self.timeline is None:
            return None
        if self.viewer_choice != "auto":
            return self.viewer_choice if self.viewer_choice in self.timeline.world.agents else None
        if len(self.humans) == 1:
            return next(iter(self.humans))
        waiting = self.humans_to_move()
        return waiting[0] if len(waiting) == 1 else None

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files()
        for path in files:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _c=False, p=path: self.open_recording_asking(p))
        if not files:
            self.recent_menu.addAction("(none)").setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list").triggered.connect(self.settings.clear_recent)

    def _default_scenario_name(self) -> str:
        info = catalog.default_scenario(catalog.scenarios(), self.settings.get("default_scenario"))
        return info.name if info else ""

    def apply_settings(self) -> None:
        s = self.settings
        self.playback.set_speed(s.get("speed"))
        self.view.animate = s.get("animate")
        self.actions_by_name["show_plans"].setChecked(s.get("show_plans"))
        self._panel_timer.setInterval(int(1000 / max(10, s.get("panel_hz"))))
        self._panel_timer.start()
        self._on_speed(self.playback.current_speed, remember=False)

    def _restore_geometry(self) -> None:
        geometry = self.settings.store.value("window/geometry")
        state = self.settings.store.value("window/state")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 860)
        if isinstance(state, QByteArray):
            self.restoreState(state)

    # ================================================================== sessions

    def show_setup(self) -> None:
        self.setup_dock.show()
        self.setup_dock.raise_()

    # ------------------------------------------------------------------ a live game is precious

    def has_live_game(self) -> bool:
        """True while a live episode runs that has steps to lose (not yet over)."""
        timeline = self.timeline
        return (isinstance(timeline, LiveTimeline) and self.runner is not None and self.runner.alive
                and timeline.outcome is None and timeline.num_steps > 0)

    def confirm_discard(self, what: str, then: Any) -> None:
        """Run ``then`` at once, or after the person agrees to end the live game (asked without
        blocking: a message box opened with ``open()``, the game goes on meanwhile)."""
        if not self.has_live_game():
            then()
            return
        if self.discard_box is not None:
            self.discard_box.close()
        steps = self.timeline.num_steps
        box = QMessageBox(QMessageBox.Icon.Question, "End the game in progress?",
                          f"{what} ends the episode being played ({steps} steps so far).", parent=self)
        box.setInformativeText("Its recording keeps what was played." if self.recording_path else
                               "It is not being recorded: what was played is lost.")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText("End it")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setObjectName("discardQuestion")

        def answered(result: int) -> None:
            self.discard_box = None
            if result == QMessageBox.StandardButton.Yes.value or box.clickedButton() is box.button(
                    QMessageBox.StandardButton.Yes):
                then()
            box.deleteLater()

        box.finished.connect(answered)
        self.discard_box = box
        box.open()

    def _on_start_requested(self, choice: dict) -> None:
        if choice.get("takeover") is None:  # a take-over continues the game; a new start ends it
            self.confirm_discard("Starting a new session", lambda: self._start_chosen(choice))
        else:
            self._start_chosen(choice)

    def _start_chosen(self, choice: dict) -> None:
        step = choice.get("takeover")
        try:
            if step is not None and self.timeline is not None:
                plan = SessionPlan(world=self.timeline.world, scenario=self.timeline.scenario,
                                   seats=choice["seats"], mechanisms=tuple(choice["mechanisms"]), seed=choice["seed"],
                                   prefix=tuple(self.timeline.joint_actions(step)),
                                   earlier_events=tuple(self.timeline.events_until(step)), rounds=self.timeline.rounds)
            else:
                plan = SessionPlan(world=choice["world"], scenario=choice["scenario"], seats=choice["seats"],
                                   mechanisms=tuple(choice["mechanisms"]), seed=choice["seed"],
                                   rounds=choice.get("rounds", 1))
            self.start_session(plan)
        except (ValueError, LookupError, TypeError) as exc:
            self.setup.show_error(str(exc))
            return
        if step is not None:
            self.setup.end_takeover()

    def start_session(self, plan: SessionPlan, playing: bool = True) -> Session:
        """Start a live session (raises ValueError with a message a person can act on)."""
        seats = plan.build_seats()
        mechanisms = catalog.make_mechanisms(plan.mechanisms, plan.world)
        session = Session(plan.world, seats, seed=plan.seed, scenario=plan.scenario, mechanisms=mechanisms,
                          prefix=list(plan.prefix), rounds=plan.rounds)
        self.stop_session()
        path = None
        if self.settings.get("record"):
            stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            suffix = ".jsonl.gz" if self.settings.get("compress") else ".jsonl"
            base = self.settings.recordings_dir / f"{plan.scenario}-{stamp}-seed{plan.seed}"
            path = base.with_suffix(suffix)
            n = 1
            while path.exists():
                n += 1
                path = Path(f"{base}-{n}{suffix}")
        timeline = LiveTimeline(plan.world, session.header(), session.state, earlier=plan.earlier_events)
        self.session = session
        self.humans = {a: s for a, s in seats.items() if isinstance(s, HumanAgent)}
        self.seat_specs = dict(plan.seats)
        self.mechanism_specs = tuple(plan.mechanisms)
        self.recording_path = path
        self._set_timeline(timeline)
        runner = SessionRunner(session, speed=self.playback.current_speed, playing=playing,
                               recording_path=str(path) if path else None, parent=self)
        runner.published.connect(self._on_batch)
        runner.thinking.connect(self._on_thinking)
        runner.failed.connect(lambda message: self._show_error(f"the session stopped: {message}"))
        runner.finished.connect(self._on_runner_finished)
        self.runner = runner
        self.playing = playing
        self.follow = True
        self.popups = True
        if self.setup.takeover_step is None:  # the panel shows what is playing, ready to start again
            self.setup.select_scenario(plan.scenario)
            if self.setup.world is not None and list(self.setup.world.agents) == list(plan.world.agents):
                for agent, spec in plan.seats.items():
                    self.setup.set_seat(agent, spec)
            self.setup.set_mechanisms(self.mechanism_specs)
            self.setup.seed.setValue(plan.seed)
            self.setup.rounds.setValue(plan.rounds)
        runner.start()
        self._update_overlays()  # a human seat's turn shows once the runner exists
        where = f" — recording to {path}" if path else " — not recording"
        self.mode_label.setText(f"live: {plan.scenario}, seed {plan.seed}"
                                + (f", from step {len(plan.prefix)}" if plan.prefix else "") + where)
        self.last_plan = plan
        self._update_title()
        self._update_controls()
        if self.humans:
            self.focus_view()
        return session

    def stop_session(self) -> None:
        """End the live session (its recording gets a footer) and wait for its thread."""
        runner = self.runner
        if runner is None:
            return
        self.runner = None
        runner.stop()
        try:
            runner.published.disconnect(self._on_batch)
        except TypeError:
            pass
        self._finished_runners.append(runner)
        self._on_thinking(frozenset())

    def close_episode(self) -> None:
        """Stop the episode and empty every view: map, panels, board, scrubber, score, title."""
        self.stop_session()
        self._set_timeline(None)
        self.session = None
        self.recording_path = None
        self.mode_label.setText("no episode")
        self._update_title()

    def _set_timeline(self, timeline: Timeline | None) -> None:
        self.timeline = timeline
        self.setup.end_takeover()  # a pending take-over belonged to the episode shown before
        self.toast.awaiting_decision = False
        self.toast.hide()
        if self.card.kind != "hint" or timeline is None:
            self.card.hide()
        self.playing = False
        self._play_timer.stop()
        if timeline is None:
            self.renderer = None
            self.view.set_renderer(None)
            self.humans = {}
            self._install_panels(None)
            self.cursor = 0
            self.playback.show_position(0, 0)
            for label in (self.step_label, self.score_label, self.tokens_label, self.thinking_label):
                label.clear()
            self.action_bar.hide()
            self.say_box.hide()
            self._update_controls()
            self.refresh_panels(force=True)
            return
        self.renderer = renderer_for(timeline.world)
        self.view.set_renderer(self.renderer)
        self.log_panel.set_action_label(self._action_text)
        self._install_panels(timeline)
        self.cursor = timeline.num_steps if timeline.live else 0
        self._show_cursor(animate=False)
        self.refresh_panels(force=True)

    def _install_panels(self, timeline: Timeline | None) -> None:
        """Start the panels of a new episode afresh: the world family's own panels at once, the
        generic ones (goal inference, teams, messages...) as their data arrives."""
        for title in list(self.panel_widgets):
            widget = self.panel_widgets.pop(title)
            dock = self._panel_docks.pop(title, None)
            if dock is not None:
                self.removeDockWidget(dock)
                dock.deleteLater()
            else:
                self.panel_tabs.removeTab(self.panel_tabs.indexOf(widget))
                widget.deleteLater()
        if timeline is not None:
            for kind in family_panels(timeline.world.family):
                self._add_panel(kind)
            self._sync_panels()

    def _add_panel(self, kind: PanelKind) -> QWidget:
        panel = kind.factory()
        area = getattr(panel, "dock_area", None)  # a panel that wants a dock of its own (a board's controls)
        if area is None:  # before the LLM usage tab, which stays last; the first mind panel shows
            showing_usage = self.panel_tabs.currentWidget() is self.usage_panel
            index = self.panel_tabs.insertTab(self.panel_tabs.indexOf(self.usage_panel), panel, kind.title)
            self.panel_tabs.setTabToolTip(index, kind.tooltip)
            if showing_usage:
                self.panel_tabs.setCurrentIndex(index)
        else:  # scrolls rather than forcing the window taller than a laptop screen
            holder = QScrollArea()
            holder.setWidgetResizable(True)
            holder.setWidget(panel)
            holder.inner = panel  # type: ignore[attr-defined]
            holder.setToolTip(kind.tooltip)
            self._panel_docks[kind.title] = self._dock(kind.title, holder, area)
        if hasattr(panel, "bind_window"):  # panels that send intents or read the renderer's colours
            panel.bind_window(self)
        self.panel_widgets[kind.title] = panel
        return panel

    def _sync_panels(self) -> None:
        """Add the registered panels whose kind of data the episode now holds."""
        timeline = self.timeline
        if timeline is None:
            return
        for kind in PANELS:
            if kind.title not in self.panel_widgets and kind.shows(timeline):
                self._add_panel(kind)

    def panel(self, title: str) -> QWidget | None:
        """The panel shown under ``title`` (its inner widget when it scrolls), if any."""
        widget = self.panel_widgets.get(title)
        return getattr(widget, "inner", widget)

    def _action_text(self, agent: str, encoded: Any) -> str:
        """An encoded action of the log in the world's own words."""
        renderer, timeline = self.renderer, self.timeline
        if renderer is None or timeline is None:
            return str(encoded)
        try:
            return renderer.action_label(timeline.world.decode_action(encoded))
        except Exception:  # an action this build cannot decode: show it as recorded
            return str(encoded)

    def _on_batch(self, batch: Batch) -> None:
        timeline = self.timeline
        if not isinstance(timeline, LiveTimeline) or self.sender() is not self.runner:
            return  # a batch of a session that was replaced
        at_edge = self.cursor >= timeline.num_steps
        timeline.append(batch.events, batch.state)
        if self.follow and at_edge and timeline.num_steps > self.cursor:
            self._move_cursor(timeline.num_steps)
        else:
            for event in batch.events:
                if isinstance(event, FeedbackEvent) and event.target in self.humans:
                    self._present_feedback(event)  # a person must answer even while looking back
            self._refresh_position()  # new events or a longer scrubber; the picture stays
        if batch.finished:
            self._on_session_finished()

    def _on_session_finished(self) -> None:
        timeline = self.timeline
        self.playing = False
        if self.recording_path is not None and self.recording_path.exists():
            self.settings.add_recent(self.recording_path)
        title, lines = episode_summary(timeline) if timeline is not None else ("Episode over", [])
        label = self.mode_label.text().split(" — ")[0].replace("live:", "finished:", 1)
        self.mode_label.setText(f"{label} — {title}")
        self._update_title()
        self._update_controls()
        if self.exit_when_done:
            QTimer.singleShot(300, self.close)
            return
        if timeline is not None and not (timeline.outcome and timeline.outcome.outcome.get("stopped")):
            self.show_summary()

    def show_summary(self) -> None:
        """The end-of-episode card: what happened, and play again / take over / open recording."""
        timeline = self.timeline
        if timeline is None or timeline.outcome is None:
            return
        title, lines = episode_summary(timeline)
        if not self.toast.awaiting_decision:
            self.toast.dismiss()  # an old suggestion's box would cover the summary
        buttons: list[tuple[str, str, Any]] = []
        plan = getattr(self, "last_plan", None)
        if isinstance(timeline, LiveTimeline) and plan is not None:
            buttons.append(("Play again", "the same scenario, seats, seed and task rounds from the start",
                            self.play_again))
        buttons.append(("Take over…", "continue from a step of this episode with seats of your choice (T)",
                        lambda: (self.card.hide(), self.take_over())))
        if self.recording_path is not None and self.recording_path.exists():
            path = self.recording_path
            buttons.append(("Open recording", f"replay {path.name} from the start",
                            lambda: (self.card.hide(), self.open_recording_in_background(path))))
        self.card.show_card("summary", title, "<br>".join(lines), buttons)

    def play_again(self) -> None:
        plan = getattr(self, "last_plan", None)
        if plan is None:
            return
        self.card.hide()
        fresh = SessionPlan(world=plan.world, scenario=plan.scenario, seats=plan.seats, mechanisms=plan.mechanisms,
                            seed=plan.seed, rounds=plan.rounds)
        self.start_session(fresh)

    def show_hint(self, scenario: str) -> None:
        """The first-run card: what is on screen and how to start."""
        self.card.show_card(
            "hint", f"Welcome to ToM Arena: {scenario}",
            "Two agents play this map; a <b>facilitator</b> watches, guesses what each one wants and, when "
            "its help would save time, suggests something in a <span style='color:#1e6eeb'><b>blue "
            "pop-up</b></span>.<br>The episode is paused: press <b>K</b> (or ▶ under the map) to play, "
            "<b>L</b> for one step. Choose <i>human</i> for a seat in the Session panel to play yourself.",
            [("How to play", "the rules, keys and panels of this world (Shift+F1)", self.show_rules),
             ("Play  (K)", "start the episode", lambda: (self.card.hide(), self.set_playing(True)))])

    def set_popups(self, shown: bool) -> None:
        """Feedback pop-ups on or off for the shown episode (off: suggestions to your seats are
        declined for you; agents' feedback only goes to the history and the log)."""
        self.popups = bool(shown)
        if self.runner is not None:
            self.runner.set_popups(shown)
        if not shown:
            if self.toast.awaiting_decision and self.toast.feedback is not None:
                self.toast.ignore_feedback()
            self.toast.dismiss()
            self.statusBar().showMessage("feedback pop-ups are off for this episode (the history still lists "
                                         "every suggestion)", 5000)

    def _update_title(self) -> None:
        timeline = self.timeline
        if timeline is None:
            self.setWindowTitle("ToM Arena")
        elif isinstance(timeline, LiveTimeline):
            state = "finished" if timeline.outcome is not None else "live"
            self.setWindowTitle(f"{timeline.scenario} (seed {timeline.seed}, {state}) — ToM Arena")
        else:
            name = Path(getattr(timeline, "path", "") or timeline.scenario).name
            self.setWindowTitle(f"{name} ({timeline.scenario}, replay) — ToM Arena")

    def _on_runner_finished(self) -> None:
        self._update_controls()

    # ================================================================== recordings

    def open_dialog(self) -> None:
        folder = str(self.settings.recordings_dir)
        dialog = QFileDialog(self, "Open a recording", folder, "ToM Arena recordings (*.jsonl *.jsonl.gz *.gz);;All files (*)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.open_recording_asking)
        dialog.open()  # not exec(): the window keeps running

    def open_recording_asking(self, path: str | Path) -> None:
        """Open a recording the person chose; a live game in progress is ended only if they agree."""
        self.confirm_discard("Opening a recording", lambda: self.open_recording_in_background(path))

    @staticmethod
    def _load_timeline(path: Path) -> ReplayTimeline:
        """Read a recording and rebuild its states (pure: safe in any thread)."""
        replay = Replay(str(path))
        renderer_for(replay.world)  # a world without a view cannot be shown: say so now
        return ReplayTimeline(replay)

    def open_recording(self, path: str | Path) -> bool:
        """Open a recording and show it (the window waits; see ``open_recording_in_background``)."""
        path = Path(path)
        started = time.perf_counter()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            timeline = self._load_timeline(path)
        except LOAD_ERRORS as exc:
            self._show_error(f"cannot open {path}: {exc}")
            return False
        finally:
            QApplication.restoreOverrideCursor()
        self._show_replay(path, timeline, time.perf_counter() - started)
        return True

    def open_recording_in_background(self, path: str | Path) -> bool:
        """Open a recording without freezing the window: its first state shows at once (from the
        header alone), the rest loads in a worker thread (a 10,000-step file takes seconds).
        False when the header already says the file cannot be shown."""
        path = Path(path)
        started = time.perf_counter()
        try:
            preview = PreviewTimeline.from_file(path)
            renderer_for(preview.world)
        except LOAD_ERRORS as exc:
            self._show_error(f"cannot open {path}: {exc}")
            return False
        self._show_preview(path, preview)
        self.statusBar().showMessage(f"loading {path.name}…")

        def load() -> None:
            started = time.perf_counter()
            try:
                result: ReplayTimeline | str = self._load_timeline(path)
            except LOAD_ERRORS as exc:
                result = f"cannot open {path}: {exc}"
            self.recording_loaded.emit(path, result, time.perf_counter() - started)

        thread = threading.Thread(target=load, name="tom-arena-open", daemon=True)
        self._loaders = [t for t in self._loaders if t.is_alive()] + [thread]
        thread.start()
        self.first_frame_seconds = time.perf_counter() - started
        return True

    def _show_preview(self, path: Path, preview: PreviewTimeline) -> None:
        self.stop_session()
        self.humans = {}
        self.session = None
        self.recording_path = None
        self._set_timeline(preview)
        self.mode_label.setText(f"loading {path.name} ({preview.scenario}, seed {preview.seed})…")
        self._update_title()
        self._update_controls()

    def _on_recording_loaded(self, path: Path, result: Any, seconds: float) -> None:
        shown = self.timeline
        if not (isinstance(shown, PreviewTimeline) and Path(shown.path) == path):
            return  # the person opened something else meanwhile
        if isinstance(result, str):
            self._set_timeline(None)
            self.mode_label.setText("no episode")
            self._update_title()
            self._show_error(result)
            self._play_when_loaded = False
            return
        self.statusBar().clearMessage()
        self._show_replay(path, result, seconds)
        if self._play_when_loaded:
            self._play_when_loaded = False
            self.set_playing(True)

    def _show_replay(self, path: Path, timeline: ReplayTimeline, seconds: float) -> None:
        self.stop_session()
        self.seat_specs = {a: spec_from_description(d) for a, d in (timeline.header.get("seats") or {}).items()}
        self.mechanism_specs = tuple(filter(None, (spec_from_description(d)
                                                   for d in timeline.header.get("mechanisms") or [])))
        self.humans = {}
        self.session = None
        self.recording_path = None
        self._set_timeline(timeline)
        self.settings.add_recent(path)
        self._show_in_setup(timeline)
        note = f" — {len(timeline.warnings)} warning(s): {timeline.warnings[0]}" if timeline.warnings else ""
        self.mode_label.setText(f"replay: {path.name} ({timeline.scenario}, seed {timeline.seed}, "
                                f"{timeline.num_steps} steps, loaded in {seconds:.2f} s){note}")
        self._update_title()
        self._update_controls()
        self.focus_view()

    def _show_in_setup(self, timeline: Timeline) -> None:
        """The Session panel shows the replayed episode's scenario, seats, mechanisms, seed and rounds."""
        seats = {a: self.seat_specs.get(a) or catalog.default_agent(timeline.world.family)
                 for a in timeline.world.agents}
        if not self.setup.select_scenario(timeline.scenario):
            self.setup.set_world(timeline.world, timeline.scenario, title=timeline.scenario,
                                 description="(from the recording)", seats=seats)
        if list(self.setup.seat_boxes) == list(timeline.world.agents):
            for agent, spec in seats.items():
                self.setup.set_seat(agent, spec)
        self.setup.set_mechanisms(self.mechanism_specs)
        self.setup.seed.setValue(min(timeline.seed, self.setup.seed.maximum()))
        self.setup.rounds.setValue(min(timeline.rounds, self.setup.rounds.maximum()))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        if any(u.isLocalFile() and u.toLocalFile().endswith(RECORDING_SUFFIXES) for u in urls):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_recording_asking(url.toLocalFile())
                event.acceptProposedAction()
                return

    # ================================================================== cursor & playback

    def _move_cursor(self, k: int) -> None:
        """Move to step ``k``; one step forward animates and announces feedback given there."""
        timeline = self.timeline
        if timeline is None:
            return
        k = max(0, min(timeline.num_steps, k))
        old = self.cursor
        self.cursor = k
        self._show_cursor(animate=(k == old + 1))
        if old < k <= old + 8:
            for tick in range(old + 1, k + 1):
                for event in timeline.feedback_at(tick):
                    self._present_feedback(event)

    def seek(self, k: int) -> None:
        """Jump to step ``k`` (no animation). Leaving the live edge stops following it."""
        timeline = self.timeline
        if timeline is None:
            return
        k = max(0, min(timeline.num_steps, int(k)))
        if timeline.live and k < timeline.num_steps:
            self.follow = False
        self.cursor = k
        self._show_cursor(animate=False)

    def seek_end(self) -> None:
        if self.timeline is not None:
            self.follow = True
            self.seek(self.timeline.num_steps)

    def _show_cursor(self, animate: bool) -> None:
        timeline = self.timeline
        if timeline is None or self.renderer is None:
            return
        state = timeline.state_at(self.cursor)
        previous = timeline.state_at(self.cursor - 1) if animate and self.cursor > 0 else None
        self.view.show_state(state, previous, animate=animate)
        self._refresh_position()

    def _refresh_position(self) -> None:
        """Overlays, scrubber and status bar for the cursor (the view keeps its state)."""
        timeline = self.timeline
        if timeline is None or self.renderer is None:
            return
        state = timeline.state_at(self.cursor)
        self._update_overlays()
        self.playback.show_position(self.cursor, timeline.num_steps, live=self._is_live())
        self.step_label.setText(f"step {self.cursor} / {timeline.num_steps}")
        self.score_label.setText(self.renderer.status_text(state))

    def _is_live(self) -> bool:
        return isinstance(self.timeline, LiveTimeline) and self.runner is not None and not (
            self.session is not None and self.session.finished and not self.runner.alive)

    def _active_humans(self) -> tuple[str, ...]:
        """Human seats that act in the step being decided at the live edge, in seat order."""
        timeline = self.timeline
        if not self.humans or not isinstance(timeline, LiveTimeline) or self.runner is None:
            return ()
        if self.cursor != timeline.num_steps or timeline.outcome is not None:
            return ()
        state = timeline.state_at(self.cursor)
        return tuple(a for a in timeline.world.active_agents(state) if a in self.humans)

    def humans_to_move(self) -> tuple[str, ...]:
        """Human seats whose input the episode still waits for at the live edge (several at
        once in simultaneous worlds), in seat order."""
        if self.runner is None:
            return ()
        submitted = self.runner.submitted_since_step()
        return tuple(a for a in self._active_humans() if a not in submitted)

    def _main_key_seat(self) -> str | None:
        active = self._active_humans()
        if not active:
            return None
        return self.key_seat if self.key_seat in active else active[0]

    def human_to_move(self) -> str | None:
        """The human seat that still has to move and that the main keys drive (or, when that
        one has moved, the other one still to move)."""
        waiting = self.humans_to_move()
        main = self._main_key_seat()
        if main in waiting:
            return main
        return waiting[0] if waiting else None

    def second_key_seat(self) -> str | None:
        """The seat W/A/S/D/Q/E drive when two people play at once (else None)."""
        active = self._active_humans()
        main = self._main_key_seat()
        others = [a for a in active if a != main]
        return others[0] if others else None

    def next_key_seat(self) -> None:
        """Give the main keys to the next human seat of the step (several people at one keyboard)."""
        active = self._active_humans()
        if len(active) < 2:
            return
        self.key_seat = active[(active.index(self._main_key_seat()) + 1) % len(active)]
        self._update_overlays()
        self.statusBar().showMessage(f"the main keys now play {self.key_seat}", 2000)

    def _update_overlays(self) -> None:
        timeline = self.timeline
        if timeline is None:
            return
        tick = self.cursor
        plans = {}
        for agent in timeline.world.agents:
            belief = timeline.belief_at(agent, PLAN, tick)
            if belief is not None and belief.tick >= tick - 1:
                plans[agent] = belief.data
        active = [r for r in timeline.feedback_until(tick) if r.status_at(tick) in OPEN_STATUSES]
        human = self.human_to_move()
        waiting = self.humans_to_move()
        legal = tuple(timeline.world.legal_actions(timeline.state_at(tick), human)) if human else ()
        page = self._action_page(human, legal) if human else 0
        beliefs = {kind: latest_beliefs(timeline, kind, tick) for kind in getattr(self.renderer, "overlay_beliefs", ())
                   if kind not in self.hidden_beliefs}
        messages = tuple((e.sender, e.text) for e in timeline.log[max(0, timeline.log_count(tick) - 30):
                                                                  timeline.log_count(tick)]
                         if isinstance(e, MessageEvent) and e.tick >= tick - 3)
        self.view.set_overlays(Overlays(plans=plans, show_plans=self.actions_by_name["show_plans"].isChecked(),
                                        human=human, legal=legal, humans=waiting, viewer=self.viewer(),
                                        messages=messages, beliefs=beliefs, page=page,
                                        feedback=dict(active[-1].event.feedback) if active else None,
                                        thinking=self.thinking if self.cursor == timeline.num_steps else frozenset(),
                                        phase=self.view.overlays.phase, badges=level_badges(timeline, tick)))
        if human:
            labels = "   ".join(f"[{k}] {self.renderer.action_label(x)}"
                                   for k, x in self.renderer.numbered_actions(legal, page))
            pages = self.renderer.action_pages(legal)
            if pages > 1:
                labels += f"   <small>(page {page + 1}/{pages}; {self.renderer.page_key}: next page)</small>"
            keys = ", ".join(f"{b.keys}: {b.action}" for b in self.renderer.key_bindings())
            second = self.second_key_seat()
            also = (f"<br><b>{second}</b> plays at the same time with W/A/S/D, Q (wait) and E (interact); "
                    "F6 swaps the seats.") if second else ""
            self.action_bar.setText(f"<b>Your turn, {human}.</b>  {labels}<br><small>{keys}</small>{also}")
            self.action_bar.show()
        else:
            self.action_bar.hide()
        talker = self._message_sender()
        if talker is not None:
            self.say_box.setPlaceholderText(f"Write a message as {talker}; Enter sends it and returns to the "
                                            "map (Ctrl+M comes here)")
        self.say_box.setVisible(talker is not None)

    def _action_page(self, agent: str | None, legal: tuple[Any, ...] | list[Any]) -> int:
        """The page of numbered actions shown for ``agent``; the first again when its legal actions change."""
        key = (agent, tuple(legal))
        if key != self._page_for:
            self._page_for, self.action_page = key, 0
        pages = self.renderer.action_pages(legal) if self.renderer is not None else 1
        return self.action_page % max(1, pages)

    def show_beliefs_on_map(self, kind: str, on: bool) -> None:
        """Draw the belief snapshots of ``kind`` on the map (where the renderer draws them), or not."""
        if on:
            self.hidden_beliefs.discard(kind)
        else:
            self.hidden_beliefs.add(kind)
        self._update_overlays()

    def _message_sender(self) -> str | None:
        """The human seat that may send a message now, in a world where agents talk."""
        human = self.human_to_move()
        if human is None or self.timeline is None:
            return None
        state = self.timeline.state_at(self.cursor)
        return human if self.timeline.world.message_action(state, human, "?") is not None else None

    def focus_message_box(self) -> None:
        if self.say_box.isVisible():
            self.say_box.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def send_message(self) -> None:
        """Send the text of the message box as the human seat whose turn it is."""
        text = self.say_box.text().strip()
        agent = self._message_sender()
        if not text or agent is None or self.runner is None:
            return
        action = self.timeline.world.message_action(self.timeline.state_at(self.cursor), agent, text)
        self.runner.submit_human(agent, action)
        self.say_box.clear()
        self.statusBar().showMessage(f"{agent} says: {text}", 3000)
        self.focus_view()

    def toggle_play(self) -> None:
        self.set_playing(not self.playing)

    def set_playing(self, playing: bool) -> None:
        timeline = self.timeline
        if timeline is None:
            return
        if isinstance(timeline, PreviewTimeline):  # still loading: play once it is there
            self._play_when_loaded = playing
            return
        if playing and self.card.kind == "hint":
            self.card.hide()
        if playing and not self._is_live() and self.cursor >= timeline.num_steps:
            self.seek(0)  # play a finished episode again from the start
        self.playing = playing
        if playing:
            self._play_clock = time.monotonic()
            self._play_budget = 0.0
            if self.cursor >= timeline.num_steps and self._is_live():
                self.follow = True
                self.runner.set_playing(True)
            else:
                self._play_timer.start()
        else:
            self._play_timer.stop()
            if self.runner is not None:
                self.runner.set_playing(False)
        self._update_controls()

    def _on_play_tick(self) -> None:
        """Advance the cursor by elapsed time (QTimer drops ticks under load)."""
        timeline = self.timeline
        if timeline is None or not self.playing:
            self._play_timer.stop()
            return
        now = time.monotonic()
        self._play_budget += (now - self._play_clock) * self.playback.current_speed
        self._play_clock = now
        steps = int(self._play_budget)
        if steps <= 0:
            return
        self._play_budget -= steps
        target = min(timeline.num_steps, self.cursor + steps)
        self._move_cursor(target)
        if self.cursor >= timeline.num_steps:
            self._play_timer.stop()
            if self._is_live():
                self.follow = True
                self.runner.set_playing(True)
            else:
                self.playing = False
                if self.exit_when_done and isinstance(timeline, ReplayTimeline):
                    QTimer.singleShot(300, self.close)
            self._update_controls()

    def step_forward(self) -> None:
        timeline = self.timeline
        if timeline is None:
            return
        self.set_playing(False)
        if self.cursor < timeline.num_steps:
            self._move_cursor(self.cursor + 1)
        elif self._is_live():
            human = self.human_to_move()
            if human is not None:
                self.statusBar().showMessage(f"waiting for {human}: your move", 3000)
                return
            self.follow = True
            self.runner.request_step()

    def step_back(self) -> None:
        if self.timeline is None:
            return
        self.set_playing(False)
        self.seek(self.cursor - 1)

    def next_feedback(self) -> None:
        if self.timeline is None:
            return
        tick = self.timeline.next_feedback_tick(self.cursor)
        if tick is None:
            self.statusBar().showMessage("no later feedback", 3000)
            return
        self.set_playing(False)
        self.seek(tick)
        for event in self.timeline.feedback_at(tick):
            self._present_feedback(event)

    def previous_feedback(self) -> None:
        if self.timeline is None:
            return
        tick = self.timeline.previous_feedback_tick(self.cursor)
        if tick is None:
            self.statusBar().showMessage("no earlier feedback", 3000)
            return
        self.set_playing(False)
        self.seek(tick)
        for event in self.timeline.feedback_at(tick):
            self._present_feedback(event)

    def _on_speed(self, speed: float, remember: bool = True) -> None:
        self.view.set_animation_seconds(min(0.15, 0.7 / max(speed, 0.1)))
        if self.runner is not None:
            self.runner.set_speed(speed)
        if remember:
            self.settings.set("speed", float(speed))

    def _on_show_plans(self, checked: bool) -> None:
        self.settings.set("show_plans", bool(checked))
        self._update_overlays()

    # ================================================================== take over

    def take_over(self) -> None:
        """Set up a live session that continues from the cursor with seats of one's choice."""
        timeline = self.timeline
        if timeline is None:
            self.statusBar().showMessage("open a recording or start a session first", 4000)
            return
        self.set_playing(False)
        seats = {a: self.seat_specs.get(a) or catalog.default_agent(timeline.world.family)
                 for a in timeline.world.agents}
        self.setup.begin_takeover(timeline.world, timeline.scenario, self.cursor, seats,
                                  self.mechanism_specs, timeline.seed, timeline.rounds)
        self.show_setup()

    # ================================================================== human input & feedback

    def focus_view(self) -> None:
        self.activateWindow()  # without a window manager (Xvfb) focus needs this
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def focus_ratings(self) -> None:
        """Bring the rating strip of the Alignment tab forward with the keys (ui/team_ratings.py)."""
        panel = self.panel("Alignment")
        if panel is not None and hasattr(panel, "focus_ratings"):
            self.panel_tabs.setCurrentWidget(panel)
            if panel.focus_ratings():
                return
        self.statusBar().showMessage("nothing to rate: ratings are for a person playing a live team episode", 3000)

    def _on_key(self, name: str) -> None:
        """A key for a human seat: the main keys drive one seat of the step; when two people
        play at once, W/A/S/D/Q/E drive the other."""
        if self.renderer is None or self.runner is None or self.timeline is None:
            return
        agent, key = self._main_key_seat(), name
        second = self.second_key_seat()
        if second is not None and name.lower() in SECOND_SEAT_KEYS:
            agent, key = second, SECOND_SEAT_KEYS[name.lower()]
        if agent is None:
            return
        if agent not in self.humans_to_move():
            self.statusBar().showMessage(f"{agent} has moved already; waiting for the others", 2000)
            return
        state = self.timeline.state_at(self.cursor)
        legal = self.timeline.world.legal_actions(state, agent)
        page = self._action_page(agent, legal)
        if key == self.renderer.page_key and self.renderer.action_pages(legal) > 1:
            self.action_page = page + 1  # the next page, on the map and in the action bar; no action yet
            self._update_overlays()
            return
        action = dict(self.renderer.numbered_actions(legal, page)).get(key)
        if action is None:
            action = self.renderer.action_for_key(key, state, agent, legal)
        if action is None:
            self.statusBar().showMessage(f"{name}: not possible for {agent} now", 2000)
            return
        self.runner.submit_human(agent, action)
        self._update_overlays()

    def _present_feedback(self, event: FeedbackEvent) -> None:
        timeline = self.timeline
        if timeline is None:
            return
        if self.runner is not None and event.feedback_id in self.runner.auto_declined and self._is_live():
            if self.popups:  # a repeat of a suggestion the person ignored: said once, quietly
                self.statusBar().showMessage(f"{event.facilitator} repeated a suggestion {event.target} ignored; "
                                             "it is not shown again until something changes in the world", 5000)
            return
        if not self.popups and self._is_live():
            return
        record = timeline.feedback.get(event.feedback_id)
        status = record.status_at(10**9) if record else "sent"
        ask = (event.target in self.humans and self._is_live() and status == "sent"
               and event.feedback_id in {f.feedback_id for f in self.humans[event.target].offered})
        if self.toast.awaiting_decision and not ask:
            return  # an open question stays on screen
        self.toast.show_feedback(event, ask=ask, seconds=self.settings.get("toast_seconds"),
                                 status=None if ask or status == "sent" else status.replace("_", " "))
        self._update_controls()

    def _on_feedback_decided(self, feedback_id: int, accept: bool) -> None:
        timeline = self.timeline
        if self.runner is None or timeline is None or feedback_id not in timeline.feedback:
            return
        target = timeline.feedback[feedback_id].event.target
        if target in self.humans:
            self.runner.decide_feedback(target, feedback_id, accept)
            self.statusBar().showMessage(f"feedback #{feedback_id} {'accepted' if accept else 'ignored'}", 3000)
        self._update_controls()
        self.focus_view()

    # ================================================================== thinking, panels, errors

    def _on_thinking(self, agents: frozenset) -> None:
        self.thinking_pending = frozenset(agents)
        if agents:
            if not self._thinking_timer.isActive() and not self.thinking:
                self._thinking_timer.start()
        else:
            self._thinking_timer.stop()
            if self.thinking:
                self.thinking = frozenset()
                self.thinking_label.setText("")
                self._update_overlays()

    def _show_thinking(self) -> None:
        agents = getattr(self, "thinking_pending", frozenset())
        if agents:
            self.thinking = agents
            self.thinking_label.setText(f"{', '.join(sorted(agents))} thinking…")
            self._update_overlays()

    def refresh_panels(self, force: bool = False) -> None:
        """Redraw the side panels when the timeline or the cursor changed (runs at >= 10 Hz)."""
        timeline = self.timeline
        key = (id(timeline), timeline.version if timeline else 0, self.cursor)
        if key == self._panel_key and not force:
            return
        self._panel_key = key
        self._sync_panels()
        self.log_panel.show_at(timeline, self.cursor)
        self.feedback_panel.show_at(timeline, self.cursor)
        self.usage_panel.show_at(timeline, self.cursor)
        prompt, completion = self.usage_panel.totals()
        self.tokens_label.setText(f"LLM tokens {prompt}+{completion}" if prompt or completion else "")
        for panel in list(self.panel_widgets.values()):
            panel.show_at(timeline, self.cursor)

    def _show_error(self, message: str) -> None:
        self.statusBar().showMessage(f"⚠ {message}", 15000)

    def _update_controls(self) -> None:
        acts = self.actions_by_name
        has = self.timeline is not None
        for name in ("play", "step", "back", "start", "end", "back10", "forward10", "next_feedback",
                     "prev_feedback", "take_over", "close"):
            acts[name].setEnabled(has)
        for name in ("accept_feedback", "ignore_feedback"):  # only while a person must answer
            acts[name].setEnabled(self.toast.awaiting_decision)
        play = acts["play"]
        play.setText("Pause" if self.playing else "Play")
        play.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause if self.playing
                                               else QStyle.StandardPixmap.SP_MediaPlay))

    # ================================================================== dialogs

    def show_settings(self) -> None:
        dialog = SettingsDialog(self.settings, [i.name for i in catalog.scenarios()], self)
        dialog.changed.connect(self.apply_settings)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.settings_dialog = dialog

    def help(self) -> Any:
        """The help window (one, non-modal), built on first use."""
        from ui.help import HelpDialog

        if self.help_dialog is None:
            self.help_dialog = HelpDialog(self, self)
        return self.help_dialog

    def show_keys(self) -> None:
        from ui.help import KEYS_PAGE

        self.help().open_page(KEYS_PAGE)

    def show_rules(self) -> None:
        """How to play the world shown (or the first one), with its keys and what the panels mean."""
        family = self.timeline.world.family if self.timeline is not None else None
        if family is None and self.setup.world is not None:
            family = self.setup.world.family
        found = plugins().get(family) if family else None
        dialog = self.help()
        if found is None:
            dialog.open_page(dialog.index.item(0).text() if dialog.index.count() else "")
            return
        from ui.help import page_title

        dialog.open_page(page_title(family))

    def show_papers(self) -> None:
        from ui.help import PAPERS_PAGE

        self.help().open_page(PAPERS_PAGE)

    # ================================================================== shutdown

    def shutdown(self) -> None:
        """Stop the session and wait for every worker thread (window close, test teardown)."""
        self.stop_session()
        for runner in self._finished_runners:
            runner.stop()
        self._finished_runners.clear()
        for thread in self._loaders:
            thread.join(30)
        self._loaders.clear()
        self._panel_timer.stop()
        self._play_timer.stop()
        if self.discard_box is not None:
            self.discard_box.close()
        errors.remove_listener(self._error_listener)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        self.settings.store.setValue("window/geometry", self.saveGeometry())
        self.settings.store.setValue("window/state", self.saveState())
        self.settings.sync()
        super().closeEvent(event)
