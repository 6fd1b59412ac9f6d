"""Quitting never waits (issue 41): a recording loading in the background is cancelled, the
scenario catalogue is not waited for, and an embedded model server answering a request is
killed after a short grace rather than waited for."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

from ui_support import make_window

from ui.session.controllers import RecordingLoader
from ui.session.timeline import PreviewTimeline

ROOT = Path(__file__).resolve().parent.parent


def test_closing_while_a_large_recording_loads_cancels_the_load(qtbot, tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_gui import make_long_recording

    path = make_long_recording(tmp_path / "long.jsonl", 3000)
    outcomes: list[str] = []
    started, closed = threading.Event(), threading.Event()
    load = RecordingLoader.load

    def watched(path, cancelled):
        def check() -> bool:
            # the load's first look at its cancel check waits for the window to close, so the
            # window closes while the load is under way, however fast the machine reads
            if not started.is_set():
                started.set()
                closed.wait(30)
            return cancelled()

        try:
            timeline = load(path, check)
        except BaseException as exc:
            outcomes.append(type(exc).__name__)
            raise
        outcomes.append("loaded")
        return timeline

    monkeypatch.setattr(RecordingLoader, "load", staticmethod(watched))
    window = make_window(qtbot, tmp_path)
    assert window.open_recording_in_background(path)
    qtbot.waitUntil(started.is_set, timeout=10_000)
    window.close()  # as File > Quit does
    closed.set()
    # the load gives up: it neither finishes reading nor shows what it read
    qtbot.waitUntil(lambda: bool(outcomes), timeout=30_000)
    assert outcomes == ["LoadCancelled"]
    assert isinstance(window.model.timeline, PreviewTimeline)


def test_closing_does_not_join_a_load_that_has_not_noticed_its_cancel_yet(qtbot, tmp_path, monkeypatch):
    """A load stuck where it does not look at its cancel check (a slow disk): closing cancels it
    and returns with its thread still running (no unbounded join); the load ends by itself later
    and shows nothing."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_gui import make_long_recording

    path = make_long_recording(tmp_path / "short.jsonl", 20)
    stuck, release = threading.Event(), threading.Event()
    cancels: list[bool] = []
    load = RecordingLoader.load

    def stalled(path, cancelled=None):
        stuck.set()
        release.wait(60)  # the test's stand-in for a read that blocks
        cancels.append(bool(cancelled and cancelled()))
        return load(path, cancelled)

    monkeypatch.setattr(RecordingLoader, "load", staticmethod(stalled))
    window = make_window(qtbot, tmp_path)
    assert window.open_recording_in_background(path)
    qtbot.waitUntil(stuck.is_set, timeout=10_000)
    thread = window.loader._threads[-1]
    window.close()
    assert thread.is_alive()  # closing returned without waiting for it
    release.set()
    thread.join(60)
    assert cancels == [True]  # it sees the cancel at its next check
    assert isinstance(window.model.timeline, PreviewTimeline)


def test_closing_does_not_wait_for_the_scenario_catalogue(qtbot, tmp_path, monkeypatch):
    from ui.session import catalog

    release = threading.Event()
    real = catalog.scan_scenarios

    def slow_scan():
        release.wait(5)  # a first start building the scenario index
        return real()

    monkeypatch.setattr(catalog, "scan_scenarios", slow_scan)
    window = make_window(qtbot, tmp_path)
    qtbot.waitUntil(lambda: window.catalogue.started, timeout=10_000)
    window.close()
    assert not window.catalogue.finished  # closed while the index was still being read
    release.set()


def test_quitting_kills_a_model_server_that_is_still_answering_after_a_short_grace(monkeypatch):
    import ui.app
    from agents.llm import server as llm_server

    # a process that, like a server answering a request, does not stop on SIGTERM
    process = subprocess.Popen([sys.executable, "-c", "import signal, time\n"
                                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('up', flush=True)\n"
                                "time.sleep(120)"], stdout=subprocess.PIPE)
    assert process.stdout.readline().strip() == b"up"
    busy = llm_server.EmbeddedServer()
    busy.process = process
    monkeypatch.setitem(llm_server._SHARED, object(), busy)
    graces: list[float] = []
    stop = llm_server.EmbeddedServer.stop
    monkeypatch.setattr(llm_server.EmbeddedServer, "stop", lambda self, grace=10.0: graces.append(grace) or stop(self, grace))
    ui.app.stop_model_servers()
    assert process.returncode == -signal.SIGKILL
    assert graces and max(graces) <= 1.0  # not the server's own 10 s grace


def test_a_worker_that_reports_after_qt_deleted_its_signal_raises_nothing(qapp):
    """At the program's end PyQt deletes every Qt object; a daemon worker (the scenario catalogue
    still read when a signal closed the app) that finishes then reports to no one, silently."""
    from PyQt6 import sip

    from ui.session.controllers import _Reports, report_from_worker

    reports = _Reports()
    sip.delete(reports)
    report_from_worker(reports, 1, None)  # raised RuntimeError in the worker thread before
