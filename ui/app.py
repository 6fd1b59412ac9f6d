"""Starting the desktop app: the QApplication, the excepthook, the main window, and what it
opens first (a recording, or a scenario that plays by itself)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# SDL would install its own SIGINT/SIGTERM handlers (and swallow both): Python's must stay.
os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")

from PyQt6.QtCore import QObject, QTimer
from PyQt6.QtWidgets import QApplication

from ui import errors
from ui.settings import APPLICATION, ORGANIZATION, AppSettings

if TYPE_CHECKING:
    from ui.mainwindow import MainWindow


def _import_pygame() -> None:
    """Import pygame (the world view draws with it) without letting it import ``pkg_resources``
    or numpy. Setuptools' resource API takes about 0.1 s of CPU to import (it reads every
    installed package), and pygame only tries it in ``pygame.pkgdata`` to find its own files (the
    default font), which it opens from its own folder when the API is missing: the same files.
    Numpy (about as much) is wanted only by ``pygame.surfarray`` and ``pygame.sndarray``, which
    pygame imports up front: hidden, they are left out, and ``import pygame.surfarray`` loads
    them (and numpy) where they are used."""
    if "pygame" in sys.modules:
        return
    hidden = [name for name in ("pkg_resources", "numpy") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # its import raises ImportError
    try:
        import pygame
    finally:
        for name in hidden:
            del sys.modules[name]
    for name in ("surfarray", "sndarray"):  # pygame's stand-ins would answer any later use with an error
        if f"pygame.{name}" not in sys.modules and hasattr(pygame, name):
            delattr(pygame, name)


_import_pygame()


class LaunchError(ValueError):
    """A launch option that cannot be honoured (unknown scenario, bad agent spec...)."""


def display_available() -> bool:
    """True when Qt can open a window here (a display, or an explicit platform like offscreen)."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def application(argv: Sequence[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(list(argv) if argv is not None else [sys.argv[0]])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    errors.install()
    return app  # type: ignore[return-value]


def is_recording(path: str) -> bool:
    p = Path(path)
    return p.is_file() and (p.name.endswith((".jsonl", ".jsonl.gz", ".gz")))


def launch(window: "MainWindow", *, targets: Sequence[str] = (), agents: Sequence[str] = (),
           facilitator: str | None = None, mechanisms: Sequence[str] = (), seed: int = 0,
           paused: bool = False, cooks: int | None = None) -> None:
    """Open what the command line asked for: a recording, or a scenario (default: the
    default scenario) with its seats, playing by itself unless ``paused``. ``cooks``: how many
    cooks play a gym-cooking level (``--cooks``, a reading option refused by other levels)."""
    from agents.registry import AgentSpecError, seat_specs
    from sim.registry import ScenarioError, find_scenario, load_questions, load_scenario_start
    from ui.session import catalog
    from ui.session.catalog import SessionPlan

    recordings = [t for t in targets if is_recording(t)]
    scenarios = [t for t in targets if not is_recording(t)]
    if len(scenarios) > 1 or len(recordings) > 1:
        raise LaunchError(f"give at most one scenario and one recording, got {list(targets)}")
    if cooks is not None and not scenarios:
        raise LaunchError(f"--cooks {cooks} sets how many cooks play a gym-cooking level: give the level's file "
                          "as TARGET")
    if recordings and not scenarios:
        # the first state shows at once; the rest of the file loads in the background
        if not window.open_recording_in_background(recordings[0]):
            raise LaunchError(window.statusBar().currentMessage().lstrip("⚠ "))
        if not paused:
            window.set_playing(True)  # a replay plays by itself too (once loaded)
        return
    # the scenario's first frame does not wait for the catalogue (its index may be being built):
    # the default scenario is found by its file; the panel shows it once the catalogue is read
    name = scenarios[0] if scenarios else catalog.first_scenario(window.settings.get("default_scenario"))
    if not name:
        window.fill_setup()
        name = window._default_scenario_name()
    if not name:
        raise LaunchError("no scenarios found under scenarios/")
    try:
        world, scenario, start = load_scenario_start(name, None, {"cooks": cooks})
        # what the command line gives, else what the scenario file's "start" asks for, else defaults
        try:
            seats = seat_specs(world.agents, list(agents) or list(start.agents) or [catalog.default_agent(world)])
        except AgentSpecError as exc:
            if agents:
                raise
            raise LaunchError(f"{find_scenario(name)}: field 'start.agents': {exc}") from None
        if facilitator is None and not mechanisms and start.mechanisms:
            chosen: tuple[str, ...] = start.mechanisms
        else:
            if facilitator is None:
                facilitator = catalog.default_mechanism("facilitator", world.family,
                                                        catalog.scenario_category(scenario))
            chosen = (facilitator, *mechanisms)
        plan = SessionPlan(world=world, scenario=scenario, seats=seats,
                           mechanisms=tuple(s for s in chosen if s and s != catalog.NONE), seed=seed,
                           rounds=start.rounds or 1, questions=load_questions(name, None, {"cooks": cooks}))
        window.show_launched(world, scenario, find_scenario(name), start)
        window.start_session(plan, playing=not paused)
    except (ScenarioError, ValueError, LookupError) as exc:
        raise LaunchError(str(exc)) from None
    if recordings:
        window.open_recording_in_background(recordings[0])


