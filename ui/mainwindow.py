"""The main window: it lays out the world view, the side panels, the playback bar and the menus,
draws the app model (``ui/session/model.py``) when it changes, and forwards a person's input to the model
and the controllers (``ui/session/controllers.py``). What is shown, the cursor, playback, the seats and
the pop-up policy live in the model; starting sessions, loading recordings and the playback
clock live in the controllers; the panels are hosted by ``ui/panels/host.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PyQt6.QtCore import QByteArray, QRect, QSize, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QIcon
from PyQt6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from sim.registry import ScenarioInfo
from sim.session import Session
from ui import errors
from ui.dialogs import Dialogs
from ui.episodes import EpisodePresenter
from ui.human_input import HumanInput
from ui.menus import PLAYBACK_ACTIONS, make_actions, make_menus
from ui.panels.host import PanelHost
from ui.panels.setup import SetupPanel
from ui.playback import PlaybackBar
from ui.predict import PredictController
from ui.render import WorldRenderer, renderer_for
from ui.render.base import ASSET_DIR
from ui.render.worldview import WorldView, map_overlays
from ui.session import catalog
from ui.session.catalog import SessionPlan
from ui.session.controllers import STOP_GRACE, CatalogueReader, PlaybackClock, RecordingLoader, SessionController
from ui.session.model import AppModel, is_loading
from ui.session.timeline import LiveTimeline, ReplayTimeline
from ui.settings import AppSettings
from ui.toast import FeedbackToast, InfoCard

RECORDING_SUFFIXES = (".jsonl", ".gz", ".json")
#: the first window's size when the screen has room for it (else the screen's available area)
PREFERRED_SIZE = QSize(1400, 860)
#: seconds closing the window waits for a decision under way before abandoning it
CLOSE_GRACE = STOP_GRACE


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

    def __init__(self, settings: AppSettings | None = None) -> None:
        super().__init__()
        self.settings = settings or AppSettings()
        self.setWindowTitle("ToM Arena")
        if (ASSET_DIR / "icon.png").exists():
            self.setWindowIcon(QIcon(str(ASSET_DIR / "icon.png")))
        self.setAcceptDrops(True)
        self.model = AppModel()
        self.renderer: WorldRenderer | None = None
        self.sessions = SessionController(self.model, self.settings, self)
        self.loader = RecordingLoader(self)
        self.catalogue = CatalogueReader(self)  # the scenario catalogue, read in a worker thread
        self.episodes = EpisodePresenter(self)
        self.exit_when_done = False
        self.discard_box: QMessageBox | None = None
        self.human = HumanInput(self)  # keys, messages, feedback pop-ups, who is thinking
        self.dialogs = Dialogs(self)  # open a recording, settings, help
        self._build_central()
        self.clock = PlaybackClock(self.model, lambda: self.playback.current_speed, self)
        self._build_docks()
        make_menus(self)
        self._build_status_bar()
        self._connect()
        self.predict = PredictController(self)  # Playback > Predict, then see
        self.apply_settings()
        self.setup_filled, self.shut_down = False, False
        #: (world, scenario, path, start) the command line started, for the Session panel
        self.launched: tuple[Any, str, Path, Any] | None = None
        # the catalogue is read in the background once the event loop runs, after the first frame
        # of what the command line opens (a recording needs none of it); the panel fills once read
        QTimer.singleShot(0, self._fill_setup_after_frame)
        #: where the docks are before any remembered layout is applied (View > Reset layout)
        self.default_layout = self.saveState()
        self._restore_geometry()
        self._update_controls()

    # ================================================================== construction

    def _build_central(self) -> None:
        """The world view with its toast and card, the human action bar, the message box, playback."""
        self.view = WorldView()
        self.view.set_animation_seconds(0.15)
        self.stage = Stage(self.view)
        self.toast, self.card = self.stage.toast, self.stage.card
        self.action_bar = QLabel()
        self.action_bar.setWordWrap(True)
        self.action_bar.setStyleSheet("padding: 4px 8px; background: #e8f5e9; color: #1b5e20;")
        self.action_bar.hide()
        self.say_box = QLineEdit()  # a person's message, in worlds where agents talk (World.message_action)
        self.say_box.setClearButtonEnabled(True)
        self.say_box.hide()
        self.actions_by_name = make_actions(self)
        self.playback = PlaybackBar(self.actions_by_name)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        for widget, stretch in ((self.stage, 1), (self.action_bar, 0), (self.say_box, 0), (self.playback, 0)):
            layout.addWidget(widget, stretch)
        self.setCentralWidget(central)

    def _build_docks(self) -> None:
        self.tokens_label = QLabel("")
        self.panels = PanelHost(self, self.model, self.tokens_label)
        area = Qt.DockWidgetArea
        self.setup = SetupPanel()
        self.setup.setToolTip("Choose a scenario (by world and category), who plays each seat, who watches "
                              "(facilitator, teams) and the seed, then press Start")
        # the Session panel scrolls rather than making the window taller than a laptop screen
        setup_holder = QScrollArea()
        setup_holder.setWidgetResizable(True)
        setup_holder.setFrameShape(QFrame.Shape.NoFrame)
        setup_holder.setWidget(self.setup)
        setup_holder.setMinimumWidth(self.setup.minimumSizeHint().width()
                                     + setup_holder.verticalScrollBar().sizeHint().width())
        self.setup_dock = self.panels.dock("Session", setup_holder, area.LeftDockWidgetArea)
        self.minds_dock = self.panels.dock("Minds", self.panels.tabs, area.RightDockWidgetArea)
        self.minds_dock.setToolTip("What the minds of the episode believe: a tab for each kind of belief it "
                                   "reports (hover a tab for what it means)")
        self.feedback_dock = self.panels.dock("Feedback history", self.panels.feedback, area.RightDockWidgetArea)
        self.log_dock = self.panels.dock("Event log", self.panels.log, area.RightDockWidgetArea)
        self.log_dock.setToolTip("Everything that happened, step by step, up to the shown step")

    def _build_status_bar(self) -> None:
        self.mode_label = QLabel("no episode")
        self.step_label = QLabel("")
        self.score_label = QLabel("")
        self.thinking_label = QLabel("")
        self.thinking_label.setStyleSheet("color: #1e6eeb; font-weight: bold;")
        bar = self.statusBar()
        bar.addWidget(self.mode_label, 1)
        for label in (self.thinking_label, self.tokens_label, self.score_label, self.step_label):
            bar.addPermanentWidget(label)

    def _connect(self) -> None:
        """Input to the model and controllers; their changes to what the window draws."""
        self.model.subscribe(self._on_model_changed)
        self.human.connect()
        self.playback.seek_requested.connect(lambda k: self.model.seek(k))
        self.playback.speed_changed.connect(self.set_speed)
        self.setup.start_requested.connect(self._on_start_requested)
        self.sessions.finished.connect(self._on_session_finished)
        self.sessions.failed.connect(self._show_error)
        self.sessions.runner_finished.connect(self._update_controls)
        self.loader.loaded.connect(self._on_recording_loaded)
        self.catalogue.done.connect(lambda: self.shut_down or self.fill_setup())
        self.clock.ended.connect(lambda: self.exit_when_done and isinstance(self.model.timeline, ReplayTimeline)
                                 and QTimer.singleShot(300, self.close))
        self.error_reported.connect(self._show_error)
        self._error_listener = lambda summary, _text: self.error_reported.emit(summary)
        errors.add_listener(self._error_listener)

    def fill_setup(self) -> None:
        """Fill the Session panel (once): the scenario catalogue (read by ``self.catalogue`` in a
        worker thread from its index, which is built there when missing), the default scenario
        selected with its preview and seats. It runs when the catalogue has been read; everything
        that reads or shows the panel before then calls it first and waits for the reading, with a
        busy cursor."""
        if self.setup_filled:
            return
        self.setup_filled = True
        waiting = not self.catalogue.finished  # asked for before the worker is done: say why it waits
        if waiting:
            self.setup.show_note("reading scenarios…")
            self._status("reading scenarios…")
            QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
            QGuiApplication.sync()  # the cursor shows before the wait
        try:
            infos, problems = self.catalogue.result()
        finally:
            if waiting:
                QGuiApplication.restoreOverrideCursor()
                self._status("")
        self.setup.show_note("")
        launched = self.launched
        shown = launched is not None or self.episodes.pending is not None  # else the default scenario
        self.setup.load_scenarios(infos, select="" if shown else self._default_scenario_name(infos))
        if launched is not None:
            self.show_launched(*launched)
        self.episodes.show_pending()
        if problems:  # one bad file must not hide the others; say which and why
            self.setup.show_note(f"{len(problems)} file(s) under scenarios/ skipped (hover for why)",
                                 "\n".join(problems))

    def show_launched(self, world: Any, scenario: str, path: Path, start: Any) -> None:
        """Select the scenario the command line started in the Session panel (a file outside
        ``scenarios/`` is listed as opened); before the catalogue is read, once it is."""
        self.launched = (world, scenario, path, start)
        if self.setup_filled and not self.setup.select_scenario(scenario):
            self.setup.add_opened(world, scenario, path, start=start)

    def _status(self, message: str) -> None:
        bar = self.statusBar()
        if bar is not None:
            bar.showMessage(message)

    def _fill_setup_after_frame(self) -> None:
        self.view.after_next_frame(self._read_catalogue)

    def _read_catalogue(self) -> None:
        if self.shut_down:
            return
        if not self.setup_filled:
            self.setup.show_note("reading scenarios…")
        self.catalogue.start()

    def _default_scenario_name(self, infos: list[ScenarioInfo] | None = None) -> str:
        info = catalog.default_scenario(catalog.scenarios() if infos is None else infos,
                                        self.settings.get("default_scenario"))
        return info.name if info else ""

    def apply_settings(self) -> None:
        s = self.settings
        self.playback.set_speed(s.get("speed"))
        self.view.animate = s.get("animate")
        self.actions_by_name["show_plans"].setChecked(s.get("show_plans"))
        self.panels.set_rate(s.get("panel_hz"))
        self.set_speed(self.playback.current_speed, remember=False)

    def _restore_geometry(self) -> None:
        geometry = self.settings.store.value("window/geometry")
        state = self.settings.store.value("window/state")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:  # a fresh profile, or a geometry saved on a larger screen
            self.fit_to_screen(screen.availableGeometry(), fresh=not isinstance(geometry, QByteArray))
        if isinstance(state, QByteArray):
            self.restoreState(state)

    def fit_to_screen(self, available: QRect, fresh: bool = False) -> None:
        """Keep the window inside ``available`` (the screen less its panels and task bars): a fresh
        window takes up to 1400 x 860 of it, centred; a remembered one larger than it shrinks."""
        frame = self.frameGeometry().size() - self.geometry().size()  # title bar and borders, once shown
        if frame.isEmpty():
            frame = QSize(8, 40)  # not shown yet: leave room for a window manager's title bar
        room = QSize(max(640, available.width() - frame.width()), max(480, available.height() - frame.height()))
        if fresh:
            size = QSize(min(PREFERRED_SIZE.width(), room.width()), min(PREFERRED_SIZE.height(), room.height()))
        elif self.width() > room.width() or self.height() > room.height():
            size = self.size().boundedTo(room)
        else:
            return
        self.resize(size)
        self.move(available.x() + (available.width() - size.width() - frame.width()) // 2,
                  available.y() + (available.height() - size.height() - frame.height()) // 2)

    # ================================================================== drawing the model

    def _on_model_changed(self, change: str) -> None:
        if change == "timeline":
            self._on_timeline_shown()
        elif change == "cursor":
            self._show_cursor(animate=self.model.animate)
        elif change == "extended":
            self._refresh_position()
        elif change == "viewer":
            self._update_overlays()
            self.view.show_state(self.view.state)
        elif change in ("seats", "overlays"):
            self._update_overlays()
        elif change == "playing":
            self._update_overlays()
            self._update_controls()
            self.panels.refresh(force=True)  # panels that say whether the game is paused

    def _on_timeline_shown(self) -> None:
        timeline = self.model.timeline
        self.setup.end_takeover()  # a pending take-over belonged to the episode shown before
        self.toast.awaiting_decision = False
        self.toast.hide()
        if self.card.kind != "hint" or timeline is None:
            self.card.hide()
        self.clock.stop()
        self.renderer = renderer_for(timeline.world) if timeline is not None else None
        self.view.set_renderer(self.renderer)
        self.panels.install(timeline, self._action_text if timeline is not None else None)
        if timeline is None:
            self.playback.show_position(0, 0)
            for label in (self.step_label, self.score_label, self.tokens_label, self.thinking_label):
                label.clear()
            self.action_bar.hide()
            self.say_box.hide()
            self._update_controls()
        else:
            self._show_cursor(animate=False)
        self.panels.refresh(force=True)

    def _show_cursor(self, animate: bool) -> None:
        timeline, cursor = self.model.timeline, self.model.cursor
        if timeline is None or self.renderer is None:
            return
        previous = timeline.state_at(cursor - 1) if animate and cursor > 0 else None
        self.view.show_state(timeline.state_at(cursor), previous, animate=animate)
        self._refresh_position()

    def _refresh_position(self) -> None:
        """Overlays, scrubber and status bar for the cursor (the view keeps its state)."""
        timeline, cursor = self.model.timeline, self.model.cursor
        if timeline is None or self.renderer is None:
            return
        self._update_overlays()
        if self.toast.isVisible():
            if self.model.popup_stale(self.toast.feedback, self.toast.awaiting_decision):
                self.toast.dismiss()  # its step is no longer shown
            else:
                self.toast.place()  # the agents moved: keep clear of them
        self.playback.show_position(cursor, timeline.num_steps, live=self.model.is_live())
        self.step_label.setText(f"step {cursor} / {timeline.num_steps}")
        self.score_label.setText(self.renderer.status_text(timeline.state_at(cursor)))

    def _action_text(self, agent: str, encoded: Any) -> str:
        """An encoded action of the log in the world's own words."""
        renderer, timeline = self.renderer, self.model.timeline
        if renderer is None or timeline is None:
            return str(encoded)
        try:
            return renderer.action_label(timeline.world.decode_action(encoded))
        except Exception:  # an action this build cannot decode: show it as recorded
            return str(encoded)

    def _update_overlays(self) -> None:
        model, renderer = self.model, self.renderer
        if model.timeline is None:
            return
        overlays, fields = map_overlays(model, renderer, show_plans=self.actions_by_name["show_plans"].isChecked(),
                                        phase=self.view.overlays.phase)
        self.view.set_overlays(overlays)
        self.human.show_turn(fields)

    def _update_title(self) -> None:
        timeline = self.model.timeline
        if timeline is None:
            self.setWindowTitle("ToM Arena")
        elif isinstance(timeline, LiveTimeline):
            state = "finished" if timeline.outcome is not None else "live"
            self.setWindowTitle(f"{timeline.scenario} (seed {timeline.seed}, {state}) — ToM Arena")
        else:
            name = Path(getattr(timeline, "path", "") or timeline.scenario).name
            self.setWindowTitle(f"{name} ({timeline.scenario}, replay) — ToM Arena")

    def _update_controls(self) -> None:
        acts, playing = self.actions_by_name, self.model.playing
        for name in (*PLAYBACK_ACTIONS, "take_over", "close", "export_clip"):
            if name not in ("faster", "slower"):
                acts[name].setEnabled(self.model.timeline is not None)
        for name in ("accept_feedback", "ignore_feedback"):  # only while a person must answer
            acts[name].setEnabled(self.toast.awaiting_decision)
        acts["play"].setText("Pause" if playing else "Play")
        acts["play"].setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause if playing
                                                       else QStyle.StandardPixmap.SP_MediaPlay))

    def _show_error(self, message: str) -> None:
        self.statusBar().showMessage(f"⚠ {message}", 15000)

    # ================================================================== episodes (ui/episodes.py)

    def start_session(self, plan: SessionPlan, playing: bool = True) -> Session:
        """Start a live session (raises ValueError with a message a person can act on)."""
        return self.episodes.start_session(plan, playing)

    def stop_session(self) -> None:
        self.sessions.stop()

    def close_episode(self) -> None:
        self.episodes.close_episode()

    def open_recording(self, path: str | Path) -> bool:
        return self.episodes.open_recording(path)

    def open_recording_in_background(self, path: str | Path) -> bool:
        return self.episodes.open_recording_in_background(path)

    def open_recording_asking(self, path: str | Path) -> None:
        self.episodes.confirm_discard("Opening a recording", lambda: self.open_recording_in_background(path))

    def _on_start_requested(self, choice: dict) -> None:
        if choice.get("takeover") is None:  # a take-over continues the game; a new start ends it
            self.episodes.confirm_discard("Starting a new session", lambda: self.episodes.start_chosen(choice))
        else:
            self.episodes.start_chosen(choice)

    def _on_session_finished(self) -> None:
        self.episodes.session_finished()
        if self.exit_when_done:
            QTimer.singleShot(300, self.close)

    def _on_recording_loaded(self, path: Path, result: Any, seconds: float) -> None:
        if is_loading(self.model.timeline, path):  # else the person opened something else meanwhile
            self.episodes.recording_loaded(path, result, seconds)

    def show_summary(self) -> None:
        self.episodes.show_summary()

    def show_hint(self, scenario: str) -> None:
        self.episodes.show_hint(scenario)

    def play_again(self) -> None:
        self.episodes.play_again()

    def show_setup(self) -> None:
        self.fill_setup()
        self.setup_dock.show()
        self.setup_dock.raise_()

    def take_over(self) -> None:
        """Set up a live session that continues from the cursor with seats of one's choice."""
        timeline = self.model.timeline
        if timeline is None:
            self.statusBar().showMessage("open a recording or start a session first", 4000)
            return
        self.set_playing(False)
        self.fill_setup()
        seats = {a: self.model.seat_specs.get(a) or catalog.default_agent(timeline.world)
                 for a in timeline.world.agents}
        self.setup.begin_takeover(timeline.world, timeline.scenario, self.model.cursor, seats,
                                  self.model.mechanism_specs, timeline.seed, timeline.rounds)
        self.show_setup()
        self.setup_dock.widget().ensureWidgetVisible(self.setup.start_button)  # "Take over", scrolled into view

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

    # ================================================================== playback input

    def toggle_play(self) -> None:
        self.set_playing(not self.model.playing)

    def set_playing(self, playing: bool) -> None:
        if playing and self.card.kind == "hint":
            self.card.hide()
        self.clock.set_playing(playing)

    def step_forward(self) -> None:
        self.clock.stop()
        result, shown = self.model.step_forward()
        self.human.present_feedback(shown)
        if result == "waiting":
            self.statusBar().showMessage(f"waiting for {self.model.human_to_move()}: your move", 3000)

    def seek_feedback(self, forward: bool) -> None:
        self.clock.stop()
        shown = self.model.seek_feedback(forward)
        if shown is None:
            self.statusBar().showMessage("no later feedback" if forward else "no earlier feedback", 3000)
        else:
            self.human.present_feedback(shown)

    def set_speed(self, speed: float, remember: bool = True) -> None:
        self.view.set_animation_seconds(min(0.15, 0.7 / max(speed, 0.1)))
        if self.model.runner is not None:
            self.model.runner.set_speed(speed)
        if remember:
            self.settings.set("speed", float(speed))

    def cycle_believed(self) -> None:
        """B: draw the world as the next mind believes it (then as it is again)."""
        label = self.model.cycle_believed()
        self.statusBar().showMessage(f"map: {label}", 4000)

    def set_show_plans(self, checked: bool) -> None:
        self.settings.set("show_plans", bool(checked))
        self._update_overlays()

    def reset_layout(self) -> None:
        """View > Reset layout: every panel back where a fresh window has it (docked, shown, its
        share of the width), after docks were dragged, floated, stacked or closed."""
        self.restoreState(self.default_layout)
        docks = (self.setup_dock, self.minds_dock, self.feedback_dock, self.log_dock)
        for dock in docks:
            dock.setFloating(False)
            dock.show()
        for dock in self.panels.docks.values():  # the shown world's own docks (a board's controls)
            dock.setFloating(False)
            dock.show()
        third = max(260, self.width() // 4)
        self.resizeDocks([self.setup_dock, self.minds_dock], [third, third], Qt.Orientation.Horizontal)
        self.statusBar().showMessage("layout reset", 3000)

    # ================================================================== input

    def focus_view(self) -> None:
        self.activateWindow()  # without a window manager (Xvfb) focus needs this
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    # ================================================================== shutdown

    def shutdown(self, grace: float = 10.0) -> None:
        """Stop the session and wait for every worker thread (window close, test teardown); a
        decision still running after ``grace`` s is abandoned (``sessions.abandoned``)."""
        self.shut_down = True
        self.sessions.shutdown(grace)
        self.loader.shutdown()
        self.catalogue.shutdown()
        self.panels.timer.stop()
        self.clock.stop()
        if self.discard_box is not None:
            self.discard_box.close()
        errors.remove_listener(self._error_listener)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown(CLOSE_GRACE)  # closing never waits for a slow planner or model call
        self.settings.store.setValue("window/geometry", self.saveGeometry())
        self.panels.undock_world_panels()
        self.settings.store.setValue("window/state", self.saveState())
        self.settings.sync()
        super().closeEvent(event)
