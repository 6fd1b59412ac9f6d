"""What the window says when an episode starts, ends or is opened: the Session panel shows what
plays, the status line and title name it, the end-of-episode card offers what to do next, and a
live game in progress is ended only if the person agrees. The work itself is the controllers'
(``ui/session/controllers.py``); this presenter only words it on the window's widgets."""

from __future__ import annotations

import html
import time
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QObject, Qt
from PyQt6.QtWidgets import QApplication, QMessageBox

from sim.session import Session
from ui.session import catalog
from ui.session.catalog import SessionPlan
from ui.session.controllers import LOAD_ERRORS, spec_from_description
from ui.session.model import is_loading
from ui.session.timeline import LiveTimeline, ReplayTimeline, Timeline
from ui.toast import episode_summary


class EpisodePresenter(QObject):
    """The episode flows of a MainWindow ``w``: start, close, open, finish."""

    def __init__(self, w: Any) -> None:
        super().__init__(w)
        self.w, self.model = w, w.model
        #: the plan of the episode started before the Session panel was filled, shown there once it is
        self.pending: SessionPlan | None = None

    # ------------------------------------------------------------------ live sessions

    def confirm_discard(self, what: str, then: Any) -> None:
        """Run ``then`` at once, or after the person agrees to end the live game (asked without
        blocking: a message box opened with ``open()``, the game goes on meanwhile)."""
        w = self.w
        if not w.sessions.has_live_game():
            then()
            return
        if w.discard_box is not None:
            w.discard_box.close()
        box = QMessageBox(QMessageBox.Icon.Question, "End the game in progress?",
                          f"{what} ends the episode being played ({self.model.timeline.num_steps} steps so far).",
                          parent=w)
        box.setInformativeText("Its recording keeps what was played." if self.model.recording_path else
                               "It is not being recorded: what was played is lost.")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText("End it")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setObjectName("discardQuestion")

        def answered(result: int) -> None:
            w.discard_box = None
            if result == QMessageBox.StandardButton.Yes.value or box.clickedButton() is box.button(
                    QMessageBox.StandardButton.Yes):
                then()
            box.deleteLater()

        box.finished.connect(answered)
        w.discard_box = box
        box.open()

    def start_chosen(self, choice: dict) -> None:
        """Start what the Session panel chose (a new episode or a take-over), or say why not."""
        try:
            self.start_session(self.w.sessions.plan_from_choice(choice))
        except (ValueError, LookupError, TypeError) as exc:
            self.w.setup.show_error(str(exc))
            return
        if choice.get("takeover") is not None:
            self.w.setup.end_takeover()

    def start_session(self, plan: SessionPlan, playing: bool = True) -> Session:
        w = self.w
        session = w.sessions.start(plan, w.playback.current_speed, playing)
        if not w.setup_filled:  # the catalogue may be being read (its index built): the episode does not
            self.pending = plan  # wait for it; the panel shows the plan now and its scenario once read
        self.show_plan_in_setup(plan)
        path = self.model.recording_path
        where = f" — recording to {path}" if path else " — not recording"
        w.mode_label.setText(f"live: {plan.scenario}, seed {plan.seed}"
                             + (f", from step {len(plan.prefix)}" if plan.prefix else "") + where)
        w._update_title()
        w._update_controls()
        if self.model.humans:
            w.focus_view()
        return session

    def show_pending(self) -> None:
        """Show the plan of the episode started before the Session panel was filled (once it is)."""
        if self.pending is not None:
            plan, self.pending = self.pending, None
            self.show_plan_in_setup(plan)

    def show_plan_in_setup(self, plan: SessionPlan) -> None:
        """The Session panel shows what is playing, ready to start again; before the catalogue is
        read, the plan's world, seats and mechanisms (its scenario is selected once it is read)."""
        setup = self.w.setup
        if setup.takeover_step is None:
            shown = setup.scenario == plan.scenario and setup.world is plan.world
            if not self.w.setup_filled:
                if not shown:
                    setup.set_world(plan.world, plan.scenario, category=catalog.scenario_category(plan.scenario))
            elif not (shown and setup.tree.currentItem() is not None) and not setup.select_scenario(plan.scenario):
                setup.add_opened(plan.world, plan.scenario)  # not in the catalogue: listed as opened
            if setup.world is not None and list(setup.world.agents) == list(plan.world.agents):
                for agent, spec in plan.seats.items():
                    setup.set_seat(agent, spec)
            setup.set_mechanisms(self.model.mechanism_specs)
            setup.seed.setValue(plan.seed)
            setup.rounds.setValue(plan.rounds)

    def close_episode(self) -> None:
        """Stop the episode and empty every view: map, panels, board, scrubber, score, title."""
        self.w.sessions.stop()
        self.model.show(None)
        self.w.mode_label.setText("no episode")
        self.w._update_title()

    def session_finished(self) -> None:
        w, timeline, path = self.w, self.model.timeline, self.model.recording_path
        if path is not None and path.exists():
            w.settings.add_recent(path)
        title, _lines = episode_summary(timeline) if timeline is not None else ("Episode over", [])
        label = w.mode_label.text().split(" — ")[0].replace("live:", "finished:", 1)
        w.mode_label.setText(f"{label} — {title}")
        w._update_title()
        w._update_controls()
        if w.exit_when_done:
            return
        if timeline is not None and not (timeline.outcome and timeline.outcome.outcome.get("stopped")):
            self.show_summary()

    def show_summary(self) -> None:
        """The end-of-episode card: what happened, and play again / take over / open recording."""
        w, timeline = self.w, self.model.timeline
        if timeline is None or timeline.outcome is None:
            return
        title, lines = episode_summary(timeline)
        if not w.toast.awaiting_decision:
            w.toast.dismiss()  # an old suggestion's box would cover the summary
        buttons: list[tuple[str, str, Any]] = []
        if isinstance(timeline, LiveTimeline) and w.sessions.last_plan is not None:
            buttons.append(("Play again", "the same scenario, seats, seed and task rounds from the start",
                            self.play_again))
        buttons.append(("Take over…", "continue from a step of this episode with seats of your choice (T)",
                        lambda: (w.card.hide(), w.take_over())))
        path = self.model.recording_path
        if path is not None and path.exists():
            buttons.append(("Open recording", f"replay {path.name} from the start",
                            lambda: (w.card.hide(), self.open_recording_in_background(path))))
        w.card.show_card("summary", title, "<br>".join(html.escape(line) for line in lines), buttons)

    def play_again(self) -> None:
        plan = self.w.sessions.play_again_plan()
        if plan is not None:
            self.w.card.hide()
            self.start_session(plan)

    def show_hint(self, scenario: str) -> None:
        """The first-run card: what is on screen and how to start."""
        w = self.w
        timeline = self.model.timeline
        if timeline is None:
            return
        title, body = catalog.welcome_text(timeline.world, scenario, self.model.mechanism_specs,
                                           sorted(self.model.humans))
        w.card.show_card(
            "hint", title, body,
            [("How to play", "the rules, keys and panels of this world (Shift+F1)", w.dialogs.show_rules),
             ("Play  (K)", "start the episode", lambda: (w.card.hide(), w.set_playing(True)))])

    # ------------------------------------------------------------------ recordings

    def open_recording(self, path: str | Path) -> bool:
        """Open a recording and show it (the window waits; see ``open_recording_in_background``)."""
        path = Path(path)
        started = time.perf_counter()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            timeline = self.w.loader.load(path)
        except LOAD_ERRORS as exc:
            self.w._show_error(f"cannot open {path}: {exc}")
            return False
        finally:
            QApplication.restoreOverrideCursor()
        self.show_replay(path, timeline, time.perf_counter() - started)
        return True

    def open_recording_in_background(self, path: str | Path) -> bool:
        """Open a recording without freezing the window: its first state shows at once (from the
        header alone), the rest loads in a worker thread once that frame is on screen (a
        10,000-step file takes seconds).
        False when the header already says the file cannot be shown."""
        w, path = self.w, Path(path)
        try:
            preview = w.loader.preview(path)
        except LOAD_ERRORS as exc:
            w._show_error(f"cannot open {path}: {exc}")
            return False
        w.sessions.stop()
        self.model.show(preview)
        w.mode_label.setText(f"loading {path.name} ({preview.scenario}, seed {preview.seed})…")
        w._update_title()
        w._update_controls()
        w.statusBar().showMessage(f"loading {path.name}…")
        # the rest of the file is read once the first frame is on screen: reading it meanwhile
        # would share the interpreter with that frame and delay it by seconds under load
        w.view.after_next_frame(lambda: is_loading(self.model.timeline, path) and w.loader.load_in_background(path))
        return True

    def recording_loaded(self, path: Path, result: Any, seconds: float) -> None:
        """The background load of the recording shown as a preview ended."""
        w, play = self.w, self.model.play_when_loaded
        self.model.play_when_loaded = False
        if isinstance(result, str):
            self.close_episode()
            w._show_error(result)
            return
        w.statusBar().clearMessage()
        self.show_replay(path, result, seconds)
        if play:
            w.set_playing(True)

    def show_replay(self, path: Path, timeline: ReplayTimeline, seconds: float) -> None:
        w = self.w
        w.sessions.stop()
        family = timeline.world.family
        self.model.describe_seats(
            {a: spec_from_description(d, family) for a, d in (timeline.header.get("seats") or {}).items()},
            tuple(filter(None, (spec_from_description(d, family) for d in timeline.header.get("mechanisms") or []))))
        self.model.show(timeline)
        w.settings.add_recent(path)
        self.show_in_setup(timeline)
        note = f" — {len(timeline.warnings)} warning(s): {timeline.warnings[0]}" if timeline.warnings else ""
        w.mode_label.setText(f"replay: {path.name} ({timeline.scenario}, seed {timeline.seed}, "
                             f"{timeline.num_steps} steps, loaded in {seconds:.2f} s){note}")
        w._update_title()
        w._update_controls()
        w.focus_view()

    def show_in_setup(self, timeline: Timeline) -> None:
        """The Session panel shows the replayed episode's scenario, seats, mechanisms, seed and rounds."""
        self.w.fill_setup()
        setup = self.w.setup
        seats = {a: self.model.seat_specs.get(a) or catalog.default_agent(timeline.world)
                 for a in timeline.world.agents}
        if not setup.select_scenario(timeline.scenario):
            setup.set_world(timeline.world, timeline.scenario, title=timeline.scenario,
                            description="(from the recording)", seats=seats)
        if list(setup.seat_boxes) == list(timeline.world.agents):
            for agent, spec in seats.items():
                setup.set_seat(agent, spec)
        setup.set_mechanisms(self.model.mechanism_specs)
        setup.seed.setValue(min(timeline.seed, setup.seed.maximum()))
        setup.rounds.setValue(min(timeline.rounds, setup.rounds.maximum()))

