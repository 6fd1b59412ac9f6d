"""Controllers: they turn threads, timers and a person's intents into changes of the app model
(``ui/session/model.py``). They may use Qt's timers, threads and signals but hold no widget; the window
(``ui/mainwindow.py``) connects their signals to what it draws.

- ``SessionController``: starts a live session (new, or a take-over continuing an episode from a
  step), feeds the model the runner's batches, stops it (its recording gets a footer).
- ``RecordingLoader``: reads a recording now, or in a worker thread while its first state shows.
- ``PlaybackClock``: advances the cursor by elapsed time while playing.
Human keys are routed by the model itself (``AppModel.route_key``): the window forwards them.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QObject, QTimer, pyqtSignal

from agents.human import HumanAgent
from agents.registry import kind_parameters
from sim.recording import LoadCancelled, RecordingError
from sim.registry import ScenarioError, ScenarioInfo
from sim.replay import Replay
from sim.session import Session
from ui.render import renderer_for
from ui.session import catalog
from ui.session.catalog import SessionPlan
from ui.session.model import AppModel
from ui.session.runner import Batch, SessionRunner
from ui.session.timeline import LiveTimeline, PreviewTimeline, ReplayTimeline
from ui.settings import AppSettings

LOAD_ERRORS = (RecordingError, ScenarioError, LookupError, KeyError, ValueError, OSError)
#: seconds ending a live session (a new start, closing the episode, opening a recording, closing
#: the window) waits for a decision under way before abandoning it
STOP_GRACE = 0.5


def spec_from_description(described: Any, family: str | None = None) -> str:
    """An agent or mechanism spec ("boltzmann:temperature=0.5") from a recording header's
    describe() dict: only the parameters the kind takes (in ``family``) and whose value is not
    its default, so a person reads ``protom`` rather than every internal setting."""
    if not isinstance(described, dict) or not described.get("kind"):
        return ""
    kind = str(described["kind"])
    takes = kind_parameters(kind, family)
    params = []
    for k, v in described.items():
        if k in ("kind", "name") or not isinstance(v, (int, float, str, bool)):
            continue
        if takes is not None and (k not in takes or _same(takes[k], v)):
            continue
        params.append(f"{k}={str(v).lower() if isinstance(v, bool) else v}")
    return kind + (":" + ",".join(params) if params else "")


def _same(default: Any, value: Any) -> bool:
    try:
        return default is not ... and bool(default == value)
    except Exception:  # noqa: BLE001 - a default that does not compare: show the value
        return False


class SessionController(QObject):
    """Live sessions: start (new or a take-over), the runner's batches into the model, stop."""

    #: feedback events the window should present (a list), as the model decided
    feedback = pyqtSignal(object)
    finished = pyqtSignal()          # the episode ended (its last batch arrived)
    runner_finished = pyqtSignal()   # the worker thread ended
    failed = pyqtSignal(str)
    thinking = pyqtSignal(object)    # frozenset of agents whose decision takes a while

    def __init__(self, model: AppModel, settings: AppSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.settings = settings
        self.last_plan: SessionPlan | None = None
        self._finished_runners: list[SessionRunner] = []
        #: runners whose worker was still deciding when stopped (it ends when its decision returns)
        self.abandoned: list[SessionRunner] = []

    def plan_from_choice(self, choice: dict) -> SessionPlan:
        """The plan of the Session panel's choice: a new episode, or a take-over of the shown one
        from its step ``choice["takeover"]`` (its joint actions and events up to there)."""
        step, timeline = choice.get("takeover"), self.model.timeline
        if step is not None and timeline is not None:
            return SessionPlan(world=timeline.world, scenario=timeline.scenario, seats=choice["seats"],
                               mechanisms=tuple(choice["mechanisms"]), seed=choice["seed"],
                               prefix=tuple(timeline.joint_actions(step)),
                               earlier_events=tuple(timeline.events_until(step)), rounds=timeline.rounds,
                               questions=timeline.questions)
        return SessionPlan(world=choice["world"], scenario=choice["scenario"], seats=choice["seats"],
                           mechanisms=tuple(choice["mechanisms"]), seed=choice["seed"],
                           rounds=choice.get("rounds", 1))

    def recording_path(self, plan: SessionPlan) -> Path | None:
        """A fresh file under the recordings folder, or None when recording is off."""
        if not self.settings.get("record"):
            return None
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        suffix = ".jsonl.gz" if self.settings.get("compress") else ".jsonl"
        base = self.settings.recordings_dir / f"{plan.scenario}-{stamp}-seed{plan.seed}"
        path, n = base.with_suffix(suffix), 1
        while path.exists():
            n += 1
            path = Path(f"{base}-{n}{suffix}")
        return path

    def start(self, plan: SessionPlan, speed: float, playing: bool = True) -> Session:
        """Start a live session and show it (raises ValueError with a message a person can act on)."""
        seats = plan.build_seats()
        mechanisms = catalog.make_mechanisms(plan.mechanisms, plan.world)
        session = Session(plan.world, seats, seed=plan.seed, scenario=plan.scenario, mechanisms=mechanisms,
                          prefix=list(plan.prefix), rounds=plan.rounds, questions=plan.episode_questions())
        self.stop()  # a decision under way (ProToM weighing six agents) is abandoned, not waited for
        path = self.recording_path(plan)
        timeline = LiveTimeline(plan.world, session.header(), session.state, earlier=plan.earlier_events)
        runner = SessionRunner(session, speed=speed, playing=playing,
                               recording_path=str(path) if path else None, parent=self)
        runner.published.connect(self._on_batch)
        runner.thinking.connect(self.thinking.emit)
        runner.failed.connect(lambda message: self.failed.emit(f"the session stopped: {message}"))
        runner.finished.connect(self.runner_finished.emit)
        self.model.describe_seats(dict(plan.seats), tuple(plan.mechanisms))
        self.model.show(timeline, humans={a: s for a, s in seats.items() if isinstance(s, HumanAgent)},
                        session=session, runner=runner, recording_path=path)
        self.model.playing = playing
        self.last_plan = plan
        runner.start()
        self.model.changed("playing")  # a human seat's turn shows once the runner runs
        return session

    def play_again_plan(self) -> SessionPlan | None:
        plan = self.last_plan
        if plan is None:
            return None
        return SessionPlan(world=plan.world, scenario=plan.scenario, seats=plan.seats, mechanisms=plan.mechanisms,
                           seed=plan.seed, rounds=plan.rounds, questions=plan.questions)

    def has_live_game(self) -> bool:
        """True while a live episode runs that has steps to lose (not yet over)."""
        timeline, runner = self.model.timeline, self.model.runner
        return (isinstance(timeline, LiveTimeline) and runner is not None and runner.alive
                and timeline.outcome is None and timeline.num_steps > 0)

    def stop(self, grace: float = STOP_GRACE) -> None:
        """End the live session (its recording gets a footer) and wait up to ``grace`` s for its
        thread; a decision still running then is abandoned (``SessionRunner.stop``): the window
        never freezes waiting for a slow planner or model call."""
        runner = self.model.runner
        if runner is None:
            return
        self.model.runner = None
        runner.stop(grace)
        if runner.abandoned:
            self.abandoned.append(runner)
        try:
            runner.published.disconnect(self._on_batch)
        except TypeError:
            pass
        self._finished_runners.append(runner)
        self.thinking.emit(frozenset())

    def _on_batch(self, batch: Batch) -> None:
        if self.sender() is not self.model.runner:
            return  # a batch of a session that was replaced
        shown = self.model.extend(batch.events, batch.state)
        if shown:
            self.feedback.emit(shown)
        if batch.finished:
            self.model.playing = False
            self.finished.emit()

    def shutdown(self, grace: float = 10.0) -> None:
        """Stop every session; wait at most ``grace`` s in all for the decisions still running."""
        deadline = time.monotonic() + grace
        self.stop(grace)
        for runner in self._finished_runners:
            runner.stop(max(0.0, deadline - time.monotonic()))
            if runner.abandoned and runner not in self.abandoned:
                self.abandoned.append(runner)
        # a worker still deciding stays listed: a later shutdown with more patience joins it
        self._finished_runners = [r for r in self._finished_runners if r.alive]


class _Reports(QObject):
    """The one signal worker threads report through: made once in the GUI thread and never
    deleted. A worker outlives its window when closing does not wait for it (a recording still
    loading, the scenario catalogue still read); its report then reaches no one, where emitting a
    signal of the deleted window's own object would crash the program."""

    #: (the token of the object the report is for, what it reports)
    report = pyqtSignal(int, object)


_REPORTS: _Reports | None = None
#: tokens of the objects workers report to (never reused, unlike ``id``)
_TOKENS = itertools.count(1)


def report_from_worker(reports: _Reports, whom: int, what: Any) -> None:
    """Emit a worker's report. At the program's end PyQt deletes every Qt object, this one too,
    while a daemon worker (the catalogue still read when a signal closed the app) may still
    finish: its report then reaches no one, as any report to a closed window."""
    try:
        reports.report.emit(whom, what)
    except RuntimeError:  # "wrapped C/C++ object of type _Reports has been deleted"
        pass


def worker_reports() -> _Reports:
    """The reports' signal (made on first use: call it first from the GUI thread)."""
    global _REPORTS
    if _REPORTS is None:
        _REPORTS = _Reports()
    return _REPORTS


class RecordingLoader(QObject):
    """Reads recordings: now (the window waits) or in a worker thread (it does not)."""

    #: (path, ReplayTimeline or an error message, seconds) from a background load
    loaded = pyqtSignal(object, object, float)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._threads: list[threading.Thread] = []
        #: set when the window closes: a load under way gives up (``Replay``'s ``cancelled``)
        self._cancel = threading.Event()
        self._token = next(_TOKENS)
        worker_reports().report.connect(self._on_report)  # disconnected when this object is deleted

    def _on_report(self, whom: int, what: Any) -> None:
        if whom == self._token:
            self.loaded.emit(*what)

    @staticmethod
    def load(path: Path, cancelled: Callable[[], bool] | None = None) -> ReplayTimeline:
        """Read a recording and rebuild its states (pure: safe in any thread); raises LOAD_ERRORS
        (and ``LoadCancelled`` once ``cancelled()`` is true)."""
        replay = Replay(str(path), cancelled=cancelled)
        renderer_for(replay.world)  # a world without a view cannot be shown: say so now
        return ReplayTimeline(replay)

    @staticmethod
    def preview(path: Path) -> PreviewTimeline:
        """The first state from the header alone (milliseconds); raises LOAD_ERRORS."""
        preview = PreviewTimeline.from_file(path)
        renderer_for(preview.world)
        return preview

    def load_in_background(self, path: Path) -> None:
        """Read ``path`` in a worker thread; ``loaded`` tells when it is done."""

        cancel, load, whom, reports = self._cancel, self.load, self._token, worker_reports()

        def work() -> None:  # holds nothing of the window: it may outlive it
            begun = time.perf_counter()
            try:
                result: ReplayTimeline | str = load(path, cancel.is_set)
            except LoadCancelled:
                return  # the window closed: nobody waits for it
            except LOAD_ERRORS as exc:
                result = f"cannot open {path}: {exc}"
            if not cancel.is_set():
                report_from_worker(reports, whom, (path, result, time.perf_counter() - begun))

        thread = threading.Thread(target=work, name="tom-arena-open", daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def shutdown(self, wait: float = 0.0) -> None:
        """Cancel the loads under way (closing never waits for a large file to load); wait up to
        ``wait`` s for their threads to notice (they stop at the next few hundred lines or steps)."""
        self._cancel.set()
        deadline = time.monotonic() + wait
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._threads = [t for t in self._threads if t.is_alive()]


class CatalogueReader(QObject):
    """Reads the scenario catalogue (``catalog.scan_scenarios``: the index, built where it is
    missing or stale) in a worker thread, so that building the index (seconds on a first start or
    after a scenario changed) never freezes the window; ``result`` waits for it when it is needed
    at once."""

    #: the catalogue is read (``result`` returns without waiting)
    done = pyqtSignal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        #: [result, error] of the reading, written by the worker (which may outlive this object)
        self._outcome: list[Any] = [None, None]
        self._token = next(_TOKENS)
        worker_reports().report.connect(self._on_report)  # disconnected when this object is deleted

    def _on_report(self, whom: int, _what: Any) -> None:
        if whom == self._token:
            self.done.emit()

    @property
    def started(self) -> bool:
        return self._thread is not None

    @property
    def finished(self) -> bool:
        return self._thread is not None and not self._thread.is_alive()

    def start(self) -> None:
        """Begin reading (once)."""
        if self._thread is not None:
            return
        catalog.plugins()  # the worlds are discovered here, so that the worker only reads them

        outcome, whom, reports = self._outcome, self._token, worker_reports()

        def work() -> None:  # holds nothing of the window: it may outlive it
            try:
                outcome[0] = catalog.scan_scenarios()
            except BaseException as exc:  # noqa: BLE001 - raised again by result(), in the GUI thread
                outcome[1] = exc
            report_from_worker(reports, whom, None)

        self._thread = threading.Thread(target=work, name="tom-arena-scenarios", daemon=True)
        self._thread.start()

    def result(self) -> tuple[list[ScenarioInfo], list[str]]:
        """(the scenarios the app can show, the problems of the files it could not read), waiting
        for the worker (started here if it was not) when it has not finished."""
        self.start()
        assert self._thread is not None
        self._thread.join()
        result, error = self._outcome
        if error is not None:
            raise error
        assert result is not None
        return result

    def shutdown(self, wait: float = 0.0) -> None:
        """Closing does not wait for the catalogue (its index is written atomically: a reading
        cut short leaves the old index or none, rebuilt next time); ``wait``: at most this long."""
        if self._thread is not None:
            self._thread.join(wait)


class PlaybackClock(QObject):
    """While playing away from the live edge, moves the model's cursor by elapsed time."""

    #: feedback events passed over (a list), for the window to present
    feedback = pyqtSignal(object)
    #: the cursor reached the end of a replay while playing
    ended = pyqtSignal()

    def __init__(self, model: AppModel, speed: Callable[[], float], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.speed = speed
        self.timer = QTimer(self)
        self.timer.setInterval(15)
        self.timer.timeout.connect(self.tick)

    def set_playing(self, playing: bool) -> None:
        if self.model.set_playing(playing, time.monotonic()):
            self.timer.start()
        else:  # paused, still loading, or at the live edge (the session paces itself)
            self.timer.stop()

    def tick(self) -> None:
        """Advance the cursor by elapsed time (QTimer drops ticks under load)."""
        shown, go_on = self.model.advance(time.monotonic(), self.speed())
        if shown:
            self.feedback.emit(shown)
        if not go_on:
            self.timer.stop()
            timeline = self.model.timeline
            if timeline is not None and not self.model.playing and self.model.cursor >= timeline.num_steps:
                self.ended.emit()

    def stop(self) -> None:
        self.timer.stop()