class QuitOnSignal(QObject):
    """Ctrl+C (SIGINT) and ``kill`` (SIGTERM) close the window as its Quit does: the session
    stops, its recording gets its footer, any embedded model server stops, exit code 0.

    Python runs a signal handler only when the interpreter gets control, and Qt's event loop
    runs in C++: a timer wakes Python ten times a second. The handler only schedules the
    close (it may interrupt any Python code of the GUI thread); a second signal while closing
    ends the program the default way."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.window = window
        self.received: int | None = None
        self._previous = {sig: signal.signal(sig, self._handle) for sig in self.SIGNALS}
        self._wake = QTimer(self)
        self._wake.timeout.connect(lambda: None)  # lets Python run pending signal handlers
        self._wake.start(100)

    def _handle(self, signum: int, _frame: object) -> None:
        if self.received is not None:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self.received = signum
        for sig in self.SIGNALS:  # the next one is final
            signal.signal(sig, signal.SIG_DFL)
        QTimer.singleShot(0, self._close)

    def _close(self) -> None:
        print(f"ToM Arena: {signal.Signals(self.received).name} received, closing", file=sys.stderr)
        self.window.close()
        QApplication.instance().quit()

    def restore(self) -> None:
        self._wake.stop()
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


#: seconds an embedded model server gets to stop when the app quits before it is killed (one
#: answering a request would otherwise make quitting wait for its whole answer)
SERVER_GRACE = 0.3


def stop_model_servers() -> None:
    """Stop the embedded model servers this process started (only if the LLM layer was used)."""
    server = sys.modules.get("agents.llm.server")
    if server is not None:
        server.stop_shared_servers(SERVER_GRACE)


def run_app(*, targets: Sequence[str] = (), agents: Sequence[str] = (), facilitator: str | None = None,
            mechanisms: Sequence[str] = (), seed: int = 0, paused: bool = False, speed: float | None = None, exit_when_done: bool = False,
            settings_file: str | None = None, then: Callable[["MainWindow"], None] | None = None,
            cooks: int | None = None) -> int:
    """The app as ``python main.py gui`` opens it; ``then(window)`` runs once the event loop
    runs (the scripted walk of ``ui/shots/walk.py`` drives the window from there)."""
    if not display_available():
        print("error: no display to open the ToM Arena window on (DISPLAY is not set). Run it on a desktop, "
              "under a virtual display (xvfb-run python main.py gui), or headless with 'python main.py run'.",
              file=sys.stderr)
        return 1
    app = application()
    from ui.mainwindow import CLOSE_GRACE, MainWindow

    settings = AppSettings.at(settings_file) if settings_file else AppSettings()
    window = MainWindow(settings)
    quitter = QuitOnSignal(window)  # after the window: pygame is initialized by then
    window.exit_when_done = exit_when_done
    # The first time, a newcomer meets a paused episode and a card that says what is on screen
    # (playing at once, a whole episode is over before the first suggestion is noticed).
    first_run = not settings.get("welcomed") and not paused and not exit_when_done
    if first_run and not any(is_recording(t) for t in targets):
        paused = True
    if speed is not None:
        window.playback.set_speed(speed)
        window.set_speed(window.playback.current_speed, remember=False)
    window.show()
    try:
        launch(window, targets=targets, agents=agents, facilitator=facilitator, mechanisms=mechanisms, seed=seed,
               paused=paused, cooks=cooks)
    except LaunchError as exc:
        window.shutdown()
        quitter.restore()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if first_run and window.model.timeline is not None and paused:
        window.show_hint(window.model.timeline.scenario)
        settings.set("welcomed", True)
    if then is not None:
        QTimer.singleShot(0, lambda: then(window))
    try:
        code = app.exec()
    finally:
        # closing waited its grace already: a decision it abandoned is not waited for twice
        window.shutdown(0.0 if window.sessions.abandoned else CLOSE_GRACE)
        stop_model_servers()
        quitter.restore()
    code = 0 if quitter.received is not None else code
    if window.sessions.abandoned:
        # A decision is still running in a worker (a planner, a model call that waits for its
        # answer): its recording is closed already; end now rather than wait for it at exit.
        print("ToM Arena: a decision under way was abandoned; its recording ends at the last finished step, "
              "as stopped", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
